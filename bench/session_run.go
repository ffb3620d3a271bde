package bench

import (
	"context"
	"fmt"
	"math"
	"sync"
	"sync/atomic"
	"time"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/mcpbench/mcpbench/measure"
)

// runSessions measures one load level of sessions. cfg reads as for Run
// with sessions in place of requests: a closed model's workers are users,
// each running sessions back to back (joining evenly over the ramp); an
// open model's rate is new sessions per second, started on the Schedule
// by at most Users() users at once; Total bounds the measured sessions;
// Warmup sessions run first, unmeasured. Sessions under way when the
// level ends run to their end, so every measured step belongs to a whole
// session. A ClosedLoop's MaxRate does not apply.
func runSessions(ctx context.Context, cfg Config, wl SessionLoad) (measure.Point, error) {
	ops, kinds, scenarios := wl.Operations(), wl.Kinds(), wl.Scenarios()
	switch {
	case len(kinds) == 0 || len(kinds) > MaxKinds:
		return measure.Point{}, fmt.Errorf("a workload names 1 to %d outcome kinds, not %d", MaxKinds, len(kinds))
	case len(ops) == 0:
		return measure.Point{}, fmt.Errorf("a session load names its steps")
	case len(scenarios) == 0:
		return measure.Point{}, fmt.Errorf("a session load names its scenarios")
	}
	mem := newMemoryWatch()
	users, err := startEach(ctx, cfg.Users(), wl.NewUser)
	if err != nil {
		return measure.Point{}, err
	}
	defer closeWorkers(users)
	reqCtx, stopReqs := graceContext(ctx, cfg.Grace)
	defer stopReqs()

	sr := newSessionRunner(cfg, ctx, reqCtx, users, ops, kinds, scenarios)
	defer sr.stopLoops()
	sr.counting, _ = wl.(Counting)
	sr.mem = mem
	drive := sr.closedSessions
	if sr.p.open() {
		drive = sr.openSessions
	}
	mem.start()
	p := sr.measure(sr.warmup, drive)
	mem.finish()
	if p.Sessions != nil {
		p.Sessions.MemoryPerSession, p.Sessions.PeakOpen = mem.perSession()
	}
	return p, nil
}

// Users is how many virtual users a session level runs: Concurrency in a
// closed loop; in an open loop MaxInFlight, or by default enough for ten
// seconds of sessions (16 to 1000), since a session lasts far longer than
// a request.
func (c Config) Users() int {
	p := c.pace()
	if !p.open() || p.maxInFlight > 0 {
		return p.workers()
	}
	return int(min(1000, max(16, math.Ceil(10*p.rate))))
}

// maxSessionShards bounds the step histogram shards of a session run:
// steps come far slower than a plain loop's requests, and each shard
// holds a histogram per step.
const maxSessionShards = 8

// sessionRunner is a session level in progress: the runner's step records
// (one workerState per user, per-step histograms) and the session figures
// beside them.
type sessionRunner struct {
	*runner
	users     []User
	recs      []*Recorder
	seen      []*userSessions
	scenarios []string
	due       int64 // open loop with a duration: sessions due in the window
	mem       *memoryWatch

	mu                     sync.Mutex // guards the histograms below
	duration, active       []*hdrhistogram.Histogram
	uncorrected, lag, wake *hdrhistogram.Histogram // open loop only
}

// userSessions is what one user counted of its measured sessions.
type userSessions struct {
	byScenario []scenarioCounts
	started    int64
	lastEnd    time.Time
	completed  atomic.Int64 // read by the progress goroutine
}

type scenarioCounts struct {
	completed, failed, steps int64
	think                    time.Duration
}

// sessionClock is when a session was due, taken, started and done.
type sessionClock struct {
	claimed
	sent, done time.Time
}

func newSessionRunner(cfg Config, ctx, reqCtx context.Context, users []User, ops []measure.Operation, kinds, scenarios []string) *sessionRunner {
	r := &runner{cfg: cfg, p: cfg.pace(), ops: ops, kinds: kinds, ctx: ctx, reqCtx: reqCtx}
	r.p.maxRate = 0 // a session is no request to cap
	sr := &sessionRunner{runner: r, users: users, scenarios: scenarios}
	r.sessions = sr
	r.startLoops(loopWorkers(users))
	// The users of a loop take turns on its thread, so they share its
	// step records (user i runs on loop i modulo their number): an idle
	// user then holds no buffers of its own. On goroutines each has its own.
	n := len(users)
	if r.loops != nil {
		n = r.loops.Size()
	}
	r.makeStates(n, min(shardCount(n), maxSessionShards), false, true)
	for i := range users {
		sr.recs = append(sr.recs, &Recorder{st: r.states[i%n], r: r})
		sr.seen = append(sr.seen, &userSessions{byScenario: make([]scenarioCounts, len(scenarios))})
	}
	for range scenarios {
		sr.duration = append(sr.duration, NewHistogram())
		sr.active = append(sr.active, NewHistogram())
	}
	if r.p.open() {
		sr.uncorrected, sr.lag, sr.wake = NewHistogram(), NewHistogram(), NewHistogram()
	}
	return sr
}

// warmup runs cfg.Warmup sessions over all users, unmeasured.
func (sr *sessionRunner) warmup() {
	sr.warmupEach(len(sr.users), func(i int, ln lane) {
		sr.recs[i].sl = ln.sleeper()
		sr.recs[i].begin(false)
		sr.users[i].Session(sr.reqCtx, sr.recs[i])
	})
}

// closedSessions runs Concurrency users, each starting its next session
// when its last one ends, until the deadline or the total. On event
// loops, without stages, a user that can hands its thinks to the loop
// (parkedUser): an idle session then holds no task.
func (sr *sessionRunner) closedSessions() {
	park := len(sr.p.stages) == 0
	sr.closedEach(len(sr.users), func(i int, ln lane, measureFrom, deadline time.Time) {
		sr.recs[i].sl = ln.sleeper()
		if su, ok := sr.users[i].(SteppedUser); ok && park && ln.loop != nil {
			p := &parkedUser{sr: sr, i: i, u: su, loop: ln.loop, measureFrom: measureFrom, deadline: deadline}
			p.wake = p.resume
			p.run()
			return
		}
		for {
			c, measured, ok := sr.nextClosed(measureFrom, deadline)
			if !ok {
				return
			}
			sr.session(i, measured, c)
		}
	})
}

// nextClosed says whether a closed loop's user starts another session
// now, whether it is measured, and its clock.
func (sr *sessionRunner) nextClosed(measureFrom, deadline time.Time) (claimed, bool, bool) {
	if sr.ctx.Err() != nil {
		return claimed{}, false, false
	}
	now := time.Now()
	if !deadline.IsZero() && !now.Before(deadline) {
		return claimed{}, false, false
	}
	measured := !now.Before(measureFrom)
	if measured && sr.cfg.Total > 0 && sr.issued.Add(1) > sr.cfg.Total {
		return claimed{}, false, false
	}
	return claimed{intended: now, claimed: now}, measured, true
}

// openSessions starts session n at its time on the schedule, whatever
// became of the earlier ones, on whichever user is free.
func (sr *sessionRunner) openSessions() {
	sr.openEach(len(sr.users), func(i int, ln lane, sched Schedule, skip int64, measureFrom time.Time) {
		sl := ln.sleeper()
		sr.recs[i].sl = ln.sleeper()
		for {
			c, ok := sr.claim(&sl, sched, skip, measureFrom)
			if !ok {
				return
			}
			sr.session(i, c.i >= skip, c)
		}
	})
	// The runner's count is of sessions here, not of requests; a bound
	// on sessions makes fewer due.
	sr.due, sr.scheduled = sr.scheduled, 0
	if sr.cfg.Total > 0 {
		sr.due = min(sr.due, sr.cfg.Total)
	}
}

// session runs one session on user i and files it if it is measured.
func (sr *sessionRunner) session(i int, measured bool, c claimed) {
	at := sr.begin(i, measured, c)
	scenario := sr.users[i].Session(sr.reqCtx, sr.recs[i])
	sr.end(i, measured, at, scenario)
}

// begin readies user i's recorder for a session and counts it open.
func (sr *sessionRunner) begin(i int, measured bool, c claimed) sessionClock {
	sr.recs[i].begin(measured)
	if measured {
		sr.seen[i].started++
	}
	sr.mem.open.Add(1)
	return sessionClock{claimed: c, sent: time.Now()}
}

// end counts user i's session closed and files it if it is measured.
func (sr *sessionRunner) end(i int, measured bool, at sessionClock, scenario int) {
	rec, seen := sr.recs[i], sr.seen[i]
	sr.mem.open.Add(-1)
	at.done = time.Now()
	// A session an interrupt cut short is not a whole one.
	if !measured || sr.ctx.Err() != nil || scenario < 0 || scenario >= len(sr.scenarios) {
		return
	}
	counts := &seen.byScenario[scenario]
	counts.completed++
	if rec.errors > 0 {
		counts.failed++
	}
	counts.steps += rec.steps
	counts.think += rec.think
	seen.lastEnd = at.done
	seen.completed.Add(1)
	sr.mu.Lock()
	defer sr.mu.Unlock()
	_ = sr.duration[scenario].RecordValue(micros(at.done.Sub(at.intended)))
	_ = sr.active[scenario].RecordValue(micros(at.done.Sub(at.sent) - rec.think))
	if sr.uncorrected != nil {
		_ = sr.uncorrected.RecordValue(micros(at.done.Sub(at.sent)))
		_ = sr.lag.RecordValue(micros(at.sent.Sub(at.intended)))
		_ = sr.wake.RecordValue(micros(at.sent.Sub(at.wakeFrom())))
	}
}

// micros is d in whole microseconds, at least 1 (the histograms' floor).
func micros(d time.Duration) int64 { return max(d.Microseconds(), 1) }

// lastEnd is when the last measured session ended (zero if none did).
func (sr *sessionRunner) lastEnd() time.Time {
	var end time.Time
	for _, s := range sr.seen {
		if s.lastEnd.After(end) {
			end = s.lastEnd
		}
	}
	return end
}

// completed is the number of measured sessions completed so far.
func (sr *sessionRunner) completed() int64 {
	var n int64
	for _, s := range sr.seen {
		n += s.completed.Load()
	}
	return n
}

// backlog is the open loop's record of session starts, for saturation.
func (sr *sessionRunner) backlog() backlog {
	var started int64
	for _, s := range sr.seen {
		started += s.started
	}
	return backlog{unit: "sessions", started: started, due: sr.due, missed: max(sr.due-started, 0)}
}
