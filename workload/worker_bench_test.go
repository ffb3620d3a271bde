package workload_test

import (
	"context"
	"testing"
	"time"

	"github.com/mcpbench/mcpbench/bench"
	"github.com/mcpbench/mcpbench/mcp"
	"github.com/mcpbench/mcpbench/target"
	"github.com/mcpbench/mcpbench/workload"
)

// BenchmarkMCPWorker is one MCP worker's request through the engine
// against the bundled server's canned answers: the engine, the worker
// adapter and the client together, per request.
func BenchmarkMCPWorker(b *testing.B) {
	ctx := context.Background()
	srv, err := target.Start(ctx, target.Config{FixedResponse: true})
	if err != nil {
		b.Fatal(err)
	}
	defer srv.Close()
	c, err := mcp.Dial(ctx, mcp.Options{URL: srv.MCPURL(), Timeout: 5 * time.Second})
	if err != nil {
		b.Fatal(err)
	}
	defer c.Close(ctx)
	wl := &workload.Workload{Client: c, Ops: []workload.Op{{Request: mcp.Request{Method: "tools/list"}}}}
	b.ReportAllocs()
	b.ResetTimer()
	p, err := bench.Run(ctx, bench.Config{Model: bench.ClosedLoop{Concurrency: 1}, Total: int64(b.N)}, wl)
	if err != nil || p.OK != int64(b.N) {
		b.Fatalf("ok %d of %d: %v %v", p.OK, b.N, err, p.ErrorExamples)
	}
}
