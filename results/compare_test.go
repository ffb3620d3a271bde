package results

import (
	"strings"
	"testing"

	"github.com/mcpbench/mcpbench/measure"
	"github.com/mcpbench/mcpbench/sweep"
)

func TestParseLimit(t *testing.T) {
	cases := []struct {
		in      string
		kind    MetricKind
		percent bool
		value   float64
		off     bool
		err     string
	}{
		{"10%", KindLatency, true, 10, false, ""},
		{" 2.5% ", KindRPS, true, 2.5, false, ""},
		{"5ms", KindLatency, false, 5, false, ""},
		{"1.5s", KindLatency, false, 1500, false, ""},
		{"250us", KindLatency, false, 0.25, false, ""},
		{"5", KindLatency, false, 5, false, ""},
		{"50", KindRPS, false, 50, false, ""},
		{"0.01", KindErrorRate, false, 0.01, false, ""},
		{"50%", KindErrorRate, true, 50, false, ""},
		{"off", KindLatency, false, 0, true, ""},
		{"none", KindErrorRate, false, 0, true, ""},
		{"5ms", KindRPS, false, 0, false, "want 10% or 50"},
		{"2", KindErrorRate, false, 0, false, "fraction 0..1"},
		{"-5%", KindLatency, false, 0, false, "percentage"},
		{"-1", KindRPS, false, 0, false, ">= 0"},
		{"NaN", KindRPS, false, 0, false, ">= 0"},
		{"fast", KindLatency, false, 0, false, "want 10%, 5ms"},
		{"", KindLatency, false, 0, false, "want"},
	}
	for _, c := range cases {
		l, err := ParseLimit(c.in, c.kind)
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("%q: error %v, want %q", c.in, err, c.err)
			}
			continue
		}
		if err != nil || l.Percent != c.percent || l.Value != c.value || l.Off != c.off {
			t.Errorf("%q: %+v %v", c.in, l, err)
		}
	}
}

func runWith(p95, p99, rps, errRate float64) *RunReport {
	return &RunReport{
		Header:   Header{Schema: SchemaRun, Target: Target{URL: "http://127.0.0.1:3002/mcp"}},
		Workload: Workload{Mode: "closed", Operations: []measure.Operation{{Method: "tools/list"}}},
		Point:    measure.Point{Concurrency: 8, RPS: rps, Latency: measure.Latency{P50MS: p95 / 2, P95MS: p95, P99MS: p99, MaxMS: p99 * 2, ErrorRate: errRate}},
	}
}

func verdicts(c *Comparison) map[string]string {
	m := map[string]string{}
	for _, ch := range c.Checks {
		m[ch.Scope+" "+ch.Metric] = ch.Verdict
	}
	return m
}

func TestCompareRuns(t *testing.T) {
	g := DefaultLimits()
	base := runWith(10, 20, 400, 0)
	if c := CompareRuns(base, runWith(10, 20, 400, 0), g); !c.Passed || c.Regressions != 0 {
		t.Fatalf("identical runs: %+v", c)
	}
	cases := []struct {
		name string
		cur  *RunReport
		g    func(*Limits)
		want map[string]string
	}{
		{"p95 up 20% against 10%", runWith(12, 20, 400, 0), nil, map[string]string{"run p95_ms": VerdictRegression, "run p99_ms": VerdictPass}},
		{"p95 up 20% against 5ms", runWith(12, 20, 400, 0), func(g *Limits) { g.P95, _ = ParseLimit("5ms", KindLatency) }, map[string]string{"run p95_ms": VerdictPass}},
		{"p95 up 20% against off", runWith(12, 20, 400, 0), func(g *Limits) { g.P95.Off = true }, map[string]string{"run p95_ms": VerdictInfo}},
		{"faster is never a failure", runWith(1, 2, 4000, 0), nil, map[string]string{"run p95_ms": VerdictImproved, "run p99_ms": VerdictImproved, "run rps": VerdictImproved}},
		{"rps down 15%", runWith(10, 20, 340, 0), nil, map[string]string{"run rps": VerdictRegression}},
		{"rps down 5%", runWith(10, 20, 380, 0), nil, map[string]string{"run rps": VerdictPass}},
		{"rps down 60 against 50", runWith(10, 20, 340, 0), func(g *Limits) { g.RPS, _ = ParseLimit("50", KindRPS) }, map[string]string{"run rps": VerdictRegression}},
		{"errors up 2 points", runWith(10, 20, 400, 0.02), nil, map[string]string{"run error_rate": VerdictRegression}},
		{"errors up half a point", runWith(10, 20, 400, 0.005), nil, map[string]string{"run error_rate": VerdictPass}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			g := DefaultLimits()
			if c.g != nil {
				c.g(&g)
			}
			cmp := CompareRuns(base, c.cur, g)
			got := verdicts(cmp)
			fail := false
			for k, v := range c.want {
				if got[k] != v {
					t.Errorf("%s: %s, want %s", k, got[k], v)
				}
				fail = fail || v == VerdictRegression
			}
			if cmp.Passed == fail {
				t.Errorf("passed %v with verdicts %v", cmp.Passed, got)
			}
		})
	}
}

func sweepWith(rps []float64, p95 []float64) *SweepReport {
	var pts []measure.Point
	for i := range rps {
		pts = append(pts, measure.Point{Concurrency: 1 << i, RPS: rps[i], Latency: measure.Latency{Requests: 100, OK: 100, P95MS: p95[i], P99MS: p95[i]}})
	}
	r := NewSweepReport(Header{Target: Target{URL: "http://x/mcp"}}, pts, sweep.SLO{P95MS: 50})
	return r
}

func TestCompareSweeps(t *testing.T) {
	base := sweepWith([]float64{100, 200, 400, 420, 430}, []float64{10, 10, 10, 20, 40})
	if c := CompareSweeps(base, base, DefaultLimits()); !c.Passed {
		t.Fatalf("identical sweeps: %+v", c.Checks)
	}
	// The same server, slower: concurrency 16 now misses the SLO.
	cur := sweepWith([]float64{100, 200, 400, 420, 430}, []float64{10, 10, 10, 20, 60})
	c := CompareSweeps(base, cur, DefaultLimits())
	v := verdicts(c)
	if c.Passed || v["recommendation max_feasible_concurrency"] != VerdictRegression || v["concurrency 16 p95_ms"] != VerdictRegression {
		t.Errorf("verdicts %v", v)
	}
	// The best feasible rps fell from 430 to 420, so 4 workers now come
	// within 5% of it: the recommendation drops from 8 to 4.
	if v["recommendation recommended_concurrency"] != VerdictRegression || v["knee concurrency"] != VerdictInfo {
		t.Errorf("verdicts %v", v)
	}
	// Better everywhere, and a point only the new sweep measured.
	better := sweepWith([]float64{110, 220, 440, 600, 800, 900}, []float64{5, 5, 5, 10, 20, 30})
	c = CompareSweeps(base, better, DefaultLimits())
	if !c.Passed || len(c.Notes) != 1 || !strings.Contains(c.Notes[0], "concurrency 32") {
		t.Errorf("better sweep: passed %v notes %q verdicts %v", c.Passed, c.Notes, verdicts(c))
	}
}

func TestReadReportRefusesOtherKinds(t *testing.T) {
	for in, want := range map[string]string{
		`{"schema":"mcpbench.probe/v1"}`: "only run and sweep",
		`{"points":[]}`:                  "no schema",
		`not json`:                       "not a JSON report",
	} {
		if _, err := ReadReport(strings.NewReader(in)); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want %q", in, err, want)
		}
	}
}
