package telemetry

import (
	"errors"
	"net/url"
	"sort"
	"strconv"

	"github.com/mcpbench/mcpbench/harness"
	"github.com/mcpbench/mcpbench/measure"
	"github.com/mcpbench/mcpbench/results"
)

// The names follow the OpenTelemetry semantic conventions for MCP: the
// client's duration histogram and its attributes. Prometheus spells
// them with underscores and the unit.
const (
	// MetricDuration is the OTLP name of the operations' latency.
	MetricDuration = "mcp.client.operation.duration"
	// PromDuration is its Prometheus name (a classic histogram:
	// _bucket, _count, _sum).
	PromDuration = "mcp_client_operation_duration_seconds"
	// PromRequests counts answers by operation and outcome, exact per
	// operation also when a level mixes several.
	PromRequests = "mcp_client_operation_requests_total"
)

// The attribute keys, in Prometheus's spelling (OTLP's has dots).
const (
	LabelMethod  = "mcp_method_name"
	LabelTool    = "gen_ai_tool_name"
	LabelStep    = "mcp_scenario_step"
	LabelOutcome = "error_type"
	LabelRun     = "mcpbench_run_id"
	LabelShard   = "mcpbench_shard"
	LabelLevel   = "mcpbench_level"
)

// reserved are the labels mcpbench sets; --out-label may not replace one.
var reserved = map[string]bool{LabelMethod: true, LabelTool: true, LabelStep: true, LabelOutcome: true,
	LabelRun: true, LabelShard: true, LabelLevel: true, "le": true, "job": true, "instance": true}

// Reserved says whether name is a label mcpbench sets itself.
func Reserved(name string) bool { return reserved[name] }

// DurationBuckets are the histogram's upper bounds in seconds: 1-2-5
// steps from 0.5 ms to 30 s, so a quantile PromQL estimates lies within
// one step of the report's.
var DurationBuckets = []float64{0.0005, 0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 30}

// CheckEndpoint checks an exporter's URL: http or https, with a host.
func CheckEndpoint(raw string) (*url.URL, error) {
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, errBadURL
	}
	return u, nil
}

var errBadURL = errors.New("want an http:// or https:// URL with a host")

// label is one name and value.
type label struct{ name, value string }

// baseLabels are the labels of every series of a run: its id, its shard,
// the user's.
func baseLabels(runID string, shard *results.Shard, user map[string]string) []label {
	ls := []label{{LabelRun, runID}}
	if shard != nil {
		ls = append(ls, label{LabelShard, shardName(shard)})
	}
	keys := make([]string, 0, len(user))
	for k := range user {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		ls = append(ls, label{k, user[k]})
	}
	return ls
}

// opLabels are an operation's labels: method, and tool or scenario step
// where it has them.
func opLabels(op measure.Operation) []label {
	ls := []label{{LabelMethod, op.Method}}
	if op.Tool != "" {
		ls = append(ls, label{LabelTool, op.Tool})
	}
	if op.Step != "" {
		ls = append(ls, label{LabelStep, op.Scenario + "/" + op.Step})
	}
	return ls
}

// levelLabel names a sweep's level ("" in a run, which has one).
func levelLabel(iv harness.PointInterval) string {
	if iv.Step.N == 0 {
		return ""
	}
	if iv.Step.Level.Rate > 0 {
		return "rate=" + ftoa(iv.Step.Level.Rate)
	}
	return "c=" + itoa(iv.Step.Level.Concurrency)
}

func itoa(n int) string                 { return strconv.Itoa(n) }
func ftoa(f float64) string             { return strconv.FormatFloat(f, 'g', -1, 64) }
func shardName(s *results.Shard) string { return itoa(s.Index) + "/" + itoa(s.Count) }
