package bench

import (
	"sync/atomic"
	"time"
)

// warmup sends cfg.Warmup requests over all workers before the clock
// starts, and records none of them.
func (r *runner) warmup() {
	r.warmupEach(len(r.workers), func(i int, ln lane) { r.workers[i].Do(ln.reqCtx) })
}

// warmupEach runs one (a request, a session) cfg.Warmup times in all,
// shared over the n workers' lanes.
func (r *runner) warmupEach(n int, one func(worker int, ln lane)) {
	var left atomic.Int64
	left.Store(r.cfg.Warmup)
	r.each(n, func(i int, ln lane) {
		for left.Add(-1) >= 0 && r.ctx.Err() == nil {
			one(i, ln)
		}
	})
}

// closedLoop runs Concurrency workers, each sending its next request when
// its last one is answered.
func (r *runner) closedLoop() {
	r.closedEach(len(r.workers), func(i int, ln lane, measureFrom, deadline time.Time) {
		r.closedWorker(r.workers[i], ln, r.states[i], measureFrom, deadline)
	})
}

// closedEach starts n workers (or users), evenly over the ramp, each
// running loop until the deadline; loop measures what it does from
// measureFrom on.
func (r *runner) closedEach(n int, loop func(worker int, ln lane, measureFrom, deadline time.Time)) {
	measureFrom := r.measureStart
	deadline := time.Time{}
	if r.p.duration > 0 {
		deadline = measureFrom.Add(r.p.duration)
	}
	if len(r.p.stages) > 0 {
		r.each(n, func(i int, ln lane) { r.staged(i, ln, measureFrom, loop) })
		return
	}
	var join func(i int) time.Time
	if r.p.rampUp > 0 && n > 1 {
		join = func(i int) time.Time {
			return r.start.Add(time.Duration(int64(r.p.rampUp) * int64(i) / int64(n)))
		}
	}
	r.eachFrom(n, join, func(i int, ln lane) { loop(i, ln, measureFrom, deadline) })
}

// staged runs worker i's loop in each of its stage windows, waiting
// between them.
func (r *runner) staged(i int, ln lane, measureFrom time.Time, loop func(worker int, ln lane, measureFrom, deadline time.Time)) {
	sl := ln.sleeper()
	for _, w := range r.p.stages.Windows(i) {
		if !sl.until(r.ctx, r.start.Add(w.From)) {
			return
		}
		loop(i, ln, measureFrom, r.start.Add(w.To))
	}
}

// closedWorker is one closed-loop worker's loop once it has joined.
func (r *runner) closedWorker(w Worker, ln lane, st *workerState, measureFrom, deadline time.Time) {
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
		smp := w.Do(ln.reqCtx)
		from, t1, notice, stamped := kernelEnd(t0, time.Now(), smp)
		if measured && !r.cancelledByGrace(smp) {
			st.record(smp, latencies{lat: t1.Sub(from).Microseconds(), notice: notice.Microseconds(), stamped: stamped}, t0, t1)
		}
	}
}

// cancelledByGrace tells a request cut off at the end of the grace period
// after an interrupt: it was never answered, and is not counted.
func (r *runner) cancelledByGrace(s Sample) bool {
	return s.Kind != OK && r.reqCtx.Err() != nil
}
