package results

import (
	"math"
	"strconv"
	"strings"

	"github.com/mcpbench/mcpbench/internal/textfmt"
	"github.com/mcpbench/mcpbench/measure"
	"github.com/mcpbench/mcpbench/sweep"
)

// OperationName is an operation as people write it: "tools/call search".
func OperationName(o measure.Operation) string {
	if o.Step != "" {
		return StepName(o)
	}
	if o.Tool != "" {
		return o.Method + " " + o.Tool
	}
	return o.Method
}

// StepName is a scenario step as people write it: "agent/search".
func StepName(o measure.Operation) string {
	return o.Scenario + "/" + o.Step
}

// OperationsLine lists a workload's operations, comma-separated; two
// workloads send the same when their lines are equal.
func OperationsLine(ops []measure.Operation) string {
	names := make([]string, len(ops))
	for i, o := range ops {
		names[i] = OperationName(o)
	}
	return strings.Join(names, ", ")
}

// SLOLine is the SLO in one line: "p95 ≤ 50 ms, error rate ≤ 1%".
func SLOLine(s sweep.SLO) string {
	var parts []string
	if s.P95MS > 0 {
		parts = append(parts, "p95 ≤ "+textfmt.Float(s.P95MS)+" ms")
	}
	if s.P99MS > 0 {
		parts = append(parts, "p99 ≤ "+textfmt.Float(s.P99MS)+" ms")
	}
	parts = append(parts, "error rate ≤ "+textfmt.Percent(s.MaxErrorRate))
	return strings.Join(parts, ", ")
}

// LevelName names a point's load level: "concurrency 8", "rate 250".
func LevelName(p *measure.Point) string { return levelName(p) }

// levelName names a point's load level, the key compare matches points on.
func levelName(p *measure.Point) string {
	if p.Rate != nil {
		return "rate " + textfmt.Float(math.Round(*p.Rate*100)/100)
	}
	return "concurrency " + strconv.Itoa(p.Concurrency)
}
