package workload

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"sync"
	"time"

	"github.com/mcpbench/mcpbench/bench"
	"github.com/mcpbench/mcpbench/internal/evloop"
	"github.com/mcpbench/mcpbench/mcp"
)

// scenarioUser is one virtual user: it runs a session of a scenario chosen
// by weight, one after another. Steps of a parallel block run on
// branches of the session, each with what is its own: a random stream,
// its step's framed requests, its step's result slot.
type scenarioUser struct {
	wl        *ScenarioWorkload
	rng       *rand.Rand
	branchRng []*rand.Rand
	width     int
	// By scenario, by request step: the requests framed so far (framed
	// once, reused by every session), and where the step's argument sets
	// go on.
	prepared [][][]*mcp.Prepared
	next     [][]int
	kept     [][]byte // this session's results kept for later steps, by slot
	out      []outcome
	// loop is the event loop the user runs on (nil: a goroutine of its
	// own): its sessions are opened there, its parallel steps are tasks.
	loop *evloop.Loop
	// pending is the step a helper of the loop sends for the user
	// (deepStep), and sendPending the method value that sends it, made
	// once so that a step allocates nothing.
	pending     pendingStep
	sendPending func()
	// parks says the session under way hands its thinks to the generator
	// (bench.Recorder.Parks).
	parks bool
	// cur is the session under way, all it needs between its steps.
	cur current
}

// pendingStep is a request step handed to a helper task.
type pendingStep struct {
	ctx context.Context
	s   *mcp.Session
	k   int
	st  *stepPlan
}

// outcome is one request of a step, to be filed once the step is done.
type outcome struct {
	smp bench.Sample
	lat time.Duration
}

func (u *scenarioUser) Close(context.Context) error { return nil }

// OnLoop runs the user's sessions on l (bench.LoopWorker) where the
// client's sessions can run there. A session on connections of its own
// dials them on l too, from its Detached client's pool for l.
func (u *scenarioUser) OnLoop(l *evloop.Loop) bool {
	if l != nil && !u.wl.Client.OnLoops() {
		return false
	}
	u.loop = l
	u.sendPending = u.send
	return true
}

// deep runs fn, which sends requests, on a helper task of the user's loop
// (evloop.Deep): the user's own task, which waits through the thinks,
// then never holds the stack a request grows. Off a loop it runs fn, and
// so it does where the thinks are handed to the generator (parks): the
// user's task then ends at each think, and a helper for each user
// opening its session only doubled the goroutines of an opening burst.
func (u *scenarioUser) deep(fn func()) {
	if u.loop == nil || u.parks {
		fn()
		return
	}
	u.loop.Deep(fn)
}

// step sends a request step on s into u.out, on a helper task of the
// user's loop if it has one.
func (u *scenarioUser) step(ctx context.Context, s *mcp.Session, k int, st *stepPlan) {
	if u.loop == nil || u.parks {
		u.out = u.do(ctx, s, k, st, u.rng, u.out[:0])
		return
	}
	u.pending = pendingStep{ctx, s, k, st}
	u.loop.Deep(u.sendPending)
	u.pending = pendingStep{}
}

func (u *scenarioUser) send() {
	p := &u.pending
	u.out = u.do(p.ctx, p.s, p.k, p.st, u.rng, u.out[:0])
}

// open begins the session and files its opening step: the initialize
// handshake (timed around it), or server/discover.
func (u *scenarioUser) open(ctx context.Context, client *mcp.Client, k int, rec *bench.Recorder) (*mcp.Session, bool) {
	st := u.wl.scenarios[k].open
	t0 := time.Now()
	var s *mcp.Session
	var err error
	if u.loop != nil {
		s, err = client.NewSessionOn(ctx, u.loop)
	} else {
		s, err = client.NewSession(ctx)
	}
	if err != nil {
		u.fail(rec, st, err)
		return nil, false
	}
	if st == nil {
		return s, true
	}
	if st.variants[0].Method == "initialize" {
		rec.Step(bench.Sample{Op: st.op}, time.Since(t0))
		return s, true
	}
	u.out = u.do(ctx, s, k, st, u.rng, u.out[:0])
	u.file(rec, u.out)
	return s, true
}

// fail files a session that could not open as a failed opening step.
func (u *scenarioUser) fail(rec *bench.Recorder, st *stepPlan, err error) {
	op := 0
	if st != nil {
		op = st.op
	}
	rec.Step(bench.Sample{Kind: bench.Kind(kindOf(err)), Op: op, Err: err}, 0)
}

// kindOf is err's mcp kind, a transport error when it has none.
func kindOf(err error) mcp.Kind {
	if k := mcp.KindOf(err); k != mcp.OK {
		return k
	}
	return mcp.KindTransport
}

// close ends the session: a DELETE on stateful revisions, filed as the
// closing step.
func (u *scenarioUser) close(ctx context.Context, s *mcp.Session, sc *scenarioPlan, rec *bench.Recorder) {
	ctx = context.WithoutCancel(ctx)
	if sc.closeOp < 0 || s.ID() == "" {
		_ = s.Close(ctx)
		return
	}
	if s.Abandon() { // gone without a DELETE: no closing step to time
		return
	}
	t0 := time.Now()
	err := s.Close(ctx)
	smp := bench.Sample{Op: sc.closeOp}
	if err != nil {
		smp.Kind, smp.Err = bench.Kind(kindOf(err)), err
	}
	rec.Step(smp, time.Since(t0))
}

// parallel runs a block's steps at once, the first on s and each other on
// a branch of it, and files them when all are done: as tasks of the
// user's loop, else on goroutines.
func (u *scenarioUser) parallel(ctx context.Context, s *mcp.Session, k int, st *stepPlan, rec *bench.Recorder) {
	outs := make([][]outcome, len(st.body))
	branches := make([]func(), 0, len(st.body))
	for i, sub := range st.body {
		sess := s
		if i > 0 {
			b, err := u.branch(s)
			if err != nil { // not expected: Build refuses HTTP+SSE
				outs[i] = []outcome{{smp: bench.Sample{Kind: bench.Kind(mcp.KindTransport), Op: sub.op, Err: err}}}
				continue
			}
			defer b.Close(context.WithoutCancel(ctx))
			sess = b
		}
		branches = append(branches, func() { outs[i] = u.do(ctx, sess, k, sub, u.branchRng[i], nil) })
	}
	if u.loop != nil {
		u.loop.All(branches...)
	} else {
		var wg sync.WaitGroup
		for _, fn := range branches {
			wg.Add(1)
			go func() { defer wg.Done(); fn() }()
		}
		wg.Wait()
	}
	for _, o := range outs {
		u.file(rec, o)
	}
}

// branch is a branch of s, on the user's loop if it has one.
func (u *scenarioUser) branch(s *mcp.Session) (*mcp.Session, error) {
	b, err := s.Branch()
	if err == nil && u.loop != nil && !b.OnLoop(u.loop) {
		return nil, mcp.ErrNotOnLoop
	}
	return b, err
}

func (u *scenarioUser) file(rec *bench.Recorder, outs []outcome) {
	for _, o := range outs {
		rec.Step(o.smp, o.lat)
	}
}

// do sends one request step on s (a list, every page) and appends what
// happened to out.
func (u *scenarioUser) do(ctx context.Context, s *mcp.Session, k int, st *stepPlan, rng *rand.Rand, out []outcome) []outcome {
	p, err := u.request(s, k, st, rng)
	if err != nil {
		kind := bench.Kind(mcp.KindTransport)
		if errors.Is(err, errExpect) {
			kind = KindExpectFailed
		}
		u.forget(st)
		return append(out, outcome{smp: bench.Sample{Kind: kind, Op: st.op, Err: fmt.Errorf("%s: %w", st.name, err)}})
	}
	cursor := ""
	for page := 0; page < maxPages; page++ {
		t0 := time.Now()
		r := s.Do(ctx, p, cursor)
		o := outcome{lat: time.Since(t0), smp: bench.Sample{Kind: bench.Kind(r.Kind), Op: st.op, Sent: r.Sent, Received: r.Received, Err: r.Err, ConnWait: r.ConnWait}}
		u.judge(s, st, r, &o.smp)
		out = append(out, o)
		if r.NextCursor == "" || r.Kind != mcp.OK {
			break
		}
		cursor = r.NextCursor
	}
	return out
}

// maxPages bounds a list step against a server whose cursors never end.
const maxPages = 1000

// judge holds an answer to the step's expect, and keeps its result if a
// later step reads it.
func (u *scenarioUser) judge(s *mcp.Session, st *stepPlan, r mcp.Result, smp *bench.Sample) {
	toolError := r.Kind == mcp.KindToolError
	e := st.expect
	switch {
	case r.Kind != mcp.OK && !toolError:
	case e == nil || (toolError && e.IsError == nil):
	default:
		if err := e.holds(s.LastResult(), toolError); err != nil {
			smp.Kind, smp.Err = KindExpectFailed, fmt.Errorf("%s: %w", st.name, err)
		} else {
			smp.Kind, smp.Err = bench.OK, nil
		}
	}
	if st.keep < 0 {
		return
	}
	if smp.Kind != bench.OK {
		u.forget(st)
		return
	}
	u.kept[st.keep] = append(u.kept[st.keep][:0], s.LastResult()...)
}

// forget drops a failed step's kept result, so no later step reads an
// older one.
func (u *scenarioUser) forget(st *stepPlan) {
	if st.keep >= 0 {
		u.kept[st.keep] = u.kept[st.keep][:0]
	}
}

// request is the framed request a step sends now: framed once for a
// fixed request, anew for one whose arguments change per call.
func (u *scenarioUser) request(s *mcp.Session, k int, st *stepPlan, rng *rand.Rand) (*mcp.Prepared, error) {
	v := st.variant(rng, &u.next[k][st.id])
	if st.dynamic {
		req := st.variants[v]
		args, err := st.arguments(req.Arguments, rng, u.kept)
		if err != nil {
			return nil, err
		}
		req.Arguments = args
		return s.Prepare(req)
	}
	cache := u.prepared[k][st.id]
	if cache == nil {
		cache = make([]*mcp.Prepared, len(st.variants))
		u.prepared[k][st.id] = cache
	}
	if cache[v] == nil {
		p, err := s.Prepare(st.variants[v])
		if err != nil {
			return nil, err
		}
		cache[v] = p
	}
	return cache[v], nil
}

// pickWeighted draws an index by the cumulative weights cum.
func pickWeighted(cum []float64, rng *rand.Rand) int {
	if len(cum) == 1 {
		return 0
	}
	x := rng.Float64() * cum[len(cum)-1]
	for i, c := range cum {
		if x < c {
			return i
		}
	}
	return len(cum) - 1
}
