package bench

import (
	"context"
	"runtime"
	"sync"
	"time"

	"github.com/mcpbench/mcpbench/internal/evloop"
)

// A level's workers run either on goroutines of their own or, when the
// workload's waiting all goes through evloop (its connections and the
// engine's sleeps), as tasks of a few event loops, one per core. The
// loops cost a request one write, one read and a share of an epoll_wait,
// with no hand-off between cores; the drivers are the same code on both.

// LoopWorker is a Worker that may run as a task of an event loop. Before
// a level's loops run, OnLoop is called with the loop the worker's task
// will run on, and it reports whether the worker then waits on nothing
// but that loop (its Conns and sleeps; anything else would hold up the
// other tasks of the loop). After the level, or when any worker said no
// and the level runs on goroutines, OnLoop(nil) takes it off again.
type LoopWorker interface {
	OnLoop(l *evloop.Loop) bool
}

// Drivers, as a Point's Client.Driver names them.
const (
	DriverGoroutines = "goroutines"
	DriverLoops      = "event-loops"
)

// lane is where one worker runs: reqCtx is the context its requests go
// out on, loop its loop or nil.
type lane struct {
	reqCtx context.Context
	loop   *evloop.Loop
}

// sleeper returns a sleeper for the lane: on a loop it suspends the task.
func (ln lane) sleeper() sleeper { return sleeper{loop: ln.loop} }

// startLoops makes the level's event loops when loopsFit says they fit,
// ws all LoopWorkers (the level's workers, or a session level's users),
// and tells each its loop: ws[i] runs on loop i modulo their number. One
// that cannot run on its loop sends the level back to goroutines.
func (r *runner) startLoops(ws []LoopWorker) {
	if !loopsFit(runtime.GOOS, r.cfg.Loops, r.p.maxRate, len(ws) > 0) {
		return
	}
	g, err := evloop.NewGroup(min(r.cfg.Loops, len(ws)), r.ctx.Done())
	if err != nil {
		return // the goroutines will do
	}
	for i, w := range ws {
		if !w.OnLoop(g.Loop(i)) {
			offLoops(ws[:i+1])
			g.Close()
			return
		}
	}
	r.loops, r.onLoops = g, ws
}

// loopWorkers is ws as LoopWorkers, or nil when there are none or one of
// them may not run on a loop.
func loopWorkers[T any](ws []T) []LoopWorker {
	out := make([]LoopWorker, 0, len(ws))
	for _, w := range ws {
		lw, ok := any(w).(LoopWorker)
		if !ok {
			return nil
		}
		out = append(out, lw)
	}
	return out
}

// offLoops takes ws off the loops they were told.
func offLoops(ws []LoopWorker) {
	for _, w := range ws {
		w.OnLoop(nil)
	}
}

func (r *runner) stopLoops() {
	if r.loops != nil {
		offLoops(r.onLoops)
		r.loops.Close()
	}
}

// driver names what ran the workers, and on how many loops.
func (r *runner) driver() (string, int) {
	if r.loops == nil {
		return DriverGoroutines, 0
	}
	return DriverLoops, r.loops.Size()
}

// each runs fn for workers 0..n-1 at once and returns when all have
// returned: a goroutine each, or a task each spread over the loops.
func (r *runner) each(n int, fn func(i int, ln lane)) { r.eachFrom(n, nil, fn) }

// eachFrom is each with worker i starting at from(i) (from nil: all at
// once), or not at all when the run ends first. On the loops a worker
// not yet started is a call the loop makes at its time (Loop.After),
// not a task asleep: twenty thousand users joining over a ramp held a
// sleeping task, and its stack, each.
func (r *runner) eachFrom(n int, from func(i int) time.Time, fn func(i int, ln lane)) {
	if r.loops == nil {
		var wg sync.WaitGroup
		for i := range n {
			wg.Add(1)
			go func() {
				defer wg.Done()
				ln := lane{reqCtx: r.reqCtx}
				if from != nil {
					if sl := ln.sleeper(); !sl.until(r.ctx, from(i)) {
						return
					}
				}
				fn(i, ln)
			}()
		}
		wg.Wait()
		return
	}
	now := time.Now()
	for i := range n {
		ln := lane{reqCtx: r.reqCtx, loop: r.loops.Loop(i)}
		if from != nil {
			if at := from(i); at.After(now) {
				ln.loop.After(r.ctx, at, func(ok bool) {
					if ok {
						fn(i, ln)
					}
				})
				continue
			}
		}
		r.loops.Go(r.reqCtx, i, func(ctx context.Context) {
			fn(i, lane{reqCtx: ctx, loop: ln.loop})
		})
	}
	r.loops.Run()
}

// sleeper waits on one timer it keeps, so a worker that paces every
// request allocates no timer per request; on an event loop it suspends
// the worker's task instead.
type sleeper struct {
	t    *time.Timer
	loop *evloop.Loop
}

// until waits until at, or until ctx ends, and reports whether it waited
// the whole time (a time already past reports whether ctx is still live).
func (s *sleeper) until(ctx context.Context, at time.Time) bool {
	if s.loop != nil {
		return s.loop.SleepUntil(ctx, at)
	}
	d := time.Until(at)
	if d <= 0 {
		return ctx.Err() == nil
	}
	if s.t == nil {
		s.t = time.NewTimer(d)
	} else {
		s.t.Reset(d)
	}
	select {
	case <-s.t.C:
		return true
	case <-ctx.Done():
		s.t.Stop()
		return false
	}
}
