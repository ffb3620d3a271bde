// Package ab runs an A/B experiment between two MCP servers the way issue
// 47 asks: rounds, each measuring A and B once in an order drawn anew from
// a seeded generator (RMIT: randomized multiple interleaved trials), each
// side warmed up before it is measured, until abstat's sequential rule has
// decided every gated metric or the plan's maximum rounds or the time
// budget is spent. What one measurement does (the load, its duration) is
// the caller's Measure; this package adds the order, the server's CPU per
// request (from /proc or the server's Prometheus endpoint), the stopping
// and the result, whose JSON is the report's core.
//
// A target is a URL with an optional CPU source, or a server this package
// starts itself from a command with a {port} placeholder (Start), polled
// until a readiness check passes.
package ab

import (
	"math"
	"slices"

	"github.com/mcpbench/mcpbench/abstat"
)

// Figures are one measurement of one target. Every figure must be a
// number (no NaN), as JSON has none.
type Figures struct {
	Requests   int64   `json:"requests"`   // requests measured
	Throughput float64 `json:"throughput"` // requests per second
	// Latency percentiles in milliseconds, as in run reports.
	P50MS     float64  `json:"p50_ms"`
	P95MS     float64  `json:"p95_ms"`
	P99MS     float64  `json:"p99_ms"`
	ErrorRate float64  `json:"error_rate"`             // failed share of the requests, 0 to 1
	Seconds   float64  `json:"duration_s"`             // wall time the measurement took
	GenCPU    float64  `json:"gen_cpu_s"`              // CPU time of this process (the generator) meanwhile
	ServerCPU *float64 `json:"server_cpu_s,omitempty"` // CPU time of the server meanwhile; absent when unknown
	// ServerCPUPerRequest is ServerCPU / Requests.
	ServerCPUPerRequest *float64 `json:"server_cpu_per_request_s,omitempty"`
}

// Value is the figure abstat's metric m names, NaN when it is unknown.
func (f Figures) Value(m abstat.Metric) float64 {
	switch m {
	case abstat.Throughput:
		return f.Throughput
	case abstat.P50:
		return f.P50MS
	case abstat.P95:
		return f.P95MS
	case abstat.P99:
		return f.P99MS
	case abstat.ErrorRate:
		return f.ErrorRate
	case abstat.ServerCPUPerRequest:
		if f.ServerCPUPerRequest != nil {
			return *f.ServerCPUPerRequest
		}
	}
	return math.NaN()
}

// Side names a target of the experiment.
type Side string

// The two sides.
const (
	A Side = "A"
	B Side = "B"
)

// Round is one round: both sides measured once, in Order.
type Round struct {
	Index int     `json:"index"` // from 1
	Order [2]Side `json:"order"`
	A     Figures `json:"a"`
	B     Figures `json:"b"`
}

// Settings are what the experiment was run with.
type Settings struct {
	Plan  abstat.Plan     `json:"plan"`
	Gated []abstat.Metric `json:"gated"`
	// AlarmAlpha is each metric's two-sided level for a change over all
	// looks: the plan's alpha shared by the gated metrics
	// (abstat.Sequential.AlarmAlpha).
	AlarmAlpha    float64 `json:"alarm_alpha"`
	BudgetSeconds float64 `json:"budget_s,omitempty"` // 0: no budget
	Warmup        bool    `json:"warmup"`
	Duet          bool    `json:"duet,omitempty"` // A and B measured at the same time
	// SliceSeconds is the length of the turns A and B took within each
	// round (Experiment.Pairs); 0: each side measured whole.
	SliceSeconds float64 `json:"slice_s,omitempty"`
	// Restarted: the servers mcpbench started were started afresh before
	// each round after the first (Experiment.Restart).
	Restarted bool `json:"restarted,omitempty"`
	// AskedRounds, when not 0, is the plan's last round as asked: the
	// plan was refitted after its first rounds to the fewer that the
	// budget holds (Plan.MaxRounds), so that its last look spends all
	// of alpha.
	AskedRounds int `json:"max_rounds_asked,omitempty"`
	// CannotAlarm: the rounds the budget holds are too few for any
	// p-value to reach the alarm level (abstat.Sequential.Blind), so no
	// regression can be found; --max-rounds is refused for that up
	// front, a budget only shows it after the first rounds.
	CannotAlarm bool   `json:"cannot_alarm,omitempty"`
	A           string `json:"a"` // where each side was, for the reader
	B           string `json:"b"`
}

// Why the experiment stopped.
const (
	StopDecided     = "decided"     // every gated metric decided
	StopMaxRounds   = "max_rounds"  // the plan's last look
	StopBudget      = "budget"      // no time for another round
	StopInterrupted = "interrupted" // the context ended
	StopFailed      = "failed"      // a measurement failed
)

// Result is an experiment's outcome; its JSON is the report's core.
type Result struct {
	Seed     uint64          `json:"seed"`
	Settings Settings        `json:"settings"`
	Rounds   []Round         `json:"rounds"`
	Verdicts []abstat.Result `json:"verdicts"`
	Stopped  string          `json:"stopped"`
	Seconds  float64         `json:"elapsed_s"`
}

// Regressions are the verdicts that found B worse than A.
func (r *Result) Regressions() []abstat.Result {
	var out []abstat.Result
	for _, v := range r.Verdicts {
		if v.Verdict == abstat.Regression {
			out = append(out, v)
		}
	}
	return out
}

// GateFailed says whether the experiment fails its gate: a gated metric
// judged a regression, or, when failOnInconclusive, one left undecided.
// A regression of a metric that is not gated is reported, not failed on.
func (r *Result) GateFailed(failOnInconclusive bool) bool {
	for _, v := range r.Regressions() {
		if slices.Contains(r.Settings.Gated, v.Metric) {
			return true
		}
	}
	return failOnInconclusive && r.Inconclusive()
}

// Inconclusive says whether a gated metric was left undecided, or had no
// figures to judge.
func (r *Result) Inconclusive() bool {
	for _, g := range r.Settings.Gated {
		judged := false
		for _, v := range r.Verdicts {
			if v.Metric == g {
				judged = v.Verdict != abstat.Inconclusive
			}
		}
		if !judged {
			return true
		}
	}
	return false
}

// paired gathers each metric's figures of A and B, round by round,
// leaving out a metric no round has.
func paired(rounds []Round) map[abstat.Metric]abstat.Paired {
	out := map[abstat.Metric]abstat.Paired{}
	for _, m := range abstat.Metrics {
		var p abstat.Paired
		known := false
		for _, r := range rounds {
			a, b := r.A.Value(m), r.B.Value(m)
			known = known || (!math.IsNaN(a) && !math.IsNaN(b))
			p.A, p.B = append(p.A, a), append(p.B, b)
		}
		if known {
			out[m] = p
		}
	}
	return out
}
