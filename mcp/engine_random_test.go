//go:build linux

package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"runtime/debug"
	"slices"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/mcpbench/mcpbench/bench"
	"github.com/mcpbench/mcpbench/internal/evloop"
)

// The engine's randomized differential test (issue 46, build point 3).
// Each seed draws a shape of run (users, loops, requests per session) and
// a server whose every answer is framed at random (rndServer); the same
// seed then runs on the event loops, on the direct engine's goroutines
// and on net/http. Every answer a run counted as OK must be the one the
// server sent for that request: its result names the request's nonce,
// which is unique to the request, or to the user for the requests that
// share one on purpose so that a loop's memo predicts their answers. And
// the server's counts must equal the client's, by nonce and by method.
//
// Environment: MCPBENCH_ENGINE_SEED=N runs seed N alone; the soak
// (make soak-engine) sets MCPBENCH_ENGINE_REQUESTS, the requests to check
// in all, from seed MCPBENCH_ENGINE_SEED_FROM (1) on, and
// MCPBENCH_ENGINE_PER_SEED requests per engine and seed, and
// MCPBENCH_ENGINE_PAR seeds at once (default 1: the seeds wait on the
// server's pauses much of the time, so the soak runs more).
// MCPBENCH_ENGINE_ONLY=loops (goroutines, net/http) runs one engine.

// rndEngine is one way of running a seed's requests.
type rndEngine struct {
	name   string
	engine Engine
	loops  bool
}

var rndEngines = []rndEngine{
	{"loops", EngineDirect, true},
	{"goroutines", EngineDirect, false},
	{"net/http", EngineNetHTTP, false},
}

// rndPlan is the seeds to run and the requests per engine and seed.
type rndPlan struct {
	from, seeds uint64
	perSeed     int
	par         int    // seeds run at once
	total       int    // the soak's goal, 0 outside it
	only        string // one engine's name, "" for all
	engines     int
}

func randomPlan(t *testing.T) rndPlan {
	env := func(name string, def int) int {
		v := os.Getenv(name)
		if v == "" {
			return def
		}
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 {
			t.Fatalf("%s=%q: want a number", name, v)
		}
		return n
	}
	p := rndPlan{from: 1, seeds: 4, perSeed: env("MCPBENCH_ENGINE_PER_SEED", 300), par: max(1, env("MCPBENCH_ENGINE_PAR", 1))}
	p.only, p.engines = os.Getenv("MCPBENCH_ENGINE_ONLY"), len(rndEngines)
	if p.only != "" {
		p.engines = 1
		if !slices.ContainsFunc(rndEngines, func(e rndEngine) bool { return e.name == p.only }) {
			t.Fatalf("MCPBENCH_ENGINE_ONLY=%q: want loops, goroutines or net/http", p.only)
		}
	}
	if total := env("MCPBENCH_ENGINE_REQUESTS", 0); total > 0 {
		p.perSeed = env("MCPBENCH_ENGINE_PER_SEED", 5000)
		p.total = total
		p.from = uint64(env("MCPBENCH_ENGINE_SEED_FROM", 1))
		per := p.perSeed * p.engines
		p.seeds = uint64((total + per - 1) / per)
	}
	if seed := os.Getenv("MCPBENCH_ENGINE_SEED"); seed != "" {
		p.from, p.seeds = uint64(env("MCPBENCH_ENGINE_SEED", 0)), 1
	}
	return p
}

// TestEngineRandom runs the plan's seeds on every engine, par seeds at
// once. Counts, not timings, decide: a starved machine only makes it
// slower.
func TestEngineRandom(t *testing.T) {
	p := randomPlan(t)
	start := time.Now()
	var mu sync.Mutex
	checked, failures, done := 0, 0, 0
	run := func(seed uint64) {
		n, fails := p.runSeed(t, seed)
		mu.Lock()
		defer mu.Unlock()
		checked, failures, done = checked+n, failures+fails, done+1
		if p.total > 0 && done%20 == 0 {
			t.Logf("soak: %d requests checked in %d seeds, %d failures, %.0f/s", checked, done, failures, float64(checked)/time.Since(start).Seconds())
		}
	}
	if p.par == 1 { // on the test's goroutine, where a set-up failure may end it
		for seed := p.from; seed < p.from+p.seeds; seed++ {
			run(seed)
		}
	} else {
		seeds := make(chan uint64)
		var wg sync.WaitGroup
		for range p.par {
			wg.Go(func() {
				for seed := range seeds {
					run(seed)
				}
			})
		}
		for seed := p.from; seed < p.from+p.seeds; seed++ {
			seeds <- seed
		}
		close(seeds)
		wg.Wait()
	}
	took := time.Since(start)
	t.Logf("engine random: %d requests checked, seeds %d..%d on %d engines (%d per engine and seed, %d seeds at once), %d failures, %v (%.0f/s)",
		checked, p.from, p.from+p.seeds-1, p.engines, p.perSeed, p.par, failures, took.Round(time.Millisecond), float64(checked)/took.Seconds())
	if planned := int(p.seeds) * p.engines * p.perSeed; checked < planned {
		t.Errorf("checked %d requests, planned %d", checked, planned)
	}
}

// runSeed runs one seed on the plan's engines and reports what
// disagreed, each with the command that reruns it.
func (p rndPlan) runSeed(t *testing.T, seed uint64) (checked, failures int) {
	for _, e := range rndEngines {
		if p.only != "" && e.name != p.only {
			continue
		}
		n, fails := runRandomSeed(t, seed, e, p.perSeed)
		checked += n
		failures += len(fails)
		for _, f := range fails {
			t.Errorf("seed %d on %s: %s\n\trerun: MCPBENCH_ENGINE_SEED=%d MCPBENCH_ENGINE_PER_SEED=%d MCPBENCH_ENGINE_ONLY=%s go test -count=1 -run 'TestEngineRandom$' ./mcp/",
				seed, e.name, f, seed, p.perSeed, e.name)
		}
	}
	return checked, failures
}

// rndShape is what a seed draws before any request: the run's shape.
type rndShape struct {
	users, loops, life int
	shared             int     // one request in shared uses the user's nonce
	listen             bool    // sessions open a GET stream
	perRequest         bool    // a session per request (off the loops, which take none)
	abandon            float64 // the fraction of sessions left without a DELETE
}

func drawShape(seed uint64) rndShape {
	rng := rand.New(rand.NewPCG(seed, 0))
	sh := rndShape{users: 1 + rng.IntN(8), loops: 1 + rng.IntN(2), life: 1 + rng.IntN(40), shared: 2 + rng.IntN(3),
		listen: rng.IntN(3) == 0, perRequest: rng.IntN(4) == 0}
	if !sh.perRequest && rng.IntN(3) == 0 {
		sh.abandon = 0.3
	}
	return sh
}

// options is the client's for shape on e.
func (sh rndShape) options(url string, e rndEngine) Options {
	o := Options{URL: url, ProtocolVersion: Rev20250618, Engine: e.engine, PoolSize: sh.users + 1,
		Timeout: 3 * time.Minute, Listen: sh.listen}
	if sh.perRequest && !e.loops {
		o.SessionMode = SessionPerRequest
	}
	return o
}

// rndTally is what a run's client saw.
type rndTally struct {
	mu       sync.Mutex
	ok       map[string]int // answers counted OK, by method
	nonces   map[string]int // and by rndKey
	opened   int            // sessions opened and closed
	closed   int
	checked  int
	failures []string
}

func (y *rndTally) fail(format string, args ...any) {
	y.mu.Lock()
	defer y.mu.Unlock()
	if len(y.failures) < 20 {
		y.failures = append(y.failures, fmt.Sprintf(format, args...))
	}
}

// runRandomSeed runs n requests of seed on e and returns how many it
// checked and what disagreed.
func runRandomSeed(t *testing.T, seed uint64, e rndEngine, n int) (int, []string) {
	shape := drawShape(seed)
	srv := startRndServer(t, seed)
	defer srv.stop()
	ctx := context.Background()
	o := shape.options(srv.url, e)
	c, err := DialWith(ctx, o, Hooks{Abandon: bench.NewShare(shape.abandon).Picker()})
	if err != nil {
		srv.stop()
		return 0, []string{fmt.Sprintf("dial (%+v): %v; server: %v", shape, err, srv.faults)}
	}
	y := &rndTally{ok: map[string]int{}, nonces: map[string]int{}}
	users := make([]*rndUser, shape.users)
	for i := range users {
		users[i] = &rndUser{seed: seed, n: i, quota: n / shape.users, shape: shape, y: y, perRequest: o.SessionMode == SessionPerRequest,
			rng: rand.New(rand.NewPCG(seed, uint64(i)+1))}
	}
	users[0].quota += n % shape.users
	if e.loops {
		runOnLoops(t, ctx, c, users, shape.loops)
	} else {
		var wg sync.WaitGroup
		for _, u := range users {
			wg.Go(func() { u.run(ctx, c.NewSession) })
		}
		wg.Wait()
	}
	c.Close(ctx)
	srv.stop()
	compareRandom(srv, y, shape, o.Listen && o.SessionMode != SessionPerRequest)
	return y.checked, y.failures
}

func runOnLoops(t *testing.T, ctx context.Context, c *Client, users []*rndUser, loops int) {
	g, err := evloop.NewGroup(loops, nil)
	if err != nil {
		t.Error(err) // not Fatal: the soak runs seeds off the test's goroutine
		return
	}
	defer g.Close()
	for i, u := range users {
		l := g.Loop(i)
		g.Go(ctx, i, func(lctx context.Context) {
			// A panic in a loop task reaches the loop through iter.Pull,
			// which loses its stack: it is told here, with the seed.
			defer func() {
				if r := recover(); r != nil {
					u.y.fail("user %d: panic on the loop: %v\n%s", u.n, r, debug.Stack())
				}
			}()
			u.run(lctx, func(ctx context.Context) (*Session, error) { return c.NewSessionOn(ctx, l) })
		})
	}
	g.Run()
}

// rndUser is one worker: sessions of up to shape.life requests each,
// until it has sent its quota.
type rndUser struct {
	seed         uint64
	n, quota     int
	sent, shared int
	perRequest   bool // each request opens and ends a session of its own
	shape        rndShape
	y            *rndTally
	rng          *rand.Rand
}

func (u *rndUser) run(ctx context.Context, open func(context.Context) (*Session, error)) {
	for u.sent < u.quota {
		s, err := open(ctx)
		if err != nil {
			u.y.fail("user %d: opening a session after %d requests: %v", u.n, u.sent, err)
			return
		}
		u.y.handshakes(!u.perRequest, false)
		for k := 0; k < u.shape.life && u.sent < u.quota; k++ {
			u.one(ctx, s)
		}
		if err := s.Close(ctx); err != nil {
			u.y.fail("user %d: closing session %s: %v", u.n, s.ID(), err)
		}
		u.y.handshakes(false, !u.perRequest && !s.Abandon())
	}
}

// handshakes counts a session opened (an initialize) and one ended (a
// DELETE).
func (y *rndTally) handshakes(opened, ended bool) {
	y.mu.Lock()
	defer y.mu.Unlock()
	if opened {
		y.opened++
	}
	if ended {
		y.closed++
	}
}

// one sends a request and checks its reply against the result the
// server gives that request.
func (u *rndUser) one(ctx context.Context, s *Session) {
	u.sent++
	nonce := fmt.Sprintf("s%d-u%d-r%d", u.seed, u.n, u.sent)
	if u.rng.IntN(u.shape.shared) == 0 {
		nonce = fmt.Sprintf("s%d-u%d", u.seed, u.n) // the user's own: answers alike but for the id
	}
	req := Request{Method: "tools/list", Params: json.RawMessage(`{"nonce":` + strconv.Quote(nonce) + `}`)}
	if u.rng.IntN(5) < 3 {
		req = Request{Method: "tools/call", Tool: "echo", Arguments: json.RawMessage(`{"echo":` + strconv.Quote(nonce) + `}`)}
	}
	p, err := s.Prepare(req)
	if err != nil {
		u.y.fail("prepare: %v", err)
		return
	}
	r := s.Do(ctx, p, "")
	what := fmt.Sprintf("user %d, request %d in session %s (%s, nonce %s)", u.n, u.sent, s.ID(), req.Method, nonce)
	if r.Kind != OK {
		u.y.fail("%s: counted %s: %v", what, r.Kind, r.Err)
		return
	}
	want, _ := rndResult(req.Method, nonce)
	if got := s.LastResult(); !sameJSON(got, want) {
		u.y.fail("%s: counted OK with result %s, the server sent %s", what, got, want)
		return
	}
	if wantS := `{"echo":` + strconv.Quote(nonce) + `}`; req.Method == "tools/call" && !sameJSON(r.Structured, wantS) {
		u.y.fail("%s: structured content %s, the server sent %s", what, r.Structured, wantS)
		return
	}
	u.y.handshakes(u.perRequest, u.perRequest)
	u.y.mu.Lock()
	u.y.ok[req.Method]++
	u.y.nonces[rndKey(req.Method, nonce)]++
	u.y.checked++
	u.y.mu.Unlock()
}

// sameJSON says whether got is want but for white space (an SSE answer
// split over data lines has a line end the reader put between them).
func sameJSON(got []byte, want string) bool {
	var b bytes.Buffer
	return json.Compact(&b, got) == nil && b.String() == want
}

// compareRandom adds to y's failures where the server's counts differ
// from the client's.
func compareRandom(srv *rndServer, y *rndTally, shape rndShape, listen bool) {
	srv.mu.Lock()
	defer srv.mu.Unlock()
	for _, f := range srv.faults {
		y.fail("the server saw %s", f)
	}
	diffs := 0
	for key, n := range srv.answered {
		if y.nonces[key] != n && diffs < 10 {
			diffs++
			y.fail("%s: the server answered %d times, the client counted %d OK (%+v)", key, n, y.nonces[key], shape)
		}
	}
	for key, n := range y.nonces {
		if _, ok := srv.answered[key]; !ok && diffs < 10 {
			diffs++
			y.fail("%s: the client counted %d OK that the server never answered", key, n)
		}
	}
	// Dial's negotiation opens and ends a session of its own.
	want := map[string]int{"tools/list": y.ok["tools/list"], "tools/call": y.ok["tools/call"],
		"initialize": y.opened + 1, "notifications/initialized": y.opened + 1, "DELETE": y.closed + 1}
	// A GET stream the server ends is asked for again: at least one a
	// session when sessions listen, none when they do not (a session per
	// request never does).
	if n := srv.counts["GET"]; listen && n < y.opened || !listen && n > 0 {
		y.fail("GET: the server answered %d for %d sessions (%+v)", n, y.opened, shape)
	}
	delete(srv.counts, "GET")
	for method, n := range srv.counts {
		if want[method] != n {
			y.fail("%s: the server answered %d, the client's count says %d (%+v)", method, n, want[method], shape)
		}
	}
	for method, n := range want {
		if _, ok := srv.counts[method]; !ok && n > 0 {
			y.fail("%s: the server answered none, the client's count says %d", method, n)
		}
	}
}
