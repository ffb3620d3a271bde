package report

import (
	"bytes"
	"path/filepath"
	"testing"
	"time"

	"github.com/mcpbench/mcpbench/measure"
	"github.com/mcpbench/mcpbench/results"
)

// sessionRun is a session run report with fixed figures: two scenarios,
// their steps, one expect failure.
func sessionRun(open bool) *results.RunReport {
	step := func(scenario, name, method, tool string, n, errs int64, p50, p95, p99, mx float64) measure.OperationStats {
		l := measure.Latency{Requests: n, OK: n - errs, Errors: errs, ErrorsByKind: map[string]int64{}, P50MS: p50, P95MS: p95, P99MS: p99, MaxMS: mx}
		if errs > 0 {
			l.ErrorsByKind["expect_failed"] = errs
		}
		return measure.OperationStats{Operation: measure.Operation{Method: method, Tool: tool, Scenario: scenario, Step: name}, Latency: l, RPS: float64(n) / 20}
	}
	times := func(p50, p95, p99 float64) measure.SessionTimes {
		return measure.SessionTimes{MeanMS: p50 * 1.1, P50MS: p50, P95MS: p95, P99MS: p99, MaxMS: p99 * 1.5}
	}
	p := measure.Point{
		Concurrency: 8, ElapsedS: 20.04, RPS: 219.6,
		Latency: measure.Latency{Requests: 4400, OK: 4388, Errors: 12, ErrorRate: 12.0 / 4400, ErrorsByKind: map[string]int64{"expect_failed": 12},
			P50MS: 10.4, P95MS: 11.8, P99MS: 14.2, MaxMS: 31.5},
		ErrorExamples: map[string]string{"expect_failed": "search: expect: structuredContent.matches is absent"},
		ByOperation: []measure.OperationStats{
			step("edit", "initialize", "initialize", "", 600, 0, 1.21, 2.05, 3.4, 8.2),
			step("edit", "list", "tools/list", "", 600, 0, 10.4, 11.6, 13.9, 22.1),
			step("edit", "search", "tools/call", "echo", 1200, 12, 10.5, 11.9, 14.5, 31.5),
			step("edit", "close", "DELETE", "", 600, 0, 0.61, 1.02, 1.9, 4.4),
			step("browse", "initialize", "initialize", "", 200, 0, 1.19, 1.98, 3.1, 6.0),
			step("browse", "tools/list", "tools/list", "", 1000, 0, 10.3, 11.5, 13.8, 20.9),
			step("browse", "close", "DELETE", "", 200, 0, 0.6, 0.99, 1.7, 3.2),
		},
		Sessions: &measure.SessionStats{
			Started: 800,
			SessionFigures: measure.SessionFigures{Completed: 800, Failed: 12, PerSecond: 39.92, Steps: 4400, ThinkS: 120, MeanSteps: 5.5, MeanThinkMS: 150,
				Duration: times(196.2, 214.8, 240.1), Active: times(46.1, 61.7, 88.4)},
			ByScenario: []measure.ScenarioStats{
				{Scenario: "edit", SessionFigures: measure.SessionFigures{Completed: 600, Failed: 12, PerSecond: 29.94, Steps: 3000, ThinkS: 90, MeanSteps: 5, MeanThinkMS: 150,
					Duration: times(201.5, 216.3, 241.2), Active: times(51.4, 63.0, 90.2)}},
				{Scenario: "browse", SessionFigures: measure.SessionFigures{Completed: 200, PerSecond: 9.98, Steps: 1400, ThinkS: 30, MeanSteps: 7, MeanThinkMS: 150,
					Duration: times(181.0, 199.4, 220.7), Active: times(31.0, 49.4, 70.7)}},
			},
		},
		Client: measure.ClientStats{PoolMaxConns: 16, CPUS: 1.25},
	}
	if open {
		rate := 40.0
		p.Rate = &rate
		p.Concurrency = 400
		p.Sessions.StartLagMS = &measure.ScheduleLag{P99: 0.42, Max: 1.9}
		p.Sessions.Uncorrected = &measure.Uncorrected{P50MS: 195.9, P95MS: 214.1, P99MS: 239.0, MaxMS: 300}
		p.Sessions.Unstarted = 2
	}
	return &results.RunReport{
		Header:   results.Header{Schema: results.SchemaRun, StartedAt: time.Date(2026, 3, 4, 5, 6, 7, 0, time.UTC), Target: results.Target{URL: "http://127.0.0.1:3002/mcp", Transport: "http", ProtocolVersion: "2025-11-25"}},
		Workload: results.Workload{Mode: "closed", Scenario: "coding-agent.yaml"},
		Point:    p,
	}
}

// TestSessionRunGolden pins the per-scenario and per-step Markdown of a
// session run, closed and open loop, and its terminal summary.
func TestSessionRunGolden(t *testing.T) {
	for _, tt := range []struct {
		name string
		open bool
	}{{"run_sessions_closed", false}, {"run_sessions_open", true}} {
		t.Run(tt.name, func(t *testing.T) {
			r := sessionRun(tt.open)
			var md, txt bytes.Buffer
			if err := WriteRunMarkdown(&md, r); err != nil {
				t.Fatal(err)
			}
			golden(t, filepath.Join("testdata", tt.name+".md.golden"), md.Bytes())
			if err := WriteRunSummary(&txt, r); err != nil {
				t.Fatal(err)
			}
			golden(t, filepath.Join("testdata", tt.name+".txt.golden"), txt.Bytes())
		})
	}
}
