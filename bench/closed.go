package bench

import (
	"sync"
	"sync/atomic"
	"time"
)

// warmup sends cfg.Warmup requests over all workers before the clock
// starts, and records none of them.
func (r *runner) warmup() {
	var left atomic.Int64
	left.Store(r.cfg.Warmup)
	var wg sync.WaitGroup
	for _, w := range r.workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for left.Add(-1) >= 0 && r.ctx.Err() == nil {
				w.Do(r.reqCtx)
			}
		}()
	}
	wg.Wait()
}

// closedLoop runs Concurrency workers, each sending its next request when
// its last one is answered.
func (r *runner) closedLoop() {
	var wg sync.WaitGroup
	n := len(r.workers)
	measureFrom := r.measureStart
	deadline := time.Time{}
	if r.cfg.Duration > 0 {
		deadline = measureFrom.Add(r.cfg.Duration)
	}
	for i, w := range r.workers {
		st := r.states[i]
		var delay time.Duration
		if r.cfg.RampUp > 0 && n > 1 {
			delay = time.Duration(int64(r.cfg.RampUp) * int64(i) / int64(n))
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			var sl sleeper
			if delay > 0 && !sl.until(r.ctx, r.start.Add(delay)) {
				return
			}
			r.closedWorker(w, st, measureFrom, deadline)
		}()
	}
	wg.Wait()
}

// closedWorker is one closed-loop worker's loop once it has joined.
func (r *runner) closedWorker(w Worker, st *workerState, measureFrom, deadline time.Time) {
	for r.ctx.Err() == nil {
		if r.limiter != nil && r.limiter.Wait(r.ctx) != nil {
			return
		}
		t0 := time.Now()
		if !deadline.IsZero() && !t0.Before(deadline) {
			return
		}
		measured := !t0.Before(measureFrom)
		if measured && r.cfg.Total > 0 && r.issued.Add(1) > r.cfg.Total {
			return
		}
		smp := w.Do(r.reqCtx)
		t1 := time.Now()
		if measured && !r.cancelledByGrace(smp) {
			st.record(smp, latencies{lat: t1.Sub(t0).Microseconds()}, t0, t1)
		}
	}
}

// cancelledByGrace tells a request cut off at the end of the grace period
// after an interrupt: it was never answered, and is not counted.
func (r *runner) cancelledByGrace(s Sample) bool {
	return s.Kind != OK && r.reqCtx.Err() != nil
}
