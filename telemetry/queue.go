package telemetry

import (
	"context"
	"fmt"
	"sync"
	"time"
)

// An exporter never slows the load nor holds the report: what it sends
// goes through a bounded queue to a goroutine of its own. A batch that
// finds the queue full is dropped and counted; at the end the queue gets
// FlushBudget to empty, and what is left is dropped and counted too.

// FlushBudget is how long Stop waits for the queue to empty.
var FlushBudget = 2 * time.Second

// queueLen bounds the batches waiting: a minute of one-second intervals.
const queueLen = 64

// sender is the queue and the goroutine that empties it through send.
type sender[T any] struct {
	send   func(context.Context, T) error
	queue  chan T
	done   chan struct{}
	ctx    context.Context
	cancel context.CancelFunc

	mu                      sync.Mutex
	queued, dropped, failed int
	firstErr                error
	closed                  bool
}

func newSender[T any](send func(context.Context, T) error) *sender[T] {
	s := &sender[T]{send: send, queue: make(chan T, queueLen), done: make(chan struct{})}
	s.ctx, s.cancel = context.WithCancel(context.Background())
	go s.loop()
	return s
}

// offer queues b, or drops it when the queue is full.
func (s *sender[T]) offer(b T) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return
	}
	s.queued++
	select {
	case s.queue <- b:
	default:
		s.dropped++
	}
}

func (s *sender[T]) loop() {
	defer close(s.done)
	for b := range s.queue {
		if s.ctx.Err() != nil {
			s.count(1, nil)
			continue
		}
		if err := s.send(s.ctx, b); err != nil {
			s.count(0, err)
		}
	}
}

// count adds dropped batches or a failed one.
func (s *sender[T]) count(dropped int, err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.dropped += dropped
	if err != nil {
		s.failed++
		if s.firstErr == nil {
			s.firstErr = err
		}
	}
}

// close lets the queue empty within FlushBudget, then gives up on the
// rest. Call it once, after the last offer.
func (s *sender[T]) close() {
	s.mu.Lock()
	s.closed = true
	close(s.queue)
	s.mu.Unlock()
	select {
	case <-s.done:
	case <-time.After(FlushBudget):
		s.cancel()
		<-s.done
	}
	s.cancel()
}

// problem says what did not arrive, once, or "" when all did.
func (s *sender[T]) problem(what string) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.dropped == 0 && s.failed == 0 {
		return ""
	}
	msg := fmt.Sprintf("%d of %d %s not delivered (%d dropped: queue full or not sent within %v of the end; %d refused or failed)",
		s.dropped+s.failed, s.queued, what, s.dropped, FlushBudget, s.failed)
	if s.firstErr != nil {
		msg += ": first error: " + s.firstErr.Error()
	}
	return msg
}
