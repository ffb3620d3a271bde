package bench_test

import (
	"context"
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
func TestAbandonedSessions(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	for _, c := range []struct {
		name     string
		mode     mcp.SessionMode
		fraction float64
		n        int64
	}{
		{"per-request", mcp.SessionPerRequest, 1, 40},
		{"scenario", "", 0.5, 40},
		{"scenario none", "", 0, 20},
	} {
		srv, err := target.Start(ctx, target.Config{})
		if err != nil {
			t.Fatal(err)
		}
		defer srv.Close()
		cl, err := mcp.Dial(ctx, mcp.Options{URL: srv.MCPURL(), SessionMode: c.mode, PoolSize: 2, Timeout: 5 * time.Second, AbandonFraction: c.fraction})
		if err != nil {
			t.Fatal(err)
		}
		var wl bench.Load = &workload.Workload{Client: cl, Ops: []workload.Op{{Request: echo}}}
		if c.mode == "" {
			f, err := workload.ParseScenarios([]byte(`scenarios: [{name: s, steps: [list, {call: {tool: echo, args: {message: hi}}}]}]`), t.TempDir())
			if err != nil {
				t.Fatal(err)
			}
			if wl, err = workload.BuildScenarios(ctx, cl, "", workload.ScenarioSpec{File: f}); err != nil {
				t.Fatal(err)
			}
		}
		before := srv.Health() // the handshake of Dial and a scenario's listing
		p, err := bench.Run(ctx, bench.Config{Concurrency: 2, Total: c.n}, wl)
		if err != nil || p.Errors != 0 {
			t.Fatalf("%s: %v %v", c.name, err, p.ErrorExamples)
		}
		cl.Close(ctx)
		after := srv.Health()
		inits := after.RequestsByMethod["initialize"] - before.RequestsByMethod["initialize"]
		kept := after.SessionsOpen - before.SessionsOpen
		want := int(float64(c.n) * c.fraction)
		if inits != c.n || kept != want || cl.AbandonedSessions() != int64(want) || p.Counters["sessions_abandoned"] != int64(want) {
			t.Errorf("%s: %d sessions: the server saw %d initialize and keeps %d sessions, the client abandoned %d (counted %d), want %d",
				c.name, c.n, inits, kept, cl.AbandonedSessions(), p.Counters["sessions_abandoned"], want)
		}
	}
}
