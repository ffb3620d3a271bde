package results

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/mcpbench/mcpbench/logscan"
	"github.com/mcpbench/mcpbench/measure"
	"github.com/mcpbench/mcpbench/probe"
	"github.com/mcpbench/mcpbench/sweep"
)

// SweepReport is the mcpbench.sweep/v1 report: the common header, then the
// sweep's points and analysis, all at the top level of one JSON object.
// Header and Analysis have no JSON names in common, so embedding both
// flattens them without shadowing.
type SweepReport struct {
	Header
	sweep.Analysis
	// Interrupted marks a sweep stopped by Ctrl-C: the points are the ones
	// measured before it, the analysis is over those.
	Interrupted bool `json:"interrupted,omitempty"`
	// Gates are the pass/fail checks --fail-on-slo and
	// --require-concurrency asked for, as the exit code saw them; each is
	// a lower bound: it passes when value >= limit.
	Gates []Gate `json:"gates"`
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
	// Exemplars are each point's slowest traced requests of each
	// operation (--trace), Level naming the point.
	Exemplars []Exemplar `json:"exemplars,omitempty"`
}

// NewSweepReport analyses the points against the SLO and puts the header
// in front, with the sweep schema filled in.
func NewSweepReport(h Header, points []measure.Point, slo sweep.SLO) *SweepReport {
	h.Schema = SchemaSweep
	return &SweepReport{Header: h, Analysis: sweep.Analyze(points, slo)}
}

// SaturationNote says which points the generator, not the server, limited,
// with the first one's reason; "" when none. Every renderer of a sweep
// shows it, so that a saturated point is never read as the server's.
func (r *SweepReport) SaturationNote() string {
	var levels []string
	reason, axis := "", ""
	for i := range r.Points {
		p := &r.Points[i]
		if !p.Client.Saturated {
			continue
		}
		name := LevelName(p)
		if reason == "" {
			reason = name + ": " + p.Client.SaturationReason
		}
		// "concurrency 8, 16": the axis is named once while it stays.
		if a, v, _ := strings.Cut(name, " "); a == axis {
			name = v
		} else {
			axis = a
		}
		levels = append(levels, name)
	}
	if len(levels) == 0 {
		return ""
	}
	return fmt.Sprintf("the generator was saturated at %s (at %s): those points describe mcpbench, not the server", strings.Join(levels, ", "), reason)
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
