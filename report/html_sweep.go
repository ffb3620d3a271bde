package report

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/mcpbench/mcpbench/internal/textfmt"
	"github.com/mcpbench/mcpbench/measure"
	"github.com/mcpbench/mcpbench/results"
	"github.com/mcpbench/mcpbench/sweep"
)

// sweepPage lays out the HTML report of a sweep (or of merged shards).
func sweepPage(r *results.SweepReport) *htmlPage {
	page := &htmlPage{
		Title:    "mcpbench sweep: " + textfmt.OrDash(r.Target.URL),
		Subtitle: sweepSubtitle(r),
		Version:  r.MCPBenchVersion,
		Verdict:  sweepVerdict(r),
	}
	if len(r.Points) > 0 {
		pts, _ := chartedPoints(r.Points)
		tp, lat := loadCharts(r, pts)
		page.add(htmlSection{ID: "load", Title: "Throughput and latency against load", Charts: []*htmlChart{tp, lat}})
	}
	page.add(htmlSection{ID: "points", Title: "Points", Tables: []htmlTable{pointsTable(r)}})
	if len(r.Points) > 0 {
		page.add(htmlSection{ID: "spectrum", Title: "Latency by percentile at each level", Charts: []*htmlChart{sweepSpectra(r)}})
	}
	if s := sweepSeriesSection(r); s != nil {
		page.add(*s)
	}
	if t, ok := sweepOperations(r); ok {
		page.add(htmlSection{ID: "operations", Title: "By operation", Tables: []htmlTable{t}})
	}
	if s := serverSection(r.Health, r.LogScan); s != nil {
		page.add(*s)
	}
	if s := exemplarsSection(r.Exemplars); s != nil {
		page.add(*s)
	}
	page.Env = append(headerEnv(&r.Header), workloadEnv(r.Workload, nil), keyValues("SLO", [][2]string{{"SLO", results.SLOLine(r.SLO)}}))
	page.Env = append(page.Env, shardEnv(r.Shard, r.Merged)...)
	return page
}

func sweepSubtitle(r *results.SweepReport) string {
	parts := []string{fmt.Sprintf("%d load levels", len(r.Points)), "SLO " + results.SLOLine(r.SLO)}
	if r.Workload != nil {
		parts = append(parts, results.OperationsLine(r.Workload.Operations))
	}
	if s := startedText(r.StartedAt); s != "" {
		parts = append(parts, "started "+s)
	}
	return strings.Join(parts, " · ")
}

// sweepVerdict is the recommendation in plain words, with what a reader
// should know before acting on it.
func sweepVerdict(r *results.SweepReport) htmlVerdict {
	rec := r.Recommendation
	v := htmlVerdict{Level: levelPass}
	switch {
	case rec.RecommendedConcurrency != nil:
		v.Headline = "Recommended concurrency: " + strconv.Itoa(*rec.RecommendedConcurrency)
		if rec.MaxFeasibleConcurrency != nil && *rec.MaxFeasibleConcurrency != *rec.RecommendedConcurrency {
			v.Headline += fmt.Sprintf(" (the SLO held up to %d)", *rec.MaxFeasibleConcurrency)
		}
	case rec.MaxSustainableRPS != nil:
		v.Headline = "Highest sustainable rate: " + textfmt.Float(*rec.MaxSustainableRPS) + " rps"
	case len(r.Points) == 0:
		v.Level, v.Headline = levelWarn, "No points were measured"
	default:
		v.Level, v.Headline = levelFail, "No load level met the SLO ("+results.SLOLine(r.SLO)+")"
	}
	if rec.Reason != "" {
		v.Lines = append(v.Lines, upperFirst(rec.Reason)+".")
	}
	if r.Knee != nil {
		v.Lines = append(v.Lines, "Throughput stops scaling at concurrency "+strconv.Itoa(r.Knee.Concurrency)+" (knee, "+r.Knee.Method+").")
	}
	if u := r.USL; u != nil && u.PeakRPS != nil {
		v.Lines = append(v.Lines, "Universal Scalability Law fit: "+uslLine(u))
	}
	if r.Summary.ErrorTotal > 0 {
		v.Lines = append(v.Lines, fmt.Sprintf("%d requests failed over the sweep.", r.Summary.ErrorTotal))
	}
	for _, w := range sweepWarnings(r) {
		v.warn(w)
	}
	if r.Interrupted {
		v.warn("Interrupted: the analysis covers the points measured before the stop.")
	}
	v.addMerge(r.Merged)
	return v
}

func upperFirst(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

// levelText names a point's load: "concurrency 8" or "200 rps".
func levelText(p *measure.Point) string {
	if p.Rate != nil {
		return textfmt.Float(*p.Rate) + " rps"
	}
	return "concurrency " + strconv.Itoa(p.Concurrency)
}

// chartedPoints are the points the load charts draw: the closed-loop ones,
// or the open-loop ones of a rate sweep (a report with both draws the
// closed loop, as the SVG does). open says which.
func chartedPoints(all []measure.Point) (pts []measure.Point, open bool) {
	var closed, rate []measure.Point
	for _, p := range all {
		if p.Rate != nil {
			rate = append(rate, p)
		} else {
			closed = append(closed, p)
		}
	}
	if len(closed) > 0 || len(rate) == 0 {
		return closed, false
	}
	return rate, true
}

// load is a point's place on the load axis.
func load(p *measure.Point) float64 {
	if p.Rate != nil {
		return *p.Rate
	}
	return float64(p.Concurrency)
}

// pointsTable has one row per point; points that miss the SLO are marked.
func pointsTable(r *results.SweepReport) htmlTable {
	t := htmlTable{Head: []string{"level", "requests", "ok", "errors", "error rate", "rps", "p50 ms", "p95 ms", "p99 ms", "max ms", "meets SLO"}}
	for i := range r.Points {
		p := &r.Points[i]
		mark := feasibleMark(*p, r.SLO)
		t.Rows = append(t.Rows, []string{levelText(p), strconv.FormatInt(p.Requests, 10), strconv.FormatInt(p.OK, 10), strconv.FormatInt(p.Errors, 10),
			textfmt.Percent(p.ErrorRate), fmt.Sprintf("%.1f", p.RPS), fmtMS(p.P50MS), fmtMS(p.P95MS), fmtMS(p.P99MS), fmtMS(p.MaxMS), mark})
		t.Bad = append(t.Bad, mark != "✓")
	}
	t.Numeric = numericColumns(len(t.Head), t.Rows)
	return t
}

// sweepSpectra is one spectrum chart with a picker over the points,
// showing the recommended level first.
func sweepSpectra(r *results.SweepReport) *htmlChart {
	var n int64
	anyOpen := false
	pairs := make([]histPair, len(r.Points))
	for i := range r.Points {
		c, u := pointHistograms(&r.Points[i])
		pairs[i] = histPair{c, u}
		n = max(n, histCount(c), histCount(u))
		anyOpen = anyOpen || r.Points[i].Uncorrected != nil
	}
	xs := spectrumX(n)
	c := newSpectrumChart(xs, anyOpen)
	c.Series = []htmlSeries{{Label: "latency", Color: hexP99}}
	if anyOpen {
		c.Series = []htmlSeries{{Label: "from intended send", Color: hexP99}, {Label: "from actual send", Color: hexRPS, Dash: true}}
	}
	for i := range r.Points {
		label, chosen := levelChoice(r, i)
		if chosen {
			c.Selected = i
		}
		ys := [][]jsNum{spectrumValues(pairs[i].corrected, xs)}
		if anyOpen {
			ys = append(ys, spectrumValues(pairs[i].uncorrected, xs))
		}
		c.Choices = append(c.Choices, htmlChoice{Label: label, Y: ys})
	}
	return c
}

// levelChoice is point i's label in a picker, and whether it is the one
// to show first: the recommended concurrency or the highest sustained
// rate.
func levelChoice(r *results.SweepReport, i int) (string, bool) {
	p, rec := &r.Points[i], r.Recommendation
	switch {
	case p.Rate == nil && rec.RecommendedConcurrency != nil && *rec.RecommendedConcurrency == p.Concurrency:
		return levelText(p) + " (recommended)", true
	case p.Rate != nil && rec.MaxSustainableRPS != nil && *rec.MaxSustainableRPS == p.RPS:
		return levelText(p) + " (highest sustained)", true
	}
	return levelText(p), false
}

// histPair is a point's two histograms, decoded once.
type histPair struct{ corrected, uncorrected *hdrhistogram.Histogram }

// sweepOperations is a mix's figures per operation at each level; ok is
// false when the sweep sent one operation only.
func sweepOperations(r *results.SweepReport) (htmlTable, bool) {
	var rows [][]string
	for i := range r.Points {
		_, lr := operationsTable(levelText(&r.Points[i]), r.Points[i].ByOperation)
		rows = append(rows, lr...)
	}
	head, _ := operationsTable("level", nil)
	return newTable("Each operation of the mix at each level", head, rows), len(rows) > 0
}

// loadCharts are throughput and latency against load, with the SLO, knee,
// recommendation and (closed loop) the USL model drawn in.
func loadCharts(r *results.SweepReport, pts []measure.Point) (throughput, latency *htmlChart) {
	loads := loadsOf(pts)
	open := len(pts) > 0 && pts[0].Rate != nil
	axis := loadAxis(loads)
	if open {
		axis = axisLinear // offered = achieved must read as a straight line
	}
	xLabel := "concurrency"
	if open {
		xLabel = "offered rate (rps)"
	}
	marks := loadMarks(r, open)
	ticks := jsNums(loadTicks(loads, axis))
	throughput = &htmlChart{ID: "throughput", Title: "Throughput", XAxis: axis, Ticks: ticks, XLabel: xLabel, YLabel: "throughput (rps)", VLines: marks}
	xs := loads
	if u := r.USL; u != nil && !open {
		xs = withSamples(loads, axis)
	}
	throughput.X = jsNums(xs)
	rps := valuesAt(xs, loads, pts, func(p *measure.Point) float64 { return p.RPS })
	if open {
		throughput.Series = append(throughput.Series, htmlSeries{Label: "offered", Color: hexGrey, Dash: true, Y: jsNums(loads)})
		throughput.Series = append(throughput.Series, htmlSeries{Label: "achieved", Color: hexRPS, Points: true, Y: rps})
	} else {
		throughput.Series = append(throughput.Series, htmlSeries{Label: "rps", Color: hexRPS, Points: true, Y: rps})
	}
	if u := r.USL; u != nil && !open {
		model := make([]jsNum, len(xs))
		for i, x := range xs {
			model[i] = jsNum(u.Predict(x))
		}
		throughput.Series = append(throughput.Series, htmlSeries{Label: fmt.Sprintf("USL fit (r² %.2f)", u.R2), Color: hexModel, Dash: true, Y: model})
	}
	latency = &htmlChart{ID: "latency", Title: "Latency", X: jsNums(loads), XAxis: axis, Ticks: ticks, XLabel: xLabel, YLabel: "latency (ms)", VLines: marks}
	if open {
		latency.Title = "Latency (from the intended send)"
	}
	latency.Series = []htmlSeries{
		{Label: "p50", Color: hexP50, Points: true, Y: valuesAt(loads, loads, pts, func(p *measure.Point) float64 { return p.P50MS })},
		{Label: "p95", Color: hexP95, Points: true, Y: valuesAt(loads, loads, pts, func(p *measure.Point) float64 { return p.P95MS })},
		{Label: "p99", Color: hexP99, Points: true, Y: valuesAt(loads, loads, pts, func(p *measure.Point) float64 { return p.P99MS })},
	}
	if miss := missesSLO(loads, pts, r.SLO); miss != nil {
		latency.Series = append(latency.Series, htmlSeries{Label: "misses SLO", Color: "#000000", Marks: true, Y: miss})
	}
	latency.YLog = wideRange(pts, r.SLO)
	latency.HLines = sloMarks(r.SLO)
	return throughput, latency
}

// loadMarks are the vertical lines: knee and recommendation, or the
// highest sustainable rate.
func loadMarks(r *results.SweepReport, open bool) []refMark {
	if open {
		if m := r.Recommendation.MaxSustainableRPS; m != nil {
			return []refMark{{At: *m, Label: "max sustainable " + textfmt.Float(*m), Color: hexRec}}
		}
		return nil
	}
	k, rc := r.Knee, r.Recommendation.RecommendedConcurrency
	if k != nil && rc != nil && k.Concurrency == *rc {
		return []refMark{{At: float64(*rc), Label: "knee = recommended " + strconv.Itoa(*rc), Color: hexRec}}
	}
	var out []refMark
	if k != nil {
		out = append(out, refMark{At: float64(k.Concurrency), Label: "knee " + strconv.Itoa(k.Concurrency), Color: hexGrey})
	}
	if rc != nil {
		out = append(out, refMark{At: float64(*rc), Label: "recommended " + strconv.Itoa(*rc), Color: hexRec})
	}
	return out
}

func sloMarks(slo sweep.SLO) []refMark {
	var out []refMark
	if slo.P99MS > 0 {
		out = append(out, refMark{At: slo.P99MS, Label: "p99 SLO " + textfmt.Float(slo.P99MS) + " ms", Color: hexP99})
	}
	if slo.P95MS > 0 {
		out = append(out, refMark{At: slo.P95MS, Label: "p95 SLO " + textfmt.Float(slo.P95MS) + " ms", Color: hexP95})
	}
	return out
}

// wideRange reports whether latency spans enough to need a log axis:
// past saturation it is often 100 times the unloaded figure, which a
// linear axis would flatten into the bottom row.
func wideRange(pts []measure.Point, slo sweep.SLO) bool {
	lo, hi := math.Inf(1), 0.0
	for _, p := range pts {
		for _, v := range []float64{p.P50MS, p.P99MS, slo.P95MS, slo.P99MS} {
			if v > 0 && !math.IsInf(v, 0) {
				lo, hi = math.Min(lo, v), math.Max(hi, v)
			}
		}
	}
	return hi/lo >= 20
}

// withSamples adds evenly spread samples (in the axis's scale) to the
// loads, so a model curve between the points is drawn smooth.
func withSamples(loads []float64, axis string) []float64 {
	if len(loads) < 2 {
		return loads
	}
	lo, hi := loads[0], loads[len(loads)-1]
	const n = 60
	set := map[float64]bool{}
	for _, l := range loads {
		set[l] = true
	}
	for i := 0; i <= n; i++ {
		f := float64(i) / n
		x := lo + (hi-lo)*f
		if axis == axisLog {
			x = lo * math.Pow(hi/lo, f)
		}
		set[x] = true
	}
	return sortedSet(set)
}

// valuesAt puts the points' values on the x grid xs, gaps elsewhere.
func valuesAt(xs, loads []float64, pts []measure.Point, y func(*measure.Point) float64) []jsNum {
	vals := make([]jsNum, len(pts))
	for i := range pts {
		vals[i] = jsNum(y(&pts[i]))
	}
	return onGrid(xs, loads, vals)
}

// missesSLO marks the points that miss the SLO on the percentile that
// missed (p99 when only errors or the delivered rate failed); nil when all
// met it.
func missesSLO(loads []float64, pts []measure.Point, slo sweep.SLO) []jsNum {
	out := make([]jsNum, len(pts))
	anyMiss := false
	for i := range pts {
		p := &pts[i]
		out[i] = gap
		if feasibleMark(*p, slo) == "✓" {
			continue
		}
		anyMiss = true
		out[i] = jsNum(p.P99MS)
		if slo.P95MS > 0 && p.P95MS > slo.P95MS {
			out[i] = jsNum(p.P95MS)
		}
	}
	if !anyMiss {
		return nil
	}
	return out
}

// sortedSet is the set's members in ascending order.
func sortedSet(set map[float64]bool) []float64 {
	out := make([]float64, 0, len(set))
	for v := range set {
		out = append(out, v)
	}
	slices.Sort(out)
	return out
}
