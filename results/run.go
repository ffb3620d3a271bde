package results

import (
	"io"
	"time"

	"github.com/mcpbench/mcpbench/internal/hist"
	"github.com/mcpbench/mcpbench/logscan"
	"github.com/mcpbench/mcpbench/measure"
	"github.com/mcpbench/mcpbench/probe"
	"github.com/mcpbench/mcpbench/workload"
)

// Gate is one pass/fail check of a run or probe, as the exit code saw it.
type Gate struct {
	Name   string  `json:"name"`
	Limit  float64 `json:"limit"`
	Value  float64 `json:"value"`
	Passed bool    `json:"passed"`
	// Note says what the value leaves out, if anything.
	Note string `json:"note,omitempty"`
}

// RunReport is the JSON of `mcpbench run`: the header, then the point's
// fields at the top level.
type RunReport struct {
	Header
	Workload Workload `json:"workload"`
	measure.Point
	Gates   []Gate              `json:"gates"`
	LogScan *logscan.WindowScan `json:"log_scan"`
	// Health is the server's /health before and after (with --health-url).
	Health *probe.Health `json:"health,omitempty"`
	// Soak is what the series (Point.Series) shows over time: trends,
	// latency drift and verdicts.
	Soak *Soak `json:"soak,omitempty"`
	// AbandonedMemory is the server memory kept per abandoned session
	// (--abandon-sessions with --server-pid or --server-metrics).
	AbandonedMemory *AbandonedMemory `json:"abandoned_memory,omitempty"`
	// Shard is set on a shard's report (--shard); Merged on merge's output.
	Shard  *Shard     `json:"shard,omitempty"`
	Merged *MergeInfo `json:"merged,omitempty"`
	// Aborted is set when a threshold (--abort-on) stopped the run early;
	// the figures cover what was measured until then.
	Aborted *Aborted `json:"aborted,omitempty"`
	// Exemplars are the slowest requests of each operation among those
	// sent with trace context (--trace), to find in the server's traces.
	Exemplars []Exemplar `json:"exemplars,omitempty"`
}

// Exemplar is one traced request: the trace and span ids it carried
// (hex, as in traceparent), its operation, latency and outcome.
type Exemplar struct {
	Method    string    `json:"method"`
	Tool      string    `json:"tool,omitempty"`
	TraceID   string    `json:"trace_id"`
	SpanID    string    `json:"span_id"`
	LatencyMS float64   `json:"latency_ms"`
	Outcome   string    `json:"outcome"`
	At        time.Time `json:"at"`
	// Level is the sweep point it was sent at ("c=8", "rate=200"); empty
	// in a run.
	Level string `json:"level,omitempty"`
}

// Workload says what was sent, so compare and merge can refuse reports of
// different workloads.
type Workload struct {
	Mode       string              `json:"mode"` // closed or open
	Operations []measure.Operation `json:"operations"`
	Warmup     int64               `json:"warmup"`
	DurationS  float64             `json:"duration_s,omitempty"`
	Session    string              `json:"session,omitempty"`
	// Tools are the tools called, with what their annotations say and,
	// for generated arguments, how many sets each cycled through.
	Tools []workload.ToolInfo `json:"tools,omitempty"`
	// Scenario is the scenario file a session run ran (its base name);
	// Operations are then its steps.
	Scenario string `json:"scenario,omitempty"`
	// NewConnectionPerSession: each session ran on connections of its
	// own.
	NewConnectionPerSession bool `json:"new_connection_per_session,omitempty"`
}

// ReadRunReport reads a run report and decodes its histogram.
func ReadRunReport(rd io.Reader) (*RunReport, error) {
	var r RunReport
	if err := readReport(rd, &r, func() string { return r.Schema }, SchemaRun, "run"); err != nil {
		return nil, err
	}
	if r.Histogram != "" {
		h, err := hist.Decode(r.Histogram)
		if err != nil {
			return nil, err
		}
		r.Hist = h
	}
	return &r, nil
}
