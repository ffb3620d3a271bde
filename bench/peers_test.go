package bench_test

import (
	"context"
	"net/http/httptest"
	"testing"
	"time"

	m3mcp "github.com/mark3labs/mcp-go/mcp"
	m3server "github.com/mark3labs/mcp-go/server"

	"github.com/mcpbench/mcpbench/bench"
	"github.com/mcpbench/mcpbench/mcp"
	"github.com/mcpbench/mcpbench/measure"
	"github.com/mcpbench/mcpbench/target"
	"github.com/mcpbench/mcpbench/workload"
)

// runExact runs n requests of op against url at concurrency c and checks
// that every one was answered and counted.
func runExact(t *testing.T, url, rev string, op mcp.Request, c int, n int64) measure.Point {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	client, err := mcp.Dial(ctx, mcp.Options{URL: url, ProtocolVersion: rev, PoolSize: c, Timeout: 10 * time.Second})
	if err != nil {
		t.Fatalf("dial: %v", err)
	}
	defer client.Close(ctx)
	if rev != "" && client.ProtocolVersion() != rev {
		t.Fatalf("negotiated %s, want %s", client.ProtocolVersion(), rev)
	}
	wl := &workload.Workload{Client: client, Ops: []workload.Op{{Request: op}}}
	var dialsAtStart int64
	cfg := bench.Config{Model: bench.ClosedLoop{Concurrency: c}, Total: n, Warmup: 5, Observer: onMeasuring(func() { dialsAtStart = client.Dials() })}
	p, err := bench.Run(ctx, cfg, wl)
	if err != nil {
		t.Fatalf("run: %v", err)
	}
	if p.Requests != n || p.OK != n || p.Errors != 0 {
		t.Fatalf("%s: requests %d ok %d errors %v (%v), want %d each", op.Method, p.Requests, p.OK, p.ErrorsByKind, p.ErrorExamples, n)
	}
	// The pool is sized from the concurrency: no measured request may wait
	// for a connection. (A connection the server closes is replaced by a
	// dial that fits in the pool, so dials are logged, not judged.)
	if p.Client.PoolWaits != 0 {
		t.Errorf("%d requests waited for a connection with %d workers and a pool of %d", p.Client.PoolWaits, c, client.PoolSize())
	}
	if opened := client.Dials() - dialsAtStart; opened != 0 {
		t.Logf("%d connections opened while measuring", opened)
	}
	return p
}

var echo = mcp.Request{Method: "tools/call", Tool: "echo", Arguments: []byte(`{"message":"hello"}`)}
var list = mcp.Request{Method: "tools/list"}

func TestBundledServerEveryModeAndRevision(t *testing.T) {
	modes := []struct {
		name string
		cfg  target.Config
		revs []string
	}{
		{"stateful-sse", target.Config{Tools: 6}, []string{"", mcp.Rev20251125, mcp.Rev20250618, mcp.Rev20250326}},
		{"json-response", target.Config{Tools: 6, JSONResponse: true}, []string{"", mcp.Rev20251125, mcp.Rev20250618, mcp.Rev20250326}},
		{"stateless", target.Config{Tools: 6, Stateless: true}, []string{"", mcp.Rev20260728, mcp.Rev20251125, mcp.Rev20250618, mcp.Rev20250326}},
	}
	for _, m := range modes {
		srv, err := target.Start(context.Background(), m.cfg)
		if err != nil {
			t.Fatal(err)
		}
		for _, rev := range m.revs {
			name := rev
			if name == "" {
				name = "auto"
			}
			t.Run(m.name+"/"+name, func(t *testing.T) {
				runExact(t, srv.MCPURL(), rev, list, 4, 200)
				runExact(t, srv.MCPURL(), rev, echo, 4, 200)
			})
		}
		srv.Close()
	}
}

func TestMark3labsPeer(t *testing.T) {
	s := m3server.NewMCPServer("mark3labs-peer", "0.1.0", m3server.WithToolCapabilities(false))
	s.AddTool(m3mcp.NewTool("echo", m3mcp.WithString("message", m3mcp.Required())),
		func(ctx context.Context, req m3mcp.CallToolRequest) (*m3mcp.CallToolResult, error) {
			return m3mcp.NewToolResultText(req.GetString("message", "")), nil
		})
	for _, stateless := range []bool{false, true} {
		h := m3server.NewStreamableHTTPServer(s, m3server.WithStateLess(stateless))
		ts := httptest.NewServer(h)
		name := "stateful"
		if stateless {
			name = "stateless"
		}
		t.Run(name, func(t *testing.T) {
			runExact(t, ts.URL+"/mcp", "", list, 4, 200)
			runExact(t, ts.URL+"/mcp", "", echo, 4, 200)
		})
		ts.Close()
	}
}

// TestLittlesLaw checks the generator neither idles between requests nor
// counts time it should not: with 10 workers, rps × mean latency = 10.
func TestLittlesLaw(t *testing.T) {
	srv, err := target.Start(context.Background(), target.Config{Capacity: 1000, ServiceTime: 20 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	p := runExact(t, srv.MCPURL(), "", list, 10, 500)
	inFlight := p.RPS * p.MeanMS / 1000
	t.Logf("p50 %.2f ms, mean %.2f ms, rps %.1f, rps×mean %.3f", p.P50MS, p.MeanMS, p.RPS, inFlight)
	if inFlight < 9.7 || inFlight > 10.3 {
		t.Errorf("rps × mean = %.3f, want 10 ± 3%%", inFlight)
	}
	if p.P50MS < 20 || p.P50MS > 22+raceSlackMS {
		t.Errorf("p50 %.2f ms, want 20–%.0f ms", p.P50MS, 22+raceSlackMS)
	}
}
