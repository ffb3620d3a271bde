package workload_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"testing"
	"time"

	"github.com/mcpbench/mcpbench/bench"
	"github.com/mcpbench/mcpbench/mcp"
	"github.com/mcpbench/mcpbench/workload"
)

// BenchmarkMCPWorker is one MCP worker's request through the engine
// against a server that costs next to nothing: the engine, the worker
// adapter and the client together, per request.
func BenchmarkMCPWorker(b *testing.B) {
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		i := len(body) - 2 // the id is the last number: `…,"id":N}`
		for i > 0 && body[i-1] >= '0' && body[i-1] <= '9' {
			i--
		}
		id, _ := strconv.Atoi(string(body[i : len(body)-1]))
		w.Header().Set("Content-Type", "application/json")
		if r.Header.Get("Mcp-Method") == "server/discover" {
			fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%d,"result":{"supportedVersions":["2026-07-28"],"capabilities":{}}}`, id)
			return
		}
		fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%d,"result":{"tools":[]}}`, id)
	}))
	defer ts.Close()
	ctx := context.Background()
	c, err := mcp.Dial(ctx, mcp.Options{URL: ts.URL + "/mcp", Timeout: 5 * time.Second})
	if err != nil {
		b.Fatal(err)
	}
	defer c.Close(ctx)
	wl := &workload.Workload{Client: c, Ops: []workload.Op{{Request: mcp.Request{Method: "tools/list"}}}}
	b.ReportAllocs()
	b.ResetTimer()
	p, err := bench.Run(ctx, bench.Config{Concurrency: 1, Total: int64(b.N)}, wl)
	if err != nil || p.OK != int64(b.N) {
		b.Fatalf("ok %d of %d: %v %v", p.OK, b.N, err, p.ErrorExamples)
	}
}
