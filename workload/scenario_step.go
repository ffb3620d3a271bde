package workload

import (
	"context"
	"time"

	"github.com/mcpbench/mcpbench/bench"
	"github.com/mcpbench/mcpbench/mcp"
)

// A scenario user's session as steps from where it stands: what it needs
// between them is in the user (u.cur), so that on the event loops a
// thinking user is that state and no task (bench.SteppedUser).

// current is a user's session under way: which scenario, its session
// and connections, and where its steps stand.
type current struct {
	k        int
	sc       *scenarioPlan // nil: none under way
	detached *mcp.Client
	s        *mcp.Session
	frames   []frame
}

// frame is a list of steps being run: the scenario's, or a repeat's body
// with left more passes to go after this one.
type frame struct {
	steps      []*stepPlan
	next, left int
}

// Session runs one session: open it, run the steps, close it, waiting
// through its thinks.
func (u *scenarioUser) Session(ctx context.Context, rec *bench.Recorder) int {
	for {
		if k, done := u.Step(ctx, rec); done {
			return k
		}
	}
}

// Step runs the session under way from where it stands, or opens one,
// up to its end or up to a think rec takes over (bench.SteppedUser): what
// it needs after the think is kept in u.cur, so a thinking user holds
// no stack.
func (u *scenarioUser) Step(ctx context.Context, rec *bench.Recorder) (int, bool) {
	c := &u.cur
	u.parks = rec.Parks()
	switch {
	case c.sc == nil:
		if !u.begin(ctx, rec) {
			return c.end(ctx), true
		}
	case !rec.Resumed():
		c.frames = c.frames[:0] // interrupted in a think: close
	}
	if !u.walk(ctx, rec) {
		return c.k, false
	}
	u.deep(func() { u.close(ctx, c.s, c.sc, rec) })
	return c.end(ctx), true
}

// begin picks a scenario and opens its session into u.cur, and reports
// whether it opened.
func (u *scenarioUser) begin(ctx context.Context, rec *bench.Recorder) bool {
	c := &u.cur
	c.k = pickWeighted(u.wl.cum, u.rng)
	c.sc = &u.wl.scenarios[c.k]
	client := u.wl.Client
	if u.wl.fresh {
		d, err := client.Detached(c.sc.width)
		if err != nil {
			u.fail(rec, c.sc.open, err)
			return false
		}
		c.detached, client = d, d
	}
	ok := false
	u.deep(func() { c.s, ok = u.open(ctx, client, c.k, rec) })
	if !ok {
		return false
	}
	u.kept = u.kept[:0]
	for range c.sc.kept {
		u.kept = append(u.kept, nil)
	}
	c.frames = append(c.frames[:0], frame{steps: c.sc.steps})
	return true
}

// end lets go of the session's connections of its own, forgets it, and
// returns its scenario.
func (c *current) end(ctx context.Context) int {
	if c.detached != nil {
		c.detached.Close(context.WithoutCancel(ctx))
	}
	k := c.k
	*c = current{frames: c.frames[:0]}
	return k
}

// walk runs the session's steps from where u.cur stands, and reports
// false when it stopped at a think rec took over. An interrupted run
// ends the walk, as the end of the steps does.
func (u *scenarioUser) walk(ctx context.Context, rec *bench.Recorder) bool {
	c := &u.cur
	for len(c.frames) > 0 {
		f := &c.frames[len(c.frames)-1]
		if f.next == len(f.steps) {
			if f.left > 0 {
				f.left, f.next = f.left-1, 0
			} else {
				c.frames = c.frames[:len(c.frames)-1]
			}
			continue
		}
		if ctx.Err() != nil {
			break
		}
		st := f.steps[f.next]
		f.next++
		switch st.kind {
		case "think":
			d := time.Duration(float64(st.think.draw(u.rng)) * u.wl.think)
			if rec.Park(d) {
				return false
			}
			if !rec.Think(d) {
				c.frames = c.frames[:0]
			}
		case "repeat":
			if st.times > 0 {
				c.frames = append(c.frames, frame{steps: st.body, left: st.times - 1})
			}
		case "parallel":
			u.parallel(ctx, c.s, c.k, st, rec)
		default:
			u.step(ctx, c.s, c.k, st)
			u.file(rec, u.out)
		}
	}
	c.frames = c.frames[:0]
	return true
}
