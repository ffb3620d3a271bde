package report

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/mcpbench/mcpbench/measure"
	"github.com/mcpbench/mcpbench/results"
	"github.com/mcpbench/mcpbench/workload"
)

func yes() *bool { b := true; return &b }

func samplePlan() *results.PlanReport {
	long := `{"q":"` + strings.Repeat("x", 500) + `"}`
	return &results.PlanReport{
		Header:  results.Header{Schema: results.SchemaPlan, Target: results.Target{URL: "stdio: node server.js", Transport: "stdio"}},
		Command: "run",
		Plan: results.Plan{
			Operations: []measure.Operation{{Method: "tools/call", Tool: "read_file"}, {Method: "tools/call", Tool: "delete_all"}},
			Calls: []workload.PlannedCall{
				{ToolInfo: workload.ToolInfo{Name: "read_file", Effect: workload.ReadOnly, Annotations: workload.Annotations{ReadOnlyHint: yes()}, ArgSets: 16},
					SampleArgs: []json.RawMessage{json.RawMessage(`{"path":"a"}`), json.RawMessage(long)}},
				{ToolInfo: workload.ToolInfo{Name: "delete_all", Effect: workload.Destructive, Named: true, ArgSets: 1, CardinalityNote: "inputSchema admits only 1 distinct argument set(s); 16 asked for"},
					SampleArgs: []json.RawMessage{json.RawMessage(`{}`)}},
			},
			Load:     results.PlannedLoad{Mode: "closed", Concurrency: []int{4}, Total: 200},
			Warnings: []string{`tool "delete_all" has no annotations, so the MCP spec presumes it destructive; calling it because it was named`},
		},
	}
}

// TestPlanSummary: the plan for people names each tool with its
// annotations and samples (long ones clipped), the load, and the warnings.
func TestPlanSummary(t *testing.T) {
	var b bytes.Buffer
	if err := WritePlanSummary(&b, samplePlan()); err != nil {
		t.Fatal(err)
	}
	got := b.String()
	for _, want := range []string{
		"dry run   run: nothing is called\n",
		"load      closed loop, 4 workers, 200 requests\n",
		"sends     tools/call read_file, tools/call delete_all\n",
		`tool      read_file: read-only {"readOnlyHint":true}, 16 argument sets` + "\n",
		"            {\"path\":\"a\"}\n",
		"tool      delete_all: destructive no annotations, named, 1 argument set, inputSchema admits only 1 distinct argument set(s); 16 asked for\n",
		"WARNING   tool \"delete_all\" has no annotations",
	} {
		if !strings.Contains(got, want) {
			t.Fatalf("missing %q in:\n%s", want, got)
		}
	}
	if strings.Contains(got, strings.Repeat("x", 200)) || !strings.Contains(got, "x…\n") {
		t.Fatalf("a long sample was not clipped:\n%s", got)
	}
	b.Reset()
	if err := WritePlanMarkdown(&b, samplePlan()); err != nil || !strings.Contains(b.String(), "| read_file  | read-only {\"readOnlyHint\":true}, 16 argument sets") {
		t.Fatalf("%v\n%s", err, b.String())
	}
}

func TestLoadLine(t *testing.T) {
	for want, l := range map[string]results.PlannedLoad{
		"closed loop, 4 workers, 200 requests":                              {Mode: "closed", Concurrency: []int{4}, Total: 200},
		"closed loop at 1, 2, 4 workers, 2s per level, 10 warm-up requests": {Mode: "closed", Concurrency: []int{1, 2, 4}, DurationS: 2, Warmup: 10},
		"open loop at 100, 250.5 requests/s, 500 requests per level":        {Mode: "open", Rates: []float64{100, 250.5}, Total: 500},
		"open loop at 50 requests/s, 10s, ramp-up 2s":                       {Mode: "open", Rates: []float64{50}, DurationS: 10, RampUpS: 2},
	} {
		if got := loadLine(l); got != want {
			t.Errorf("got %q, want %q", got, want)
		}
	}
}

// TestRunSummaryErrorsByTool: a mix's summary says which tool failed, how
// often and how, and notes a capped cardinality.
func TestRunSummaryErrorsByTool(t *testing.T) {
	r := &results.RunReport{
		Workload: results.Workload{Tools: []workload.ToolInfo{{Name: "read_graph", Effect: workload.ReadOnly, ArgSets: 1, CardinalityNote: "inputSchema admits only 1 distinct argument set(s); 16 asked for"}}},
		Point: measure.Point{Latency: measure.Latency{Requests: 300, OK: 97, Errors: 203, ErrorsByKind: map[string]int64{"tool_error": 200, "jsonrpc": 3}},
			ErrorExamples: map[string]string{"tool_error": "tool_error: list_directory: ENOENT: no such file or directory"},
			ByOperation: []measure.OperationStats{
				{Operation: measure.Operation{Method: "tools/call", Tool: "read_graph"}, Latency: measure.Latency{Requests: 100, OK: 97, Errors: 3, ErrorsByKind: map[string]int64{"jsonrpc": 3}}},
				{Operation: measure.Operation{Method: "tools/call", Tool: "list_directory"}, Latency: measure.Latency{Requests: 200, Errors: 200, ErrorsByKind: map[string]int64{"tool_error": 200}}},
				{Operation: measure.Operation{Method: "tools/call", Tool: "search"}, Latency: measure.Latency{Requests: 0}},
			}},
	}
	var b bytes.Buffer
	if err := WriteRunSummary(&b, r); err != nil {
		t.Fatal(err)
	}
	got := b.String()
	for _, want := range []string{
		"  by tools/call read_graph 3 of 100 failed: jsonrpc 3\n",
		"  by tools/call list_directory 200 of 200 failed: tool_error 200\n",
		"e.g. tool_error: list_directory: ENOENT",
		"note      read_graph: inputSchema admits only 1",
	} {
		if !strings.Contains(got, want) {
			t.Fatalf("missing %q in:\n%s", want, got)
		}
	}
	if strings.Contains(got, "by tools/call search") {
		t.Fatalf("an operation without errors got an error line:\n%s", got)
	}
}

// TestSweepSummaryErrorsByTool: a sweep's summary adds each operation's
// errors over all points.
func TestSweepSummaryErrorsByTool(t *testing.T) {
	read := measure.Operation{Method: "tools/call", Tool: "read_file"}
	point := func(c int, errs int64) measure.Point {
		return measure.Point{Concurrency: c, Latency: measure.Latency{Requests: 100, Errors: errs}, ByOperation: []measure.OperationStats{
			{Operation: read, Latency: measure.Latency{Requests: 50, Errors: errs, ErrorsByKind: map[string]int64{"tool_error": errs}}},
			{Operation: measure.Operation{Method: "tools/list"}, Latency: measure.Latency{Requests: 50}},
		}}
	}
	r := &results.SweepReport{}
	r.Points = []measure.Point{point(1, 2), point(2, 5)}
	var b bytes.Buffer
	if err := WriteSweepTable(&b, r); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "  by tools/call read_file 7 of 100 failed: tool_error 7\n") || strings.Contains(b.String(), "by tools/list") {
		t.Fatalf("%s", b.String())
	}
}
