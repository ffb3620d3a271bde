package results

import (
	"io"

	"github.com/mcpbench/mcpbench/logscan"
	"github.com/mcpbench/mcpbench/probe"
)

// ProbeReport is the mcpbench.probe/v1 report: the common header, what the
// probe was asked to do, then the probe's sections at the top level.
// Header, ProbeSettings' key and ProbeFindings have no JSON names in
// common.
type ProbeReport struct {
	Header
	Settings ProbeSettings `json:"settings"`
	ProbeFindings
	Gates []Gate `json:"gates"`
}

// ProbeFindings are a probe.Report in their report form, field for field:
// the benchmarks' points as this package writes points.
type ProbeFindings struct {
	Health            probe.Health        `json:"health"`
	ServerInfo        probe.ServerInfo    `json:"server_info"`
	ToolsList         probe.ToolsList     `json:"tools_list"`
	SequentialProfile probe.Sequential    `json:"sequential_profile"`
	Listings          []probe.Listing     `json:"listings"`
	Benchmarks        ProbeBenchmarks     `json:"benchmarks"`
	LogScan           *logscan.WindowScan `json:"log_scan"`
	LogScanError      string              `json:"log_scan_error,omitempty"`
	Interrupted       bool                `json:"interrupted,omitempty"`
}

// ProbeBenchmarks are the probe's two concurrent runs; a null one was
// skipped (or could not start, and Errors says why).
type ProbeBenchmarks struct {
	Small  *Point            `json:"small"`
	Large  *Point            `json:"large"`
	Errors map[string]string `json:"errors,omitempty"`
}

// ProbeFindingsOf is the report form of what a probe found.
func ProbeFindingsOf(r probe.Report) ProbeFindings { return convert[ProbeFindings](r) }

// ProbeSettings are the probe's parameters, so a reader can tell two
// probes of different work apart.
type ProbeSettings struct {
	HealthURL         string          `json:"health_url"`
	SequentialSamples int             `json:"sequential_samples"`
	SequentialSleepMS float64         `json:"sequential_sleep_ms"`
	Small             probe.BenchSpec `json:"bench_small"`
	Large             probe.BenchSpec `json:"bench_large"`
	LogFile           string          `json:"log_file,omitempty"`
	MaxErrorRate      float64         `json:"max_error_rate"`
}

// ReadProbeReport reads a probe report.
func ReadProbeReport(rd io.Reader) (*ProbeReport, error) {
	var r ProbeReport
	if err := readReport(rd, &r, func() string { return r.Schema }, SchemaProbe, "probe"); err != nil {
		return nil, err
	}
	return &r, nil
}

// LogscanReport is the JSON of `mcpbench logscan`: the common header, then
// the scan's fields at the top level.
type LogscanReport struct {
	Header
	logscan.WindowScan
}
