package bench_test

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcpbench/mcpbench/bench"
	"github.com/mcpbench/mcpbench/mcp"
	"github.com/mcpbench/mcpbench/target"
	"github.com/mcpbench/mcpbench/workload"
)

// TestAbandonedSessions: --abandon-sessions as the server sees it. Every
// session opens with initialize; the abandoned ones send no DELETE, so the
// server's own session list keeps exactly them: all of them with
// per-request sessions and a fraction of 1, half of a scenario's with 0.5.
// Each abandoned session drops a kept-alive connection, as a client that
// goes away does: the server sees exactly that many of the connections
// of the engine's closed during the run, and none when no session is
// abandoned; on the direct engine and on net/http (plain, and under TLS).
func TestAbandonedSessions(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	for _, c := range []struct {
		name     string
		mode     mcp.SessionMode
		fraction float64
		n        int64
		engine   mcp.Engine
		tls      bool
	}{
		{"per-request", mcp.SessionPerRequest, 1, 40, "", false},
		{"scenario", "", 0.5, 40, "", false},
		{"scenario none", "", 0, 20, "", false},
		{"net/http per-request", mcp.SessionPerRequest, 1, 40, mcp.EngineNetHTTP, false},
		{"net/http scenario", "", 0.5, 40, mcp.EngineNetHTTP, false},
		{"net/http TLS scenario", "", 0.5, 40, mcp.EngineNetHTTP, true},
		{"net/http scenario none", "", 0, 20, mcp.EngineNetHTTP, false},
	} {
		srv, err := target.New(target.Config{JSONResponse: true}) // SSE answers end in streams the engine may close itself
		if err != nil {
			t.Fatal(err)
		}
		defer srv.Close()
		url, dropped := engineConnCloses(t, srv.Handler(), c.engine == mcp.EngineNetHTTP, c.tls)
		cl, err := mcp.DialWith(ctx, mcp.Options{URL: url, SessionMode: c.mode, PoolSize: 2, Timeout: 5 * time.Second,
			Engine: c.engine, Insecure: c.tls}, mcp.Hooks{Abandon: bench.NewShare(c.fraction).Picker()})
		if err != nil {
			t.Fatal(err)
		}
		var wl bench.Work = &workload.Workload{Client: cl, Ops: []workload.Op{{Request: echo}}}
		if c.mode == "" {
			f, err := workload.ParseScenarios([]byte(`scenarios: [{name: s, steps: [list, {call: {tool: echo, args: {message: hi}}}]}]`), t.TempDir())
			if err != nil {
				t.Fatal(err)
			}
			if wl, err = workload.BuildScenarios(ctx, cl, "", workload.ScenarioSpec{File: f}); err != nil {
				t.Fatal(err)
			}
		}
		before, droppedBefore := srv.Health(), dropped.Load() // the handshake of Dial and a scenario's listing
		p, err := bench.Run(ctx, bench.Config{Model: bench.ClosedLoop{Concurrency: 2}, Total: c.n}, wl)
		if err != nil || p.Errors != 0 {
			t.Fatalf("%s: %v %v", c.name, err, p.ErrorExamples)
		}
		want := int(float64(c.n) * c.fraction)
		// The server notices a closed connection when its read ends.
		for deadline := time.Now().Add(2 * time.Second); dropped.Load()-droppedBefore < int64(want) && time.Now().Before(deadline); {
			time.Sleep(10 * time.Millisecond)
		}
		time.Sleep(50 * time.Millisecond) // and no more than that come
		if n := dropped.Load() - droppedBefore; n != int64(want) {
			t.Errorf("%s: the server saw %d connections of the engine's closed during the run, want one per abandoned session, %d", c.name, n, want)
		}
		cl.Close(ctx)
		after := srv.Health()
		inits := after.RequestsByMethod["initialize"] - before.RequestsByMethod["initialize"]
		kept := after.SessionsOpen - before.SessionsOpen
		if inits != c.n || kept != want || cl.AbandonedSessions() != int64(want) || p.Counters["sessions_abandoned"] != int64(want) {
			t.Errorf("%s: %d sessions: the server saw %d initialize and keeps %d sessions, the client abandoned %d (counted %d), want %d",
				c.name, c.n, inits, kept, cl.AbandonedSessions(), p.Counters["sessions_abandoned"], want)
		}
	}
}

// engineConnCloses serves h on loopback (under TLS if asked) and counts
// the connections closed that the engine dialled: all of them with
// netHTTP, else the direct engine's, which send no User-Agent (net/http,
// which carries the direct engine's notifications and DELETEs and closes
// its spare connections as it sees fit, sends its own).
func engineConnCloses(t *testing.T, h http.Handler, netHTTP, tls bool) (string, *atomic.Int64) {
	var engine sync.Map // net.Conn -> it is the engine's
	var closed atomic.Int64
	type connKey struct{}
	ts := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if netHTTP || r.Header.Get("User-Agent") == "" {
			engine.Store(r.Context().Value(connKey{}), true)
		}
		h.ServeHTTP(w, r)
	}))
	ts.Config.ConnContext = func(ctx context.Context, c net.Conn) context.Context {
		return context.WithValue(ctx, connKey{}, c)
	}
	ts.Config.ConnState = func(c net.Conn, st http.ConnState) {
		if st != http.StateClosed {
			return
		}
		if _, ok := engine.LoadAndDelete(c); ok {
			closed.Add(1)
		}
	}
	if tls {
		ts.StartTLS()
	} else {
		ts.Start()
	}
	t.Cleanup(ts.Close)
	return ts.URL + "/mcp", &closed
}
