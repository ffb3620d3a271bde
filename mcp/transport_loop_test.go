//go:build linux

package mcp

import (
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcpbench/mcpbench/internal/evloop"
	"github.com/mcpbench/mcpbench/internal/h1"
)

// onLoop runs fn as the one task of a one-loop group, with s on the
// loop, and waits for it; s is back on the client's pool after.
func onLoop(t testing.TB, s *Session, fn func(ctx context.Context)) {
	t.Helper()
	g, err := evloop.NewGroup(1, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	if !s.OnLoop(g.Loop(0)) {
		t.Fatal("a plain-HTTP session on the direct engine should go on a loop")
	}
	defer s.OnLoop(nil)
	g.Go(context.Background(), 0, fn)
	g.Run()
}

// Requests of a session on a loop go out on the loop's connection: the
// session's own, adopted (no second dial), and keep the hot path's
// promise of no allocation per request.
func TestLoopRequestsAdoptTheSessionsConnection(t *testing.T) {
	ctx := context.Background()
	c, s, p := rawSession(t, rawServer(t), EngineAuto)
	if r := s.Do(ctx, p, ""); r.Kind != OK {
		t.Fatal(r.Err)
	}
	dials := c.Dials()
	var allocs float64
	onLoop(t, s, func(lctx context.Context) {
		if r := s.Do(lctx, p, ""); r.Kind != OK {
			t.Error(r.Err)
			return
		}
		tr := s.t.(*directTransport)
		if lp, ok := tr.pool.(*h1.LoopPool); !ok || lp.Loop() == nil {
			t.Error("the request did not use the loop's pool")
		}
		// Not testing.AllocsPerRun: it sets GOMAXPROCS to 1, which would
		// leave the in-process server no P beside the loop's.
		const n = 2000
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		for range n {
			if r := s.Do(lctx, p, ""); r.Kind != OK {
				t.Error(r.Err)
				return
			}
		}
		runtime.ReadMemStats(&after)
		allocs = float64(after.Mallocs-before.Mallocs) / n
	})
	if allocs > 0.05 {
		t.Errorf("%.2f allocations per request on a loop", allocs)
	}
	if got := c.Dials(); got != dials {
		t.Errorf("%d dials after the loop's requests, want %d: the idle connection should be adopted", got, dials)
	}
	// Back off the loop, the client's own pool serves again.
	if r := s.Do(ctx, p, ""); r.Kind != OK {
		t.Fatal(r.Err)
	}
}

// A time-out on a loop is a time-out, within the loop's deadline scan.
func TestLoopRequestTimesOut(t *testing.T) {
	url, answering := gatedServer(t)
	ctx := context.Background()
	c, err := Dial(ctx, Options{URL: url, Timeout: 100 * time.Millisecond, ProtocolVersion: "2026-07-28"})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close(ctx)
	s, _ := c.NewSession(ctx)
	p, _ := s.Prepare(Request{Method: "tools/list"})
	answering.Store(false)
	var r Result
	var took time.Duration
	onLoop(t, s, func(lctx context.Context) {
		start := time.Now()
		r = s.Do(lctx, p, "")
		took = time.Since(start)
	})
	if r.Kind != KindTimeout {
		t.Fatalf("kind %s (%v), want a time-out", r.Kind, r.Err)
	}
	if took > 2*time.Second {
		t.Errorf("the time-out took %v, want about 100ms", took)
	}
}

// gatedServer is rawServer behind a relay whose answers stop while
// answering is false.
func gatedServer(t *testing.T) (string, *atomic.Bool) {
	back := strings.TrimSuffix(strings.TrimPrefix(rawServer(t), "http://"), "/mcp")
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	var answering atomic.Bool
	answering.Store(true)
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			s, err := net.Dial("tcp", back)
			if err != nil {
				c.Close()
				return
			}
			go func() { _, _ = io.Copy(s, c); s.Close() }()
			go func() {
				defer c.Close()
				buf := make([]byte, 16<<10)
				for {
					n, err := s.Read(buf)
					if err != nil {
						return
					}
					if answering.Load() {
						_, _ = c.Write(buf[:n])
					}
				}
			}()
		}
	}()
	return "http://" + l.Addr().String() + "/mcp", &answering
}

// BenchmarkClientOnlyLoop is BenchmarkClientOnly's direct engine with
// the session on an event loop, as the loops driver runs it.
func BenchmarkClientOnlyLoop(b *testing.B) {
	_, s, p := rawSession(b, rawServer(b), EngineAuto)
	b.ReportAllocs()
	b.ResetTimer()
	onLoop(b, s, func(lctx context.Context) {
		for range b.N {
			if r := s.Do(lctx, p, ""); r.Kind != OK {
				b.Error(r.Err)
				return
			}
		}
	})
}

// Workers spread over loops reuse their loop's idle connections: however
// many rounds they make, the client holds no more connections than it
// has workers. (A loop's pool is sized for all of the client's workers;
// taking its free slots first in first out dialled one connection per
// slot on every loop, twice the file descriptors with two loops.)
func TestLoopPoolsDialNoMoreThanTheWorkers(t *testing.T) {
	const workers = 8
	c, _ := sessionsOnLoops(t, workers, 2, 50)
	if d := c.Dials(); d > workers {
		t.Errorf("%d dials for %d workers", d, workers)
	}
}

// The sessions of a loop parse with the loop's memo, not their own: one
// copy of the answer for all of them. Their answers, the same but for the
// id, were compared with it as they were read (wire_match.go), and their
// replies point into it.
func TestLoopSessionsShareOneParseMemo(t *testing.T) {
	_, sessions := sessionsOnLoops(t, 4, 1, 20)
	loopMemo := sessions[0].t.(*directTransport).memo
	if loopMemo == nil || len(loopMemo.text()) == 0 {
		t.Fatal("the loop's memo holds no answer")
	}
	for i, s := range sessions {
		if n := len(s.rep.memo.text()); n > 0 {
			t.Errorf("session %d kept an answer of its own (%d bytes)", i, n)
		}
		if s.rep.shared != loopMemo {
			t.Errorf("session %d does not parse with its loop's memo", i)
		}
		if lent := s.t.(*directTransport).lent; lent != loopMemo.last {
			t.Errorf("session %d's last answer was not matched with the memo's", i)
		}
	}
	if n := loopMemo.last.lent; n != len(sessions) {
		t.Errorf("the memo's text is lent to %d replies, want %d", n, len(sessions))
	}
}

// sessionsOnLoops runs workers sessions of one client, spread over loops
// event loops, each making rounds tools/list requests (all of which must
// succeed), and returns the client and its sessions.
func sessionsOnLoops(t *testing.T, workers, loops, rounds int) (*Client, []*Session) {
	t.Helper()
	url := rawServer(t)
	ctx := context.Background()
	c, err := Dial(ctx, Options{URL: url, Timeout: 5 * time.Second, PoolSize: workers})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close(ctx) })
	sessions := make([]*Session, workers)
	for i := range sessions {
		if sessions[i], err = c.NewSession(ctx); err != nil {
			t.Fatal(err)
		}
	}
	g, err := evloop.NewGroup(loops, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	var failed atomic.Int64
	for i, s := range sessions {
		if !s.OnLoop(g.Loop(i)) {
			t.Fatal("a session would not go on a loop")
		}
		g.Go(ctx, i%loops, func(lctx context.Context) {
			p, _ := s.Prepare(Request{Method: "tools/list"})
			for range rounds {
				if r := s.Do(lctx, p, ""); r.Kind != OK {
					failed.Add(1)
					return
				}
				g.Loop(i).SleepUntil(lctx, time.Now().Add(100*time.Microsecond)) // let the others in
			}
		})
	}
	g.Run()
	if n := failed.Load(); n > 0 {
		t.Fatalf("%d workers failed", n)
	}
	return c, sessions
}

// A task finding its loop's pool without a free slot is told so at once:
// waiting would stop the loop, and with it the request that holds the
// slot, until the time-out. (The pool is sized for all the client's
// workers, so only a pool made too small gets here.) The server takes
// its time, so the first request is surely waiting when the second asks.
func TestLoopPoolWithoutAFreeSlotDoesNotStopTheLoop(t *testing.T) {
	ctx := context.Background()
	const timeout = 20 * time.Second
	url := modernServer(t, func(method string, _ json.RawMessage, _ *http.Request) json.RawMessage {
		if method == "tools/list" {
			time.Sleep(300 * time.Millisecond)
		}
		return json.RawMessage(`{"tools":[]}`)
	})
	c, err := Dial(ctx, Options{URL: url, Timeout: timeout, PoolSize: 1})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close(ctx) })
	var sessions [2]*Session
	for i := range sessions {
		if sessions[i], err = c.NewSession(ctx); err != nil {
			t.Fatal(err)
		}
	}
	g, err := evloop.NewGroup(1, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	var results [2]Result
	for i, s := range sessions {
		s.OnLoop(g.Loop(0))
		g.Go(ctx, 0, func(lctx context.Context) {
			p, _ := s.Prepare(Request{Method: "tools/list"})
			results[i] = s.Do(lctx, p, "")
		})
	}
	start := time.Now()
	g.Run()
	if took := time.Since(start); took > timeout/2 {
		t.Errorf("the two requests took %v: the second waited for a slot on the loop", took)
	}
	if results[0].Kind != OK {
		t.Errorf("first request: %v %v", results[0].Kind, results[0].Err)
	}
	if results[1].Kind == OK || results[1].Err == nil || !strings.Contains(results[1].Err.Error(), h1.ErrNoFreeConn.Error()) {
		t.Errorf("second request: %v %v, want the pool's %q", results[1].Kind, results[1].Err, h1.ErrNoFreeConn)
	}
}

// loopSession is a session of a client dialled with o (a 5 s time-out if
// o has none) on a group of one event loop to run its requests on; all
// are closed when t ends.
func loopSession(t testing.TB, o Options) (*Client, *Session, *evloop.Group) {
	t.Helper()
	c, s := openSession(t, o)
	g, err := evloop.NewGroup(1, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(g.Close)
	if !s.OnLoop(g.Loop(0)) {
		t.Fatal("the session would not go on the loop")
	}
	return c, s, g
}
