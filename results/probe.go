package results

import (
	"io"

	"github.com/mcpbench/mcpbench/logscan"
	"github.com/mcpbench/mcpbench/probe"
)

// ProbeReport is the mcpbench.probe/v1 report: the common header, what the
// probe was asked to do, then the probe's sections at the top level.
// Header, ProbeSettings' key and probe.Report have no JSON names in
// common.
type ProbeReport struct {
	Header
	Settings ProbeSettings `json:"settings"`
	probe.Report
	Gates []Gate `json:"gates"`
}

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
