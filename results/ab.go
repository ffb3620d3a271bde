package results

import (
	"io"
	"math"
	"time"

	"github.com/mcpbench/mcpbench/ab"
	"github.com/mcpbench/mcpbench/abstat"
)

// SchemaAB names the report of `mcpbench ab`.
const SchemaAB = "mcpbench.ab/v1"

// ABSide is one side of an A/B report: where it was, what served it and
// where its server's output went when mcpbench started it.
type ABSide struct {
	URL       string `json:"url"`
	Command   string `json:"command,omitempty"`
	CPU       string `json:"cpu,omitempty"` // where its CPU time was read; absent: not read
	ServerLog string `json:"server_log,omitempty"`
}

// ABReport is the report of `mcpbench ab`: the experiment's result (seed,
// settings, rounds, verdicts, why it stopped) with what was sent and the
// gate's outcome.
type ABReport struct {
	Schema          string    `json:"schema"`
	MCPBenchVersion string    `json:"mcpbench_version"`
	StartedAt       time.Time `json:"started_at"`
	A               ABSide    `json:"a"`
	B               ABSide    `json:"b"`
	// Workload says what each measurement sent, in words ("tools/call
	// echo, closed loop, 4 workers, 2s").
	Workload string `json:"workload"`
	// AlphaPerMetric is false: alpha is the gate's false-alarm rate,
	// shared by the gated metrics (settings.alarm_alpha is each one's
	// level). The first reports, where alpha held for each metric on its
	// own, said true; the field stays for their readers.
	AlphaPerMetric bool `json:"alpha_per_metric"`
	ab.Result
	// FailOnInconclusive and GateFailed: the gate as asked and its outcome.
	FailOnInconclusive bool `json:"fail_on_inconclusive,omitempty"`
	GateFailed         bool `json:"gate_failed"`
	// Error is the failure that ended the experiment early, if any.
	Error string `json:"error,omitempty"`
}

// ReadABReport reads an A/B report.
func ReadABReport(rd io.Reader) (*ABReport, error) {
	r := new(ABReport)
	err := readReport(rd, r, func() string { return r.Schema }, SchemaAB, "ab")
	if err != nil {
		r = nil
	}
	return r, err
}

// Verdict is the verdict of metric m; ok is false when it was not judged.
func (r *ABReport) Verdict(m abstat.Metric) (abstat.Result, bool) {
	for _, v := range r.Verdicts {
		if v.Metric == m {
			return v, true
		}
	}
	return abstat.Result{}, false
}

// Ratio is B/A of metric m in round i; NaN when either is unknown or A is 0.
func (r *ABReport) Ratio(i int, m abstat.Metric) float64 {
	a, b := r.Rounds[i].A.Value(m), r.Rounds[i].B.Value(m)
	if a == 0 || math.IsNaN(a) || math.IsNaN(b) {
		return math.NaN()
	}
	return b / a
}

// Gated says whether m was a gated metric.
func (r *ABReport) Gated(m abstat.Metric) bool {
	for _, g := range r.Settings.Gated {
		if g == m {
			return true
		}
	}
	return false
}
