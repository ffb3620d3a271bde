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

// What production servers ask of a client, against the bundled server's
// client tools: requests from the server during a call, 2026-07-28
// headers and multi round-trip calls, OAuth.

// clientToolsServer starts the bundled server with the client tools and a
// fixed service time.
func clientToolsServer(t *testing.T, service time.Duration) *target.Running {
	t.Helper()
	srv, err := target.Start(context.Background(), target.Config{ClientTools: true, ServiceTime: service})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	return srv
}

// runTool runs n calls of tool at concurrency 4 with a generous timeout
// and returns the point and the client's counters over the run.
func runTool(t *testing.T, o mcp.Options, tool string, args string, n int64) (bench.Point, map[string]int64) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	o.PoolSize, o.Timeout = 4, 10*time.Second
	client, err := mcp.Dial(ctx, o)
	if err != nil {
		t.Fatalf("dial: %v", err)
	}
	defer client.Close(ctx)
	wl := &workload.Workload{Client: client, Ops: []workload.Op{{Request: mcp.Request{Method: "tools/call", Tool: tool, Arguments: []byte(args)}}}}
	p, err := bench.Run(ctx, bench.Config{Concurrency: 4, Total: n}, wl)
	if err != nil {
		t.Fatalf("run: %v", err)
	}
	return p, client.Counters()
}

// TestElicitingToolAnswered: every call of a tool that elicits is
// answered by the policy and completes within a few milliseconds of the
// server's own service time, whichever engine and revision carries it: no
// call waits for the timeout.
func TestElicitingToolAnswered(t *testing.T) {
	const service = 20 * time.Millisecond
	srv := clientToolsServer(t, service)
	for _, c := range []struct {
		rev    string
		engine mcp.Engine
		rounds int // service times a call spends on the server
	}{
		{mcp.Rev20251125, mcp.EngineDirect, 1},
		{mcp.Rev20251125, mcp.EngineNetHTTP, 1},
	} {
		t.Run(c.rev+"/"+string(c.engine), func(t *testing.T) {
			p, counts := runTool(t, mcp.Options{URL: srv.MCPURL(), ProtocolVersion: c.rev, Engine: c.engine}, target.ToolElicit, `{}`, 100)
			if p.Requests != 100 || p.OK != 100 {
				t.Fatalf("requests %d ok %d, errors %v (%v)", p.Requests, p.OK, p.ErrorsByKind, p.ErrorExamples)
			}
			if n := counts["client_requests/elicitation/create"]; n != 100 {
				t.Fatalf("%d elicitations counted for 100 calls: %v", n, counts)
			}
			// The median is the service time and a few ms of client and
			// loopback work; no call comes near the 10 s timeout (the
			// ceiling leaves room for a shared machine's scheduling).
			t.Logf("p50 %.1f ms, p99 %.1f, max %.1f ms for a %v service time", p.P50MS, p.P99MS, p.MaxMS, service)
			want := time.Duration(c.rounds) * service
			if got := ms(p.P50MS); got > want+10*time.Millisecond {
				t.Fatalf("median call %v, more than a few ms over %v", got, want)
			}
			if got := ms(p.MaxMS); got > want+time.Second {
				t.Fatalf("slowest call %v: it waited for something other than the server", got)
			}
		})
	}
}

func ms(v float64) time.Duration { return time.Duration(v * float64(time.Millisecond)) }
