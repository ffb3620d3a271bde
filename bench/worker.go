package bench

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/mcpbench/mcpbench/measure"
)

// This file is the whole of what the generator asks of what it sends: a
// Work that names its operations and outcome kinds. A RequestLoad starts
// Workers, each of which sends one request per Do and says how it went in
// a Sample (a SessionLoad, session.go, starts Users instead). Nothing here
// knows a protocol, so another driver could run the same loads.

// Kind is a request's outcome, an index into Work.Kinds. A small
// integer, so counting outcomes is an array increment.
type Kind uint8

// OK is the outcome of a request that succeeded; every other Kind is an
// error of that kind.
const OK Kind = 0

// MaxKinds bounds the number of outcome kinds, so each worker counts them
// in a fixed array rather than a map.
const MaxKinds = 16

// Sample is one request's outcome as the generator needs it.
type Sample struct {
	Kind     Kind
	Op       int // index into Work.Operations
	Sent     int64
	Received int64
	Err      error
	// ConnWait is how long the request waited for a connection; one over
	// PoolWaitThreshold counts as a pool wait.
	ConnWait time.Duration
	// FirstEvent is the time to the first part of a streamed answer, and
	// Created the time until the server took the request on as a
	// deferred task; 0 when the request reached no such milestone. Each is
	// summarised on its own beside the full latency.
	FirstEvent, Created time.Duration
	// Stamp is the kernel's time of receiving the answer's end (Unix ns,
	// CLOCK_REALTIME), 0 when the driver has none: the latency then ends
	// there, not when the worker noticed the answer (stamp.go).
	Stamp int64
	// SentAt is when the driver wrote the request, if it read the clock
	// there: with Stamp, the latency is the wire's, from the write to the
	// kernel's receipt of the answer.
	SentAt time.Time
}

// PoolWaitThreshold is the connection wait that counts as waiting for the
// pool: a connection handed back a moment late is not a wait worth a line
// in a report, a dial or a queue behind busy connections is.
const PoolWaitThreshold = time.Millisecond

// Worker sends one request per Do. A worker is used by one goroutine only.
type Worker interface {
	Do(ctx context.Context) Sample
	Close(ctx context.Context) error
}

// Work is what Run drives, the generator's view of a workload: a
// RequestLoad or a SessionLoad. (The load is how hard it is driven:
// Config.)
type Work interface {
	// Operations names the operations a Sample's Op indexes; with more
	// than one, the Point carries per-operation figures. None reads as
	// one operation, "request" (a SessionLoad names its steps).
	Operations() []measure.Operation
	// Kinds names the outcomes a Sample's Kind indexes, OK first; the
	// names are the keys of a Point's errors_by_kind. At most MaxKinds.
	Kinds() []string
}

// RequestLoad is a load of plain requests, one per Worker.Do.
type RequestLoad interface {
	Work
	// NewWorker makes worker id; the generator calls it before the clock
	// starts.
	NewWorker(ctx context.Context, id int) (Worker, error)
}

// Counting is Work that counts things beside its requests (messages
// the server sent, token refreshes...). Counters returns the counts so far
// by name; they only grow, and a Point carries their growth over the
// measured interval.
type Counting interface {
	Counters() map[string]int64
}

// ErrNoWorkers is returned when not one worker could be started.
var ErrNoWorkers = errors.New("no worker could start")

func startWorkers(ctx context.Context, n int, wl RequestLoad) ([]Worker, error) {
	return startEach(ctx, n, wl.NewWorker)
}

// startEach makes n workers (or users) with newOne, a few at a time, and
// closes them all again if one fails.
func startEach[T closer](ctx context.Context, n int, newOne func(context.Context, int) (T, error)) ([]T, error) {
	workers := make([]T, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	// Sessions are opened a few at a time: a thousand simultaneous
	// handshakes would measure the server's accept queue, not the load.
	sem := make(chan struct{}, 32)
	for i := range workers {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			workers[i], errs[i] = newOne(ctx, i)
		}()
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			closeWorkers(workers)
			return nil, fmt.Errorf("worker %d: %w", i, err)
		}
	}
	return workers, nil
}

// closer is what startEach makes: a Worker or a User.
type closer interface {
	Close(ctx context.Context) error
}

func closeWorkers[T closer](ws []T) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	var wg sync.WaitGroup
	for _, w := range ws {
		if any(w) == nil {
			continue
		}
		wg.Add(1)
		go func() { defer wg.Done(); _ = w.Close(ctx) }()
	}
	wg.Wait()
}
