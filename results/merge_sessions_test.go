package results

import (
	"slices"
	"strings"
	"testing"
	"time"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/mcpbench/mcpbench/internal/hist"
	"github.com/mcpbench/mcpbench/measure"
)

// sessionSteps are the steps of the session reports below.
var sessionSteps = []measure.Operation{
	{Method: "initialize", Scenario: "agent", Step: "initialize"},
	{Method: "tools/call", Tool: "echo", Scenario: "agent", Step: "first"},
}

// sessionShards records vals round-robin into k session reports: each
// value is a latency of both steps (the second's ten times longer) and
// one session of the agent scenario (a hundred times longer, half of it
// think time).
func sessionShards(t *testing.T, vals []int64, k int) []*RunReport {
	t.Helper()
	start := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	rs := make([]*RunReport, k)
	for i := range rs {
		steps := []*hdrhistogram.Histogram{hist.New(), hist.New()}
		all, dur, act := hist.New(), hist.New(), hist.New()
		n := int64(0)
		for j := i; j < len(vals); j += k {
			steps[0].RecordValue(vals[j])
			steps[1].RecordValue(10 * vals[j])
			all.RecordValue(vals[j])
			all.RecordValue(10 * vals[j])
			dur.RecordValue(100 * vals[j])
			act.RecordValue(50 * vals[j])
			n++
		}
		p := measure.Point{Concurrency: 4, ElapsedS: 1, Hist: all, Latency: measure.Latency{Requests: 2 * n, OK: 2 * n, ErrorsByKind: map[string]int64{}}}
		p.Latency.FillPercentiles(all)
		p.Histogram, _ = hist.Encode(all)
		for s, h := range steps {
			o := measure.OperationStats{Operation: sessionSteps[s], Latency: measure.Latency{Requests: n, OK: n, ErrorsByKind: map[string]int64{}}, RPS: float64(n)}
			o.FillPercentiles(h)
			o.Histogram, _ = hist.Encode(h)
			p.ByOperation = append(p.ByOperation, o)
		}
		sc := measure.ScenarioStats{Scenario: "agent", SessionFigures: measure.SessionFigures{Completed: n, Steps: 2 * n, ThinkS: float64(n)}}
		sc.Duration.Fill(dur)
		sc.Active.Fill(act)
		sc.Means(1)
		p.Sessions = &measure.SessionStats{Started: n, SessionFigures: sc.SessionFigures, ByScenario: []measure.ScenarioStats{sc}}
		rs[i] = &RunReport{
			Header:   Header{Schema: SchemaRun, StartedAt: start, Target: Target{URL: "http://10.0.0.1:3002/mcp"}},
			Workload: Workload{Mode: "closed", Operations: sessionSteps, Scenario: "agent.yaml"},
			Point:    p,
			Shard:    &Shard{Index: i, Count: k},
		}
	}
	return rs
}

// TestMergeSessionsIsExactPerStep: merging the reports of two session runs
// gives each step, and the session durations, the percentiles of all
// their values together, not an upper bound; counts and rates add up.
func TestMergeSessionsIsExactPerStep(t *testing.T) {
	vals := latencies(10_000)
	whole := []*hdrhistogram.Histogram{hist.New(), hist.New(), hist.New()}
	for _, v := range vals {
		whole[0].RecordValue(v)
		whole[1].RecordValue(10 * v)
		whole[2].RecordValue(100 * v)
	}
	m, _, err := MergeRuns(sessionShards(t, vals, 2), MergeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Merged.Notes) != 0 {
		t.Fatalf("notes %q: the merge says it is not exact", m.Merged.Notes)
	}
	for s := range sessionSteps {
		got := m.ByOperation[s]
		var want measure.Latency
		want.FillPercentiles(whole[s])
		if got.Requests != int64(len(vals)) || got.P50MS != want.P50MS || got.P90MS != want.P90MS || got.P99MS != want.P99MS ||
			got.P999MS != want.P999MS || got.MeanMS != want.MeanMS || got.MaxMS != want.MaxMS || got.Histogram == "" {
			t.Errorf("step %s: merged %+v\nwant %+v", got.Step, got.Latency, want)
		}
	}
	var want measure.SessionTimes
	want.Fill(whole[2])
	s := m.Sessions
	if s.Completed != int64(len(vals)) || s.Steps != 2*int64(len(vals)) || s.MeanSteps != 2 || s.MeanThinkMS != 1000 {
		t.Fatalf("sessions %+v", s)
	}
	if s.Duration.P50MS != want.P50MS || s.Duration.P99MS != want.P99MS || s.Duration.MeanMS != want.MeanMS ||
		s.ByScenario[0].Duration.P99MS != want.P99MS || s.PerSecond != s.ByScenario[0].PerSecond || s.PerSecond <= 0 {
		t.Errorf("session duration merged %+v, want %+v", s.Duration, want)
	}

	// A step without its histogram makes the merge say so.
	rs := sessionShards(t, vals, 2)
	rs[1].ByOperation[1].Histogram = ""
	rs[1].Sessions.ByScenario[0].Duration.Histogram = ""
	m, _, err = MergeRuns(rs, MergeOptions{})
	if err != nil || !slices.Contains(m.Merged.Notes, noteByOperation) || !slices.Contains(m.Merged.Notes, noteSessions) {
		t.Fatalf("notes %q, %v", m.Merged.Notes, err)
	}

	// Reports of different scenarios are not one load.
	rs = sessionShards(t, vals, 2)
	rs[1].Sessions.ByScenario[0].Scenario = "other"
	if _, _, err := MergeRuns(rs, MergeOptions{}); err == nil || !strings.Contains(err.Error(), `scenario 1 is "other"`) {
		t.Fatalf("different scenarios: %v", err)
	}
}

// TestCompareSessionsPerStep: compare gates each step both reports ran,
// and the session rate.
func TestCompareSessionsPerStep(t *testing.T) {
	base := sessionShards(t, latencies(2000), 1)[0]
	cur := sessionShards(t, latencies(2000), 1)[0]
	cur.ByOperation[1].P95MS *= 2
	cur.Sessions.PerSecond = base.Sessions.PerSecond / 2
	c := CompareRuns(base, cur, DefaultLimits())
	var regressions []string
	for _, ch := range c.Checks {
		if ch.Verdict == VerdictRegression {
			regressions = append(regressions, ch.Scope+" "+ch.Metric)
		}
	}
	if got := strings.Join(regressions, "; "); got != "run sessions_per_s; step agent/first p95_ms" {
		t.Fatalf("regressions: %s", got)
	}
}
