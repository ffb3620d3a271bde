package bench

import (
	"time"
)

// openLoop sends request i at its scheduled time whatever happened to the
// earlier ones. Latency runs from the intended time, so a request that had
// to wait for a free worker carries that wait (coordinated omission).
func (r *runner) openLoop() {
	r.openEach(len(r.workers), func(i int, ln lane, sched Schedule, skip int64, measureFrom time.Time) {
		r.openWorker(r.workers[i], ln, r.states[i], sched, skip, measureFrom)
	})
}

// openEach runs n workers (or users) on the schedule of the level, each
// claiming the next item of it in loop, and counts the items due in the
// window. The first skip items belong to the ramp.
func (r *runner) openEach(n int, loop func(worker int, ln lane, sched Schedule, skip int64, measureFrom time.Time)) {
	sched := r.schedule()
	skip := r.rampRequests(sched)
	measureFrom := r.measureStart
	r.each(n, func(i int, ln lane) { loop(i, ln, sched, skip, measureFrom) })
	if r.p.duration > 0 && r.ctx.Err() == nil {
		r.scheduled = sched.Count(sched.At(skip)+r.p.duration) - skip
	}
}

// openWorker is one open-loop worker: it claims the next request of the
// schedule, waits for its time, sends it, and records it unless it
// belongs to the ramp.
func (r *runner) openWorker(w Worker, ln lane, st *workerState, sched Schedule, skip int64, measureFrom time.Time) {
	sl := ln.sleeper()
	for {
		c, ok := r.claim(&sl, sched, skip, measureFrom)
		if !ok {
			return
		}
		sent := time.Now()
		smp := w.Do(ln.reqCtx)
		// The kernel's stamp ends the interval; its start stays the
		// intended time (coordinated omission).
		from, done, notice, stamped := kernelEnd(sent, time.Now(), smp)
		if c.i < skip || r.cancelledByGrace(smp) {
			continue
		}
		st.record(smp, latencies{
			lat:         done.Sub(c.intended).Microseconds(),
			uncorrected: done.Sub(from).Microseconds(),
			lag:         sent.Sub(c.intended).Microseconds(),
			wake:        sent.Sub(c.wakeFrom()).Microseconds(),
			notice:      notice.Microseconds(),
			stamped:     stamped,
		}, sent, done)
	}
}

// claimed is one item of the open loop's schedule a worker took: its
// number, when it was due and when the worker took it.
type claimed struct {
	i                 int64
	intended, claimed time.Time
}

// wakeFrom is when the worker could have sent the item: its time, or
// when the worker got to it if that was later. How late it sent after
// that is the generator's own delay (wake); waiting for a worker is the
// server's doing (or MaxInFlight's), waking late is ours.
func (c claimed) wakeFrom() time.Time {
	if c.claimed.After(c.intended) {
		return c.claimed
	}
	return c.intended
}

// claim takes the next item of the schedule and waits for its time. It
// reports false when the worker should stop: the run was interrupted, the
// total is reached, or the window is over.
func (r *runner) claim(sl *sleeper, sched Schedule, skip int64, measureFrom time.Time) (claimed, bool) {
	if r.ctx.Err() != nil {
		return claimed{}, false
	}
	i := r.issued.Add(1) - 1
	if r.cfg.Total > 0 && i-skip >= r.cfg.Total {
		return claimed{}, false
	}
	intended := r.start.Add(sched.At(i))
	if r.p.duration > 0 && i >= skip && intended.Sub(measureFrom) >= r.p.duration {
		return claimed{}, false
	}
	now := time.Now()
	// At the end of the window the generator stops, even if it is
	// behind: what it could not send is counted as unsent.
	if r.p.duration > 0 && now.Sub(measureFrom) >= r.p.duration {
		return claimed{}, false
	}
	if !sl.until(r.ctx, intended) {
		return claimed{}, false
	}
	return claimed{i: i, intended: intended, claimed: now}, true
}

// schedule is the open loop's send schedule.
func (r *runner) schedule() Schedule {
	return Schedule{Rate: r.p.rate, Ramp: r.p.rampUp, Stages: r.p.stages}
}

// rampRequests is how many requests of the schedule belong to the ramp
// and are not measured.
func (r *runner) rampRequests(sched Schedule) int64 {
	if r.p.rampUp > 0 && !r.cfg.MeasureRamp {
		return sched.Count(r.p.rampUp)
	}
	return 0
}

// measureFrom is when measuring begins: at the start, or once the ramp
// is over unless it is measured too.
func (r *runner) measureFrom() time.Time {
	if r.p.open() {
		sched := r.schedule()
		return r.start.Add(sched.At(r.rampRequests(sched)))
	}
	if r.p.rampUp > 0 && !r.cfg.MeasureRamp {
		return r.start.Add(r.p.rampUp)
	}
	return r.start
}
