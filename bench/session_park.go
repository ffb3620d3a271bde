package bench

import (
	"time"

	"github.com/mcpbench/mcpbench/internal/evloop"
)

// parkedUser runs a closed loop's SteppedUser on an event loop: its
// sessions back to back, as closedSessions does, but what goes on after
// a think is a call the loop makes once the think is over (Loop.After),
// not a task suspended through it. All it holds between is here.
type parkedUser struct {
	sr                    *sessionRunner
	i                     int
	u                     SteppedUser
	loop                  *evloop.Loop
	measureFrom, deadline time.Time
	// The session under way, when inSession.
	inSession bool
	measured  bool
	at        sessionClock
	wake      func(ok bool) // p.resume, made once
}

// run goes on with the user's sessions until one parks at a think (the
// loop then calls resume) or the closed loop is over for the user.
func (p *parkedUser) run() {
	sr, rec := p.sr, p.sr.recs[p.i]
	rec.park = true
	for {
		if !p.inSession {
			c, measured, ok := sr.nextClosed(p.measureFrom, p.deadline)
			if !ok {
				return
			}
			p.at, p.measured, p.inSession = sr.begin(p.i, measured, c), measured, true
		}
		scenario, done := p.u.Step(sr.reqCtx, rec)
		if !done {
			p.loop.After(sr.ctx, rec.wakeAt, p.wake)
			return
		}
		p.inSession = false
		sr.end(p.i, p.measured, p.at, scenario)
	}
}

// resume runs, on a new task, once the think the session parked at is
// over (ok) or the run was interrupted.
func (p *parkedUser) resume(ok bool) {
	rec := p.sr.recs[p.i]
	rec.think += time.Since(rec.parkedAt)
	rec.resumed = ok
	p.run()
}
