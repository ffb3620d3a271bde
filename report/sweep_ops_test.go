package report

import (
	"strings"
	"testing"

	"github.com/mcpbench/mcpbench/measure"
	"github.com/mcpbench/mcpbench/results"
	"github.com/mcpbench/mcpbench/sweep"
)

// TestSweepMarkdownByOperation: a mix's per-operation figures appear in the
// sweep's Markdown, one row per level and operation.
func TestSweepMarkdownByOperation(t *testing.T) {
	ops := []measure.OperationStats{
		{Operation: measure.Operation{Method: "tools/call", Tool: "search"}, Latency: measure.Latency{Requests: 60, P95MS: 41.5}, RPS: 30},
		{Operation: measure.Operation{Method: "tools/list"}, Latency: measure.Latency{Requests: 40, P95MS: 12.25}, RPS: 20},
	}
	points := []measure.Point{
		{Concurrency: 1, Latency: measure.Latency{Requests: 100, OK: 100}, RPS: 50, ByOperation: ops},
		{Concurrency: 2, Latency: measure.Latency{Requests: 100, OK: 100}, RPS: 90, ByOperation: ops},
	}
	r := results.NewSweepReport(results.Header{Target: results.Target{URL: "http://127.0.0.1:3002/mcp"}}, points, sweep.SLO{})
	var b strings.Builder
	if err := WriteSweepMarkdown(&b, r); err != nil {
		t.Fatal(err)
	}
	md := b.String()
	if !strings.Contains(md, "## By operation") || strings.Count(md, "tools/call search") != 2 || !strings.Contains(md, "41.5") {
		t.Fatalf("per-operation table missing or incomplete:\n%s", md)
	}
}
