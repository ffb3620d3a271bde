package report

import (
	"bytes"
	"encoding/json"
	"html"
	"strings"
	"testing"
	"time"

	"github.com/mcpbench/mcpbench/ab"
	"github.com/mcpbench/mcpbench/abstat"
	"github.com/mcpbench/mcpbench/results"
)

// abReport is an A/B report of three rounds: B slower and dearer, its CPU
// unknown in the last round, with the verdicts given.
func abReport(verdicts ...abstat.Result) *results.ABReport {
	cpu := func(v float64) *float64 { return &v }
	r := &results.ABReport{
		Schema: results.SchemaAB, StartedAt: time.Date(2026, 11, 28, 12, 0, 0, 0, time.UTC),
		A: results.ABSide{URL: "http://127.0.0.1:3001/mcp"}, B: results.ABSide{URL: "http://127.0.0.1:3002/mcp"},
		Workload: "tools/call echo, closed loop, 4 workers, 2s per side and round",
	}
	r.Seed, r.Stopped, r.Seconds = 47, ab.StopMaxRounds, 30
	r.Settings.Gated = []abstat.Metric{abstat.Throughput, abstat.P50, abstat.ServerCPUPerRequest}
	r.Settings.Plan = abstat.Plan{Alpha: 0.01, NoChangeAlpha: 0.05, MinEffect: 0.02, MinRounds: 2, MaxRounds: 3}
	r.Settings.AlarmAlpha = 0.02 / 3
	for i := range 3 {
		rd := ab.Round{Index: i + 1, Order: [2]ab.Side{ab.A, ab.B},
			A: ab.Figures{Requests: 1000, Throughput: 500, P50MS: 2, ServerCPUPerRequest: cpu(0.0002)},
			B: ab.Figures{Requests: 900, Throughput: 450, P50MS: 2.2, ServerCPUPerRequest: cpu(0.00025)}}
		if i == 1 {
			rd.Order = [2]ab.Side{ab.B, ab.A}
		}
		if i == 2 {
			rd.A.ServerCPUPerRequest, rd.B.ServerCPUPerRequest = nil, nil
		}
		r.Rounds = append(r.Rounds, rd)
	}
	r.Verdicts = verdicts
	return r
}

// TestABReports: the verdicts decide the headline, the HTML page's level
// and JUnit's failures: a gated regression fails, an ungated one does
// not, an undecided gated metric only with --fail-on-inconclusive.
func TestABReports(t *testing.T) {
	reg := func(m abstat.Metric) abstat.Result {
		return abstat.Result{Metric: m, Verdict: abstat.Regression, Change: 0.1, Low: 0.05, High: 0.15, P: 0.01, Alpha: 0.03, Rounds: 3}
	}
	same := func(m abstat.Metric) abstat.Result {
		return abstat.Result{Metric: m, Verdict: abstat.NoChange, Low: -0.01, High: 0.01, P: 0.9, Alpha: 0.03, Rounds: 3}
	}
	undecided := abstat.Result{Metric: abstat.P50, Verdict: abstat.Inconclusive, Change: 0.03, Low: -0.05, High: 0.1, P: 0.2, Alpha: 0.03, Rounds: 3}
	for _, c := range []struct {
		name     string
		r        *results.ABReport
		failOnIn bool
		headline string
		failures int
	}{
		{"gated regression", abReport(reg(abstat.Throughput), same(abstat.P50), reg(abstat.ServerCPUPerRequest)), false, "B regressed on 2 gated metric(s)", 2},
		{"ungated regression", abReport(same(abstat.Throughput), same(abstat.P50), reg(abstat.P99), same(abstat.ServerCPUPerRequest)), false, "no regression of B", 0},
		{"inconclusive", abReport(same(abstat.Throughput), undecided, same(abstat.ServerCPUPerRequest)), false, "inconclusive", 0},
		{"inconclusive failed on", abReport(same(abstat.Throughput), undecided, same(abstat.ServerCPUPerRequest)), true, "inconclusive", 1},
	} {
		t.Run(c.name, func(t *testing.T) {
			c.r.FailOnInconclusive = c.failOnIn
			c.r.GateFailed = c.r.Result.GateFailed(c.failOnIn)
			var md, junit, page, sum, js bytes.Buffer
			for _, w := range []struct {
				b     *bytes.Buffer
				write func(*bytes.Buffer, *results.ABReport) error
			}{
				{&md, func(b *bytes.Buffer, r *results.ABReport) error { return WriteABMarkdown(b, r) }},
				{&junit, func(b *bytes.Buffer, r *results.ABReport) error { return WriteABJUnit(b, r) }},
				{&page, func(b *bytes.Buffer, r *results.ABReport) error { return WriteABHTML(b, r) }},
				{&sum, func(b *bytes.Buffer, r *results.ABReport) error { return WriteABSummary(b, r) }},
				{&js, func(b *bytes.Buffer, r *results.ABReport) error { return WriteABJSON(b, r) }},
			} {
				if err := w.write(w.b, c.r); err != nil {
					t.Fatal(err)
				}
			}
			if !strings.Contains(md.String(), "## mcpbench ab: "+c.headline) || !strings.Contains(sum.String(), c.headline) {
				t.Errorf("headline %q:\n%s\n%s", c.headline, md.String(), sum.String())
			}
			if got := strings.Count(junit.String(), "<failure "); got != c.failures {
				t.Errorf("%d JUnit failures, want %d:\n%s", got, c.failures, junit.String())
			}
			if !strings.Contains(md.String(), "alpha 0.01 for the gate (each of 3 gated metrics tested at 0.00667), no-change alpha 0.05") || !strings.Contains(md.String(), "| BA    |") {
				t.Errorf("markdown:\n%s", md.String())
			}
			text := html.UnescapeString(page.String())
			for _, want := range []string{c.headline, "Rounds in run order", "alpha 0.01 for the gate", "tools/call echo"} {
				if !strings.Contains(text, want) {
					t.Errorf("page lacks %q", want)
				}
			}
			checkSelfContained(t, page.String())
			charts := chartData(t, page.String())
			for _, id := range []string{"ab-rps", "ab-p50", "ab-cpu", "ab-ratio"} {
				if _, ok := charts[id]; !ok {
					t.Errorf("no chart %q", id)
				}
			}
			raw := map[string]json.RawMessage{}
			_ = json.Unmarshal(js.Bytes(), &raw)
			if string(raw["alpha_per_metric"]) != "false" {
				t.Errorf("alpha_per_metric %s", raw["alpha_per_metric"])
			}
			back, err := results.ReadABReport(&js)
			if err != nil || len(back.Rounds) != 3 || back.Rounds[2].A.ServerCPUPerRequest != nil {
				t.Errorf("JSON read back: %v %+v", err, back)
			}
		})
	}
}

// TestABPlanLineSaysHowRoundsRan: the Markdown says when rounds were
// taken in turns, the servers started afresh and the plan fitted to the
// budget, and says none of it when they were not.
func TestABPlanLineSaysHowRoundsRan(t *testing.T) {
	r := abReport()
	var plain, turns bytes.Buffer
	if err := WriteABMarkdown(&plain, r); err != nil {
		t.Fatal(err)
	}
	r.Settings.SliceSeconds, r.Settings.Restarted, r.Settings.AskedRounds = 0.1, true, 40
	if err := WriteABMarkdown(&turns, r); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"each round in turns of 100ms", "servers started afresh each round", "rounds 2 to 3 (of 40 asked: what the budget holds)"} {
		if !strings.Contains(turns.String(), want) || strings.Contains(plain.String(), want) {
			t.Errorf("%q: in turns' page %v, in the plain one %v", want, strings.Contains(turns.String(), want), strings.Contains(plain.String(), want))
		}
	}
}
