package bench

import (
	"sync"
	"time"
)

// openLoop sends request i at its scheduled time whatever happened to the
// earlier ones. Latency runs from the intended time, so a request that had
// to wait for a free worker carries that wait (coordinated omission).
func (r *runner) openLoop() {
	sched := r.schedule()
	skip := r.rampRequests(sched)
	measureFrom := r.measureStart
	var wg sync.WaitGroup
	for i, w := range r.workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r.openWorker(w, r.states[i], sched, skip, measureFrom)
		}()
	}
	wg.Wait()
	if r.cfg.Duration > 0 && r.ctx.Err() == nil {
		r.scheduled = sched.Count(sched.At(skip)+r.cfg.Duration) - skip
	}
}

// openWorker is one open-loop worker: it claims the next request of the
// schedule, waits for its time, sends it, and records it unless it
// belongs to the ramp.
func (r *runner) openWorker(w Worker, st *workerState, sched Schedule, skip int64, measureFrom time.Time) {
	var sl sleeper
	for r.ctx.Err() == nil {
		i := r.issued.Add(1) - 1
		if r.cfg.Total > 0 && i-skip >= r.cfg.Total {
			return
		}
		intended := r.start.Add(sched.At(i))
		if r.cfg.Duration > 0 && i >= skip && intended.Sub(measureFrom) >= r.cfg.Duration {
			return
		}
		claimed := time.Now()
		// At the end of the window the generator stops, even if it
		// is behind: what it could not send is counted as unsent.
		if r.cfg.Duration > 0 && claimed.Sub(measureFrom) >= r.cfg.Duration {
			return
		}
		if !sl.until(r.ctx, intended) {
			return
		}
		sent := time.Now()
		smp := w.Do(r.reqCtx)
		done := time.Now()
		if i < skip || r.cancelledByGrace(smp) {
			continue
		}
		// The generator's own delay (wake): how late it sent when a
		// worker was free in time. Waiting for a worker is the
		// server's doing (or MaxInFlight's); waking late is ours.
		from := intended
		if claimed.After(intended) {
			from = claimed
		}
		st.record(smp, latencies{
			lat:         done.Sub(intended).Microseconds(),
			uncorrected: done.Sub(sent).Microseconds(),
			lag:         sent.Sub(intended).Microseconds(),
			wake:        sent.Sub(from).Microseconds(),
		}, sent, done)
	}
}

// schedule is the open loop's send schedule.
func (r *runner) schedule() Schedule {
	return Schedule{Rate: r.cfg.Rate, Ramp: r.cfg.RampUp}
}

// rampRequests is how many requests of the schedule belong to the ramp
// and are not measured.
func (r *runner) rampRequests(sched Schedule) int64 {
	if r.cfg.RampUp > 0 && !r.cfg.MeasureRamp {
		return sched.Count(r.cfg.RampUp)
	}
	return 0
}

// measureFrom is when measuring begins: at the start, or once the ramp
// is over unless it is measured too.
func (r *runner) measureFrom() time.Time {
	if r.cfg.Rate > 0 {
		sched := r.schedule()
		return r.start.Add(sched.At(r.rampRequests(sched)))
	}
	if r.cfg.RampUp > 0 && !r.cfg.MeasureRamp {
		return r.start.Add(r.cfg.RampUp)
	}
	return r.start
}
