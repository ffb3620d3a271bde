package report

import (
	"fmt"
	"io"
	"math"

	"github.com/mcpbench/mcpbench/abstat"
	"github.com/mcpbench/mcpbench/results"
)

// WriteABHTML writes the A/B report as one self-contained HTML page: the
// verdict, A and B round by round in run order, their ratios, the
// verdict table and the settings.
func WriteABHTML(w io.Writer, r *results.ABReport) error { return writePage(w, abPage(r)) }

func abPage(r *results.ABReport) *htmlPage {
	page := &htmlPage{
		Title:    "mcpbench ab",
		Subtitle: "A " + r.A.URL + " against B " + r.B.URL,
		Version:  r.MCPBenchVersion,
		Verdict:  abVerdict(r),
	}
	page.add(htmlSection{ID: "verdicts", Title: "Verdicts",
		Intro:  []string{abPlanLine(r) + "."},
		Tables: []htmlTable{newTable("", abVerdictHead, abVerdictRows(r))}})
	if len(r.Rounds) > 0 {
		page.add(htmlSection{ID: "rounds", Title: "Rounds in run order",
			Intro:  []string{"Each round measured A and B once, in the order shown (AB or BA), drawn anew each round from the seed."},
			Charts: abCharts(r),
			Tables: []htmlTable{newTable("", abRoundHead(), abRoundRows(r))}})
	}
	page.Env = []htmlTable{keyValues("Experiment", [][2]string{
		{"A", r.A.URL}, {"A command", r.A.Command}, {"A CPU", r.A.CPU}, {"A server output", r.A.ServerLog},
		{"B", r.B.URL}, {"B command", r.B.Command}, {"B CPU", r.B.CPU}, {"B server output", r.B.ServerLog},
		{"workload", r.Workload}, {"rounds", abStopText(r)}, {"seed", fmt.Sprint(r.Seed)},
		{"started", startedText(r.StartedAt)},
	})}
	return page
}

// abCharts are A and B side by side per round for each metric measured,
// then the ratios.
func abCharts(r *results.ABReport) []*htmlChart {
	var out []*htmlChart
	for _, c := range []*htmlChart{
		abSideChart(r, "ab-rps", "Throughput", "requests/s", abstat.Throughput),
		abSideChart(r, "ab-p50", "p50 latency", "ms", abstat.P50),
		abSideChart(r, "ab-cpu", "Server CPU per request", "ms", abstat.ServerCPUPerRequest),
		abRatioChart(r),
	} {
		if c != nil {
			out = append(out, c)
		}
	}
	return out
}

func abVerdict(r *results.ABReport) htmlVerdict {
	v := htmlVerdict{Level: levelPass, Headline: abHeadline(r)}
	switch {
	case r.GateFailed:
		v.Level = levelFail
	case r.Inconclusive():
		v.Level = levelWarn
	}
	v.Lines = append(v.Lines, abStopText(r))
	if r.Error != "" {
		v.Lines = append(v.Lines, "error: "+r.Error)
	}
	return v
}

// abSideChart draws metric m of A and B against the round; nil (no
// chart) when no round has it.
func abSideChart(r *results.ABReport, id, title, unit string, m abstat.Metric) *htmlChart {
	scale := 1.0
	if m == abstat.ServerCPUPerRequest {
		scale = 1000 // seconds to ms
	}
	var xs, a, b []float64
	known := false
	for _, rd := range r.Rounds {
		xs = append(xs, float64(rd.Index))
		a, b = append(a, scale*rd.A.Value(m)), append(b, scale*rd.B.Value(m))
		known = known || !math.IsNaN(rd.A.Value(m))
	}
	if !known {
		return nil
	}
	return &htmlChart{ID: id, Title: title, X: jsNums(xs), XAxis: "round", XLabel: "round", YLabel: unit, YFit: true,
		Series: []htmlSeries{{Label: "A", Color: hexBase, Y: jsNums(a)}, {Label: "B", Color: hexNew, Y: jsNums(b)}}}
}

// abRatioChart draws each round's B/A of the gated-by-default metrics,
// with 1 marked.
func abRatioChart(r *results.ABReport) *htmlChart {
	var xs []float64
	for _, rd := range r.Rounds {
		xs = append(xs, float64(rd.Index))
	}
	c := &htmlChart{ID: "ab-ratio", Title: "B/A by round", X: jsNums(xs), XAxis: "round", XLabel: "round", YLabel: "B/A", YFit: true,
		HLines: []refMark{{At: 1, Label: "no change", Color: hexGrey}}}
	for _, s := range []struct {
		m     abstat.Metric
		color string
	}{{abstat.Throughput, hexRPS}, {abstat.P50, hexP50}, {abstat.P95, hexP95}, {abstat.ServerCPUPerRequest, hexTrend}} {
		ys := make([]float64, len(r.Rounds))
		for i := range r.Rounds {
			ys[i] = r.Ratio(i, s.m)
		}
		c.Series = append(c.Series, htmlSeries{Label: abMetricNames[s.m], Color: s.color, Y: jsNums(ys)})
	}
	return c
}
