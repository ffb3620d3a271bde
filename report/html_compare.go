package report

import (
	"fmt"
	"strings"

	"github.com/mcpbench/mcpbench/internal/textfmt"
	"github.com/mcpbench/mcpbench/measure"
	"github.com/mcpbench/mcpbench/results"
)

// comparePage lays out the HTML page of a comparison: the verdict, then,
// when the comparison carries the two reports, their charts overlaid (base
// dashed, new solid), then every check.
func comparePage(c *results.Comparison) *htmlPage {
	page := &htmlPage{
		Title:    "mcpbench compare (" + c.Kind + ")",
		Subtitle: textfmt.OrDash(c.Base.Target) + ": " + sideName(c.Base, "base") + " against " + sideName(c.New, "new"),
		Version:  c.MCPBenchVersion,
		Verdict:  compareVerdict(c),
	}
	base, cur := c.BaseReport, c.NewReport
	switch {
	case base.Run != nil && cur.Run != nil:
		for _, s := range runSeriesOverlays(base.Run, cur.Run) {
			page.add(s)
		}
		page.add(htmlSection{ID: "spectrum", Title: "Latency by percentile", Charts: []*htmlChart{spectrumOverlay(&base.Run.Point, &cur.Run.Point)}})
	case base.Sweep != nil && cur.Sweep != nil:
		tp, lat := sweepOverlay(base.Sweep, cur.Sweep)
		page.add(htmlSection{ID: "load", Title: "Throughput and latency against load", Charts: []*htmlChart{tp, lat}})
		if sp := sweepSpectrumOverlay(base.Sweep, cur.Sweep); sp != nil {
			page.add(htmlSection{ID: "spectrum", Title: "Latency by percentile at each level both measured", Charts: []*htmlChart{sp}})
		}
	}
	page.add(htmlSection{ID: "checks", Title: "Checks", Tables: []htmlTable{checksTable(c)}})
	page.Env = []htmlTable{compareEnv(c)}
	return page
}

// sideName is how the page names one side: its file, else its role.
func sideName(s results.Source, role string) string {
	if s.Path != "" {
		return s.Path
	}
	return role
}

func compareVerdict(c *results.Comparison) htmlVerdict {
	gated := 0
	for i := range c.Checks {
		if c.Checks[i].Gated {
			gated++
		}
	}
	if c.Passed {
		v := htmlVerdict{Level: levelPass, Headline: fmt.Sprintf("No regression: %d gated figures within their limits", gated)}
		if len(c.Notes) > 0 {
			v.Level = levelWarn
			v.Lines = append(v.Lines, c.Notes...)
		}
		return v
	}
	v := htmlVerdict{Level: levelFail, Headline: fmt.Sprintf("%d regression(s) of %d gated figures", c.Regressions, gated)}
	for i := range c.Checks {
		ch := &c.Checks[i]
		if ch.Verdict == results.VerdictRegression {
			v.Lines = append(v.Lines, fmt.Sprintf("%s: %s (%s → %s)", ch.Scope, ch.Reason, checkValue(ch, ch.Base), checkValue(ch, ch.New)))
		}
	}
	return htmlVerdict{Level: v.Level, Headline: v.Headline, Lines: append(v.Lines, c.Notes...)}
}

func checksTable(c *results.Comparison) htmlTable {
	t := htmlTable{Head: []string{"scope", "figure", "base", "new", "change", "limit", "verdict"}}
	for i := range c.Checks {
		ch := &c.Checks[i]
		t.Rows = append(t.Rows, []string{ch.Scope, ch.Metric, checkValue(ch, ch.Base), checkValue(ch, ch.New), ch.ChangeText(), textfmt.OrDash(ch.Limit), verdictWord(ch.Verdict)})
		t.Bad = append(t.Bad, ch.Verdict == results.VerdictRegression)
	}
	t.Numeric = numericColumns(len(t.Head), t.Rows)
	return t
}

// verdictWord is a check's verdict for the HTML table, in words: the
// Markdown's emoji need a colour-emoji font the reader may not have.
func verdictWord(v string) string {
	switch v {
	case results.VerdictRegression:
		return "REGRESSION"
	case results.VerdictImproved, results.VerdictPass:
		return v
	}
	return "–"
}

// compareEnv puts the two sides' environments next to each other.
func compareEnv(c *results.Comparison) htmlTable {
	rows := [][]string{
		{"file", c.Base.Path, c.New.Path},
		{"mcpbench", c.Base.MCPBenchVersion, c.New.MCPBenchVersion},
		{"started", startedText(c.Base.StartedAt), startedText(c.New.StartedAt)},
		{"target", c.Base.Target, c.New.Target},
	}
	bh, nh := reportHeader(c.BaseReport), reportHeader(c.NewReport)
	if bh != nil && nh != nil {
		rows = append(rows,
			[]string{"transport", bh.Target.Transport, nh.Target.Transport},
			[]string{"protocol revision", bh.Target.ProtocolVersion, nh.Target.ProtocolVersion},
			[]string{"server", strings.TrimSpace(bh.Target.ServerName + " " + bh.Target.ServerVersion), strings.TrimSpace(nh.Target.ServerName + " " + nh.Target.ServerVersion)},
		)
	}
	if b, n := c.BaseReport.Run, c.NewReport.Run; b != nil && n != nil {
		rows = append(rows,
			[]string{"load", loadText(&b.Point), loadText(&n.Point)},
			[]string{"operations", results.OperationsLine(b.Workload.Operations), results.OperationsLine(n.Workload.Operations)},
		)
	}
	if b, n := c.BaseReport.Sweep, c.NewReport.Sweep; b != nil && n != nil {
		rows = append(rows, []string{"SLO", results.SLOLine(b.SLO), results.SLOLine(n.SLO)})
	}
	for _, r := range rows {
		r[1], r[2] = textfmt.OrDash(r[1]), textfmt.OrDash(r[2])
	}
	return htmlTable{Caption: "Base and new", Head: []string{"", "base", "new"}, Rows: rows}
}

func reportHeader(r results.Report) *results.Header {
	switch {
	case r.Run != nil:
		return &r.Run.Header
	case r.Sweep != nil:
		return &r.Sweep.Header
	}
	return nil
}

// spectrumOverlay draws both runs' percentile spectra on one axis.
func spectrumOverlay(base, cur *measure.Point) *htmlChart {
	bc, bu := pointHistograms(base)
	nc, nu := pointHistograms(cur)
	xs := spectrumX(max(histCount(bc), histCount(bu), histCount(nc), histCount(nu)))
	open := base.Uncorrected != nil || cur.Uncorrected != nil
	c := newSpectrumChart(xs, open)
	c.Series = []htmlSeries{
		{Label: "base", Color: hexBase, Dash: true, Y: spectrumValues(bc, xs)},
		{Label: "new", Color: hexNew, Y: spectrumValues(nc, xs)},
	}
	if open {
		c.Series[0].Label, c.Series[1].Label = "base, from intended send", "new, from intended send"
		c.Series = append(c.Series,
			htmlSeries{Label: "base, from actual send", Color: hexModel, Dash: true, Y: spectrumValues(bu, xs)},
			htmlSeries{Label: "new, from actual send", Color: hexP95, Y: spectrumValues(nu, xs)},
		)
	}
	return c
}

// sweepOverlay draws both sweeps' throughput and latency against load,
// over the levels either measured.
func sweepOverlay(base, cur *results.SweepReport) (throughput, latency *htmlChart) {
	bp, open := chartedPoints(base.Points)
	np, _ := chartedPoints(cur.Points)
	set := map[float64]bool{}
	bl, nl := loadsOf(bp), loadsOf(np)
	for _, l := range append(append([]float64{}, bl...), nl...) {
		set[l] = true
	}
	xs := sortedSet(set)
	axis, xLabel := loadAxis(xs), "concurrency"
	if open {
		axis, xLabel = axisLinear, "offered rate (rps)"
	}
	at := func(loads []float64, pts []measure.Point, y func(*measure.Point) float64) []jsNum {
		return valuesAt(xs, loads, pts, y)
	}
	rps := func(p *measure.Point) float64 { return p.RPS }
	p50 := func(p *measure.Point) float64 { return p.P50MS }
	p99 := func(p *measure.Point) float64 { return p.P99MS }
	ticks := jsNums(loadTicks(xs, axis))
	throughput = &htmlChart{ID: "throughput", Title: "Throughput", X: jsNums(xs), XAxis: axis, Ticks: ticks, XLabel: xLabel, YLabel: "throughput (rps)",
		Series: []htmlSeries{
			{Label: "base", Color: hexBase, Dash: true, Points: true, Y: at(bl, bp, rps)},
			{Label: "new", Color: hexNew, Points: true, Y: at(nl, np, rps)},
		}}
	latency = &htmlChart{ID: "latency", Title: "Latency", X: jsNums(xs), XAxis: axis, Ticks: ticks, XLabel: xLabel, YLabel: "latency (ms)",
		Series: []htmlSeries{
			{Label: "base p50", Color: hexP50, Dash: true, Points: true, Y: at(bl, bp, p50)},
			{Label: "new p50", Color: hexP50, Points: true, Y: at(nl, np, p50)},
			{Label: "base p99", Color: hexP99, Dash: true, Points: true, Y: at(bl, bp, p99)},
			{Label: "new p99", Color: hexP99, Points: true, Y: at(nl, np, p99)},
		},
		HLines: sloMarks(cur.SLO),
		YLog:   wideRange(append(append([]measure.Point{}, bp...), np...), cur.SLO),
	}
	return throughput, latency
}

func loadsOf(pts []measure.Point) []float64 {
	out := make([]float64, len(pts))
	for i := range pts {
		out[i] = load(&pts[i])
	}
	return out
}

// sweepSpectrumOverlay is one spectrum chart with a picker over the
// levels both sweeps measured; nil when they share none.
func sweepSpectrumOverlay(base, cur *results.SweepReport) *htmlChart {
	type pair struct{ base, cur *measure.Point }
	var pairs []pair
	var n int64
	for i := range base.Points {
		for j := range cur.Points {
			b, c := &base.Points[i], &cur.Points[j]
			if levelText(b) == levelText(c) {
				pairs = append(pairs, pair{b, c})
			}
		}
	}
	if len(pairs) == 0 {
		return nil
	}
	decoded := make([][2]histPair, len(pairs))
	for i, p := range pairs {
		bc, bu := pointHistograms(p.base)
		nc, nu := pointHistograms(p.cur)
		decoded[i] = [2]histPair{{bc, bu}, {nc, nu}}
		n = max(n, histCount(bc), histCount(nc))
	}
	xs := spectrumX(n)
	c := newSpectrumChart(xs, false)
	c.Series = []htmlSeries{{Label: "base", Color: hexBase, Dash: true}, {Label: "new", Color: hexNew}}
	for i, p := range pairs {
		c.Choices = append(c.Choices, htmlChoice{Label: levelText(p.cur), Y: [][]jsNum{
			spectrumValues(decoded[i][0].corrected, xs), spectrumValues(decoded[i][1].corrected, xs),
		}})
	}
	return c
}
