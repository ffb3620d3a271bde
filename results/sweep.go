package results

import (
	"encoding/json"
	"fmt"
	"io"

	"github.com/mcpbench/mcpbench/bench"
	"github.com/mcpbench/mcpbench/logscan"
	"github.com/mcpbench/mcpbench/probe"
	"github.com/mcpbench/mcpbench/sweep"
)

// SweepReport is the mcpbench.sweep/v1 report: the common header, then the
// sweep's points and analysis, all at the top level of one JSON object.
// Header and sweep.Analysis have no JSON names in common, so embedding
// both flattens them without shadowing.
type SweepReport struct {
	Header
	sweep.Analysis
	// Interrupted marks a sweep stopped by Ctrl-C: the points are the ones
	// measured before it, the analysis is over those.
	Interrupted bool `json:"interrupted,omitempty"`
	// LogScan is the server's stats log over the whole sweep (null
	// without --log-file).
	LogScan *logscan.WindowScan `json:"log_scan,omitempty"`
	// Health is the server's /health before and after the whole sweep
	// (with --health-url).
	Health *probe.Health `json:"health,omitempty"`
	// Workload lets compare and merge refuse sweeps of different work;
	// Shard and Merged are as in RunReport.
	Workload *Workload  `json:"workload,omitempty"`
	Shard    *Shard     `json:"shard,omitempty"`
	Merged   *MergeInfo `json:"merged,omitempty"`
}

// NewSweepReport analyses the points against the SLO and puts the header
// in front, with the sweep schema filled in.
func NewSweepReport(h Header, points []bench.Point, slo sweep.SLO) *SweepReport {
	h.Schema = SchemaSweep
	return &SweepReport{Header: h, Analysis: sweep.Analyze(points, slo)}
}

// ReadSweepReport reads a sweep report, refusing other report kinds so
// compare and merge fail early on a mixed-up file.
func ReadSweepReport(rd io.Reader) (*SweepReport, error) {
	var r SweepReport
	if err := json.NewDecoder(rd).Decode(&r); err != nil {
		return nil, fmt.Errorf("sweep report: %w", err)
	}
	if r.Schema != SchemaSweep {
		return nil, fmt.Errorf("sweep report: schema %q, want %q", r.Schema, SchemaSweep)
	}
	return &r, nil
}
