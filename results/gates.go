package results

import (
	"errors"
	"fmt"
	"slices"

	"github.com/mcpbench/mcpbench/measure"
	"github.com/mcpbench/mcpbench/sweep"
	"github.com/mcpbench/mcpbench/workload"
)

// Gates are the pass/fail rules a run, a probe or a sweep is held to, as
// the user set them (--p95-slo-ms, --p99-slo-ms, --max-error-rate,
// --fail-on-slo, --require-concurrency). They are evaluated here and
// nowhere else, so the three commands cannot come to disagree about what
// passing means.
type Gates struct {
	// SLO holds the latency targets (0 = none) and the highest acceptable
	// error rate. Exceeding the error rate always fails.
	SLO sweep.SLO
	// FailOnSLO makes a missed latency target (a run) or a sweep with no
	// point meeting the SLO fail; without it they are reported only.
	FailOnSLO bool
	// RequireConcurrency fails a sweep whose maximum feasible concurrency
	// is below it; 0 requires nothing.
	RequireConcurrency int
	// CountToolErrors makes the error-rate gate count every tool_error.
	// Without it, a run leaves out those of the tools it generated
	// arguments for: there a tool_error is the tool turning down made-up
	// input (a file that does not exist), not the server failing under
	// load. The gate says how many it left out; the report counts them
	// all the same.
	CountToolErrors bool
	// FailOnLeak fails a run whose soak analysis finds a leak (a server
	// series that grows, significantly and materially).
	FailOnLeak bool
	// MaxRecoveryS fails a staged run in which a spike took longer than
	// this many seconds to recover (or did not recover); 0 gates nothing.
	MaxRecoveryS float64
}

// gate checks one figure against its upper limit.
func gate(name string, limit, value float64) Gate {
	return Gate{Name: name, Limit: limit, Value: value, Passed: value <= limit}
}

// Run records the run's gates in r.Gates, the error rate always and each
// latency target that is set, and reports whether one that counts failed.
func (g Gates) Run(r *RunReport) bool {
	p := &r.Point
	failed := false
	add := func(gt Gate, counts bool) {
		r.Gates = append(r.Gates, gt)
		failed = failed || (!gt.Passed && counts)
	}
	add(g.errorRateGate(r), true)
	if g.SLO.P95MS > 0 {
		add(gate("p95_ms", g.SLO.P95MS, p.P95MS), g.FailOnSLO)
	}
	if g.SLO.P99MS > 0 {
		add(gate("p99_ms", g.SLO.P99MS, p.P99MS), g.FailOnSLO)
	}
	if g.FailOnLeak {
		add(gate("leaks", 0, float64(r.Soak.Leaks())), true)
	}
	if g.MaxRecoveryS > 0 {
		for _, gt := range recoveryGates(p.Spikes, g.MaxRecoveryS) {
			add(gt, true)
		}
	}
	return failed
}

// errorRateGate is the run's error rate against the limit, less the
// exempt tool errors.
func (g Gates) errorRateGate(r *RunReport) Gate {
	p := &r.Point
	var left int64
	if !g.CountToolErrors {
		generated := func(op measure.Operation) bool {
			return op.Method == "tools/call" && slices.ContainsFunc(r.Workload.Tools, func(t workload.ToolInfo) bool { return t.Name == op.Tool && t.ArgSets > 0 })
		}
		if len(p.ByOperation) > 0 {
			for _, o := range p.ByOperation {
				if generated(o.Operation) {
					left += o.ErrorsByKind[toolErrorKind]
				}
			}
		} else if ops := r.Workload.Operations; len(ops) == 1 && generated(ops[0]) {
			left = p.ErrorsByKind[toolErrorKind]
		}
	}
	if left == 0 || p.Requests == 0 {
		return gate("error_rate", g.SLO.MaxErrorRate, p.ErrorRate)
	}
	gt := gate("error_rate", g.SLO.MaxErrorRate, float64(p.Errors-left)/float64(p.Requests))
	gt.Note = fmt.Sprintf("%d tool_error answer(s) to generated arguments not counted", left)
	return gt
}

// toolErrorKind is the error kind of a tool's isError answer.
const toolErrorKind = "tool_error"

// Probe records in r.Gates an error-rate gate for the sequential listings
// and for each benchmark that ran, and reports whether one failed. A probe
// has no latency targets.
func (g Gates) Probe(r *ProbeReport) bool {
	r.Gates = r.Gates[:0]
	failed := false
	add := func(name string, rate float64) {
		gt := gate(name, g.SLO.MaxErrorRate, rate)
		r.Gates = append(r.Gates, gt)
		failed = failed || !gt.Passed
	}
	if sp := r.SequentialProfile; sp.Count > 0 {
		add("sequential.error_rate", float64(sp.Errors)/float64(sp.Count))
	}
	if p := r.Benchmarks.Small; p != nil {
		add("bench_small.error_rate", p.ErrorRate)
	}
	if p := r.Benchmarks.Large; p != nil {
		add("bench_large.error_rate", p.ErrorRate)
	}
	return failed
}

// Sweep records the sweep's gates in r.Gates, the ones the flags turned
// on, and returns why the sweep fails them, or nil. A sweep measures past
// the limit on purpose: a point that misses the SLO is data, so the SLO
// gate fails only when no point met it. Errors at single points are data
// the analysis weighs, not failures of the sweep.
func (g Gates) Sweep(r *SweepReport) error {
	rec := r.Recommendation
	r.Gates = []Gate{}
	var failed error
	if g.FailOnSLO {
		met := len(rec.FeasibleConcurrency) + len(rec.FeasibleRates)
		r.Gates = append(r.Gates, Gate{Name: "points_meeting_slo", Limit: 1, Value: float64(met), Passed: met >= 1})
		if met == 0 {
			failed = errors.New("no point met the SLO")
		}
	}
	if g.RequireConcurrency > 0 {
		got, text := 0, "none"
		if rec.MaxFeasibleConcurrency != nil {
			got, text = *rec.MaxFeasibleConcurrency, fmt.Sprint(*rec.MaxFeasibleConcurrency)
		}
		passed := got >= g.RequireConcurrency
		r.Gates = append(r.Gates, Gate{Name: "max_feasible_concurrency", Limit: float64(g.RequireConcurrency), Value: float64(got), Passed: passed})
		if !passed && failed == nil {
			failed = fmt.Errorf("maximum feasible concurrency %s is below the required %d", text, g.RequireConcurrency)
		}
	}
	return failed
}
