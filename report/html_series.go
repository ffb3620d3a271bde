package report

import "github.com/mcpbench/mcpbench/results"

// runSeriesSections are the over-time charts of a run.
func runSeriesSections(r *results.RunReport) []htmlSection { return nil }

// runSeriesVerdicts are the warnings the run's time series give.
func runSeriesVerdicts(r *results.RunReport) []string { return nil }

// runSeriesOverlays are the over-time charts of two runs, overlaid.
func runSeriesOverlays(base, cur *results.RunReport) []htmlSection { return nil }
