package bench

import (
	"context"
	"time"
)

// MCP sessions as the unit of work. A RequestLoad sends one request per
// Do and the generator times it; a SessionLoad runs a whole session per
// call (several requests, pauses between them, some at once) and reports
// each of its steps through a Recorder the generator hands it. The
// generator times the session, paces session starts (closed: users back
// to back; open: starts on the schedule) and keeps per-step, per-scenario
// and per-session figures. Plain requests never reach this file: their
// path is unchanged.

// SessionLoad is a load whose unit of work is a session.
type SessionLoad interface {
	// Operations names the steps a Sample's Op indexes (one histogram
	// each); Kinds names the outcomes, as for any Work.
	Work
	// Scenarios names what a session's scenario index refers to.
	Scenarios() []string
	// NewUser makes virtual user id; the generator calls it before the
	// clock starts. A user runs one session at a time.
	NewUser(ctx context.Context, id int) (User, error)
}

// User runs sessions one after another, from one goroutine.
type User interface {
	// Session runs one whole session, reporting every step to rec as it
	// completes and waiting out its pauses with rec.Think, and returns the
	// index of the scenario it ran. It stops early when rec.Think says the
	// run was interrupted. ctx is the context requests run on.
	Session(ctx context.Context, rec *Recorder) (scenario int)
	Close(ctx context.Context) error
}

// SteppedUser is a User whose session can wait through a think holding
// nothing but its own state: no goroutine, no task, no stack. On an event
// loop (a closed loop without stages) the generator calls Step, which
// runs the session from where it stands (from its beginning when none is
// under way) up to its end (done) or up to a think it handed to rec.Park
// (not done, and nothing of it runs until the think is over); Step is
// then called again, on a new task, and rec.Resumed says whether the
// think ran its whole time. Elsewhere Park refuses and the generator
// calls Session, which waits with Think. Ten thousand idle sessions held
// a parked task each, 4 to 8 KiB of stack, most of what one cost.
type SteppedUser interface {
	User
	Step(ctx context.Context, rec *Recorder) (scenario int, done bool)
}

// Recorder takes the steps of the session a user is running. It belongs
// to the user's goroutine: steps run in parallel inside a session are
// reported once they have all finished, one after another.
type Recorder struct {
	st       *workerState
	r        *runner
	measured bool
	sl       sleeper
	// The session under way.
	steps, errors int64
	think         time.Duration
	// park says Park may hand a think to the loop (parkedUser); parkedAt
	// and wakeAt are the think handed over, resumed how it ended.
	park             bool
	parkedAt, wakeAt time.Time
	resumed          bool
}

// Step files one step's outcome and its latency, measured by the caller
// around the step alone.
func (rec *Recorder) Step(s Sample, latency time.Duration) {
	if s.Kind != OK && rec.r.reqCtx.Err() != nil {
		return // cut off by the end of an interrupt's grace: never answered
	}
	rec.steps++
	if s.Kind != OK {
		rec.errors++
	}
	if rec.measured {
		done := time.Now()
		rec.st.record(s, latencies{lat: latency.Microseconds()}, done.Add(-latency), done)
	}
}

// Think waits d (a pause of the session: a model thinking) and reports
// whether it waited the whole time; false means the run was interrupted
// and the session should stop. The time waited is the session's think
// time, which its active duration leaves out.
func (rec *Recorder) Think(d time.Duration) bool {
	t0 := time.Now()
	ok := rec.sl.until(rec.r.ctx, t0.Add(d))
	rec.think += time.Since(t0)
	return ok
}

// Park hands a think of d to the generator, where it can take one (a
// SteppedUser's Step, on an event loop): the user's Step returns not
// done, and is called again once d has passed. It reports false where
// the think is the caller's to wait with Think.
func (rec *Recorder) Park(d time.Duration) bool {
	if !rec.park {
		return false
	}
	rec.parkedAt = time.Now()
	rec.wakeAt = rec.parkedAt.Add(d)
	return true
}

// Parks says whether Park hands thinks to the generator: the session's
// user then waits through none, and holds nothing across one.
func (rec *Recorder) Parks() bool { return rec.park }

// Resumed says whether the think last handed to Park ran its whole time;
// false means the run was interrupted and the session should stop, as
// when Think reports false.
func (rec *Recorder) Resumed() bool { return rec.resumed }

// begin readies rec for a new session.
func (rec *Recorder) begin(measured bool) {
	rec.measured, rec.steps, rec.errors, rec.think = measured, 0, 0, 0
}
