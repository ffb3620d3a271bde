package bench_test

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/mcpbench/mcpbench/bench"
	"github.com/mcpbench/mcpbench/mcp"
	"github.com/mcpbench/mcpbench/target"
	"github.com/mcpbench/mcpbench/workload"
)

// keptRun runs n tools/call echo requests with c workers on driver loops
// (0: goroutines) against url, checks every answer (want, when not nil,
// judges its structured content: a mismatch is an error), and
// returns the connections the client opened while measuring and in all.
func keptRun(t *testing.T, url string, c int, n int64, loops int, want workload.Validator) (measuring, all int64) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	client, err := mcp.Dial(ctx, mcp.Options{URL: url, PoolSize: c, Timeout: 10 * time.Second})
	if err != nil {
		t.Fatalf("dial: %v", err)
	}
	defer client.Close(ctx)
	wl := &workload.Workload{Client: client, Ops: []workload.Op{{Request: echo}}, Validate: want}
	var atStart int64
	cfg := bench.Config{Model: bench.ClosedLoop{Concurrency: c}, Total: n, Warmup: int64(2 * c), Loops: loops, Observer: onMeasuring(func() { atStart = client.Dials() })}
	p, err := bench.Run(ctx, cfg, wl)
	if err != nil {
		t.Fatalf("run: %v", err)
	}
	if p.Requests != n || p.OK != n || p.Errors != 0 {
		t.Fatalf("requests %d ok %d errors %v (%v), want %d each", p.Requests, p.OK, p.ErrorsByKind, p.ErrorExamples, n)
	}
	return client.Dials() - atStart, client.Dials()
}

// TestSSEAnswersKeepTheirConnections: an SSE answer's connection carries
// the next request, as a client of HTTP/1.1 reuses it, on goroutines and
// on event loops, against the bundled server stateless and stateful and
// against the TypeScript SDK's server-everything. Before the fix the
// stateless server saw about 9 connects in 10 requests.
func TestSSEAnswersKeepTheirConnections(t *testing.T) {
	const c, n = 4, 400
	servers := []struct {
		name string
		url  func(t *testing.T) string
		want workload.Validator // server-everything's echo has no structured content
	}{
		{"bundled-stateless", bundled(target.Config{Tools: 2, Stateless: true}), echoed},
		{"bundled-stateful", bundled(target.Config{Tools: 2}), echoed},
		{"everything", func(t *testing.T) string {
			entry := everythingEntry(t)
			if entry == "" {
				t.Skip("server-everything is not installed")
			}
			return startEverything(t, entry, "streamableHttp") + "/mcp"
		}, nil},
	}
	for _, s := range servers {
		t.Run(s.name, func(t *testing.T) {
			url := s.url(t)
			for _, loops := range []int{0, 1} {
				measuring, all := keptRun(t, url, c, n, loops, s.want)
				t.Logf("loops %d: %d connections opened while measuring, %d in all, for %d requests", loops, measuring, all, n+2*c)
				// One spare a worker: a server may close a connection now
				// and then; churn was hundreds.
				if measuring > c {
					t.Errorf("loops %d: %d connections opened while measuring %d requests with %d workers", loops, measuring, n, c)
				}
				// The setup's, the workers', and the session's own
				// (notifications and DELETE go through net/http).
				if all > 3*c+2 {
					t.Errorf("loops %d: %d connections opened in all for %d workers", loops, all, c)
				}
			}
		})
	}
}

// echoed wants the bundled server's echo of echo's message.
func echoed(tool string, structured json.RawMessage) error {
	if tool != "echo" || string(structured) != `{"message":"hello"}` {
		return fmt.Errorf("%s answered %s", tool, structured)
	}
	return nil
}

// bundled starts the bundled server with cfg for a test.
func bundled(cfg target.Config) func(t *testing.T) string {
	return func(t *testing.T) string {
		srv, err := target.Start(context.Background(), cfg)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { srv.Close() })
		return srv.MCPURL()
	}
}
