package results

import (
	"testing"

	"github.com/mcpbench/mcpbench/measure"
	"github.com/mcpbench/mcpbench/sweep"
	"github.com/mcpbench/mcpbench/workload"
)

// TestToolErrorsToGeneratedArgsExempt: tool errors of operations with
// generated arguments leave the error-rate gate, with a note, unless asked
// to count; every other error still counts, and the report's own figures
// are untouched.
func TestToolErrorsToGeneratedArgsExempt(t *testing.T) {
	read := measure.Operation{Method: "tools/call", Tool: "read_file"}
	echo := measure.Operation{Method: "tools/call", Tool: "echo"}
	// read_file's arguments were generated, echo's given.
	generated := []workload.ToolInfo{{Name: "read_file", ArgSets: 16}, {Name: "echo"}}
	mix := func() *RunReport {
		return &RunReport{Workload: Workload{Operations: []measure.Operation{read, echo}, Tools: generated}, Point: measure.Point{
			Latency: measure.Latency{Requests: 100, Errors: 60, ErrorRate: 0.6, ErrorsByKind: map[string]int64{"tool_error": 55, "timeout": 5}},
			ByOperation: []measure.OperationStats{
				{Operation: read, Latency: measure.Latency{Requests: 50, Errors: 50, ErrorsByKind: map[string]int64{"tool_error": 48, "timeout": 2}}},
				{Operation: echo, Latency: measure.Latency{Requests: 50, Errors: 10, ErrorsByKind: map[string]int64{"tool_error": 7, "timeout": 3}}},
			}}}
	}
	g := Gates{SLO: sweep.SLO{MaxErrorRate: 0.2}}
	r := mix()
	if failed := g.Run(r); failed || r.Gates[0].Value != 0.12 || r.Gates[0].Note != "48 tool_error answer(s) to generated arguments not counted" || r.ErrorRate != 0.6 {
		t.Fatalf("failed %v, %+v", failed, r.Gates)
	}
	r = mix()
	if failed := (Gates{SLO: sweep.SLO{MaxErrorRate: 0.2}, CountToolErrors: true}).Run(r); !failed || r.Gates[0].Value != 0.6 || r.Gates[0].Note != "" {
		t.Fatalf("without exemption: failed %v, %+v", failed, r.Gates)
	}
	single := &RunReport{Workload: Workload{Operations: []measure.Operation{read}, Tools: generated[:1]}, Point: measure.Point{
		Latency: measure.Latency{Requests: 10, Errors: 10, ErrorRate: 1, ErrorsByKind: map[string]int64{"tool_error": 10}}}}
	if failed := g.Run(single); failed || single.Gates[0].Value != 0 {
		t.Fatalf("one operation: failed %v, %+v", failed, single.Gates)
	}
	single.Workload.Tools, single.Gates = nil, nil // given arguments: every error counts
	if failed := g.Run(single); !failed || single.Gates[0].Value != 1 {
		t.Fatalf("one operation: failed %v, %+v", failed, single.Gates)
	}
}
