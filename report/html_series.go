package report

import (
	"fmt"
	"math"
	"strings"

	"github.com/mcpbench/mcpbench/measure"
	"github.com/mcpbench/mcpbench/results"
)

// The over-time charts, from a point's time series (measure.Series): one
// value per interval bucket, drawn at the bucket's end.

// maxServerCharts bounds the server-side charts of a page: a Prometheus
// endpoint can name many metrics, and the page must stay readable.
const maxServerCharts = 12

// runSeriesSections are the over-time charts of a run: throughput and
// errors, latency, in flight and the generator's CPU, then each quantity
// sampled from the server. None for a report without a series.
func runSeriesSections(r *results.RunReport) []htmlSection {
	s := r.Point.Series
	if s == nil || s.Len() == 0 {
		return nil
	}
	if note := tooFewNote(s); note != "" {
		return []htmlSection{{ID: "over-time", Title: "Over time", Intro: []string{note}}}
	}
	lat := latencyOverTime(s)
	if t := trendFor(r.Soak, "p99_ms"); t != nil {
		lat.Series = append(lat.Series, trendLine(s, r.Soak, t, 1))
	}
	charts := []*htmlChart{throughputOverTime(s), lat, loadOverTime(s)}
	for _, c := range charts {
		c.VLines = append(c.VLines, stageMarks(&r.Point)...)
	}
	out := []htmlSection{{ID: "over-time", Title: "Over time", Intro: []string{seriesIntro(s)}, Charts: charts}}
	if charts := serverOverTime(s, r.Soak); len(charts) > 0 {
		out = append(out, htmlSection{ID: "server-over-time", Title: "Server over time", Intro: []string{serverIntro(s)}, Charts: charts})
	}
	if r.Soak != nil {
		sec := htmlSection{ID: "trends", Title: "Trends and leaks", Intro: soakIntro(r.Soak)}
		if t, ok := soakTable(r.Soak); ok {
			sec.Tables = append(sec.Tables, t)
		}
		out = append(out, sec)
	}
	return out
}

// runSeriesVerdicts are the warnings a run's time series give the verdict.
func runSeriesVerdicts(r *results.RunReport) []string {
	s := r.Point.Series
	if s == nil {
		return nil
	}
	out := soakVerdicts(r.Soak)
	// An absence before the first answer is the run's own start (a ramp,
	// sessions not yet ended), said in the intro, not a stall.
	for i := firstAnswered(s); i < s.Len(); i++ {
		if s.Requests(i) == 0 && i < s.Len()-1 {
			out = append(out, fmt.Sprintf("No request was answered between %s and %s s: the server stalled or the generator stopped.", seconds(float64(i)*s.IntervalS), seconds(s.EndS(i))))
			break
		}
	}
	return out
}

func seriesIntro(s *measure.Series) string {
	text := fmt.Sprintf("%d intervals of %s s each; every value is drawn at the end of its interval, and each column adds up to the run's totals.", s.Len(), seconds(s.IntervalS))
	if k := firstAnswered(s); k > 0 && k < s.Len() {
		text += fmt.Sprintf(" Nothing was answered in the first %s s: the run's own start (a ramp-up, or sessions that had not ended yet, since a session's requests count when it is measured), not a stall.", seconds(float64(k)*s.IntervalS))
	}
	if n := shown(s); n < s.Len() {
		text += fmt.Sprintf(" The last interval, cut to %s s by the end of the run, is not drawn: its few answers would make a spike of noise.", seconds(s.LastS))
	}
	return text
}

// firstAnswered is the first bucket with an answer (Len when none has).
func firstAnswered(s *measure.Series) int {
	for i := range s.Len() {
		if s.Requests(i) > 0 {
			return i
		}
	}
	return s.Len()
}

// tooFewNote says why a series is not drawn over time, when it has fewer
// than two intervals to draw: a line needs two points, and empty axes
// would read as a chart that failed. "" when it can be drawn.
func tooFewNote(s *measure.Series) string {
	n := shown(s)
	if n >= 2 {
		return ""
	}
	text := fmt.Sprintf("Too short to draw over time: all %s s fall in one interval of %s s", seconds(s.LastS), seconds(s.IntervalS))
	if s.Len() > n {
		text = fmt.Sprintf("Too short to draw over time: one interval of %s s and a last one cut to %s s (%d answers, no rate) by the end of the level",
			seconds(s.IntervalS), seconds(s.LastS), s.Requests(s.Len()-1))
	}
	return text + "; a line needs two. The figures are in the tables; a longer level or a shorter --interval draws one."
}

// shown is how many buckets the charts draw: all but a last one cut to
// under half an interval (the soak's trends leave it out too).
func shown(s *measure.Series) int {
	n := s.Len()
	if n > 1 && s.LastS < s.IntervalS/2 {
		return n - 1
	}
	return n
}

func serverIntro(s *measure.Series) string {
	sources := map[string]bool{}
	for _, ss := range s.Server {
		sources[ss.Source] = true
	}
	return "Sampled from " + strings.Join(sortedKeys(sources), ", ") + " at the end of each interval; counters are drawn as their increase per second."
}

func seconds(v float64) string {
	return strings.TrimSuffix(strings.TrimRight(fmt.Sprintf("%.3f", v), "0"), ".")
}

// seriesTimes are the buckets' ends, seconds from the start.
func seriesTimes(s *measure.Series) []float64 {
	xs := make([]float64, shown(s))
	for i := range xs {
		xs[i] = s.EndS(i)
	}
	return xs
}

// perBucket maps each bucket to a value; buckets without answers give a
// gap when answered is set (a percentile of nothing is not zero).
func perBucket(s *measure.Series, answered bool, f func(i int) float64) []jsNum {
	out := make([]jsNum, shown(s))
	for i := range out {
		if answered && s.Requests(i) == 0 {
			out[i] = gap
			continue
		}
		out[i] = jsNum(f(i))
	}
	return out
}

// rateAt is bucket i's answers per second of its own length (none for a
// last bucket cut short: measure.BucketRate).
func rateAt(s *measure.Series, i int) float64 {
	if s.Partial(i) {
		return math.NaN()
	}
	return float64(s.Requests(i)) / s.BucketS(i)
}

// errorsAt is bucket i's errors of every kind.
func errorsAt(s *measure.Series, i int) int64 {
	var n int64
	for _, col := range s.Errors {
		n += col[i]
	}
	return n
}

func timeChart(id, title, yLabel string, s *measure.Series) *htmlChart {
	return &htmlChart{ID: id, Title: title, X: jsNums(seriesTimes(s)), XAxis: axisSeconds, XLabel: "time since start", YLabel: yLabel}
}

func throughputOverTime(s *measure.Series) *htmlChart {
	c := timeChart("over-time-throughput", "Throughput and errors", "answers per second", s)
	c.Y2Label = "errors per second"
	c.Series = []htmlSeries{
		{Label: "rps", Color: hexRPS, Y: perBucket(s, false, func(i int) float64 { return rateAt(s, i) })},
		{Label: "errors/s", Color: hexError, Bars: true, Right: true, Y: perBucket(s, false, func(i int) float64 {
			if n := errorsAt(s, i); n > 0 {
				return float64(n) / s.BucketS(i)
			}
			return math.NaN() // no bar
		})},
	}
	return c
}

func latencyOverTime(s *measure.Series) *htmlChart {
	c := timeChart("over-time-latency", "Latency", "latency (ms)", s)
	c.Series = []htmlSeries{
		{Label: "p50", Color: hexP50, Y: perBucket(s, true, func(i int) float64 { return s.P50MS[i] })},
		{Label: "p95", Color: hexP95, Y: perBucket(s, true, func(i int) float64 { return s.P95MS[i] })},
		{Label: "p99", Color: hexP99, Y: perBucket(s, true, func(i int) float64 { return s.P99MS[i] })},
		{Label: "max", Color: hexLight, Dash: true, Y: perBucket(s, true, func(i int) float64 { return s.MaxMS[i] })},
	}
	return c
}

func loadOverTime(s *measure.Series) *htmlChart {
	c := timeChart("over-time-load", "In flight and generator CPU", "requests in flight", s)
	c.Y2Label = "generator CPU (% of one core)"
	c.Series = []htmlSeries{
		{Label: "in flight", Color: hexRec, Y: perBucket(s, false, func(i int) float64 { return float64(s.InFlight[i]) })},
		{Label: "generator CPU %", Color: hexGrey, Right: true, Y: perBucket(s, false, func(i int) float64 { return 100 * s.CPUS[i] / s.BucketS(i) })},
	}
	return c
}

// serverOverTime is one chart per sampled server quantity, in readable
// units: bytes as MB, counters as their increase per second, with the
// soak's trend drawn over a gauge that has one.
func serverOverTime(s *measure.Series, soak *results.Soak) []*htmlChart {
	var out []*htmlChart
	for k, ss := range s.Server {
		if k == maxServerCharts {
			break
		}
		scale, unit := 1.0, ss.Unit
		if ss.Unit == "bytes" {
			scale, unit = 1e-6, "MB" // as the trends table prints bytes
		}
		counter := ss.Kind == measure.GaugeCounter
		if counter {
			unit = strings.TrimSpace(unit + " per second")
		}
		c := timeChart(fmt.Sprintf("server-%d", k), ss.Name+" ("+ss.Source+")", unitLabel(unit), s)
		ys := make([]jsNum, shown(s))
		for i := range ys {
			v := math.NaN()
			if i < len(ss.Values) {
				v = ss.Values[i] * scale
				if counter {
					v /= s.BucketS(i)
				}
			}
			ys[i] = jsNum(v)
		}
		c.Series = []htmlSeries{{Label: ss.Name, Color: hexModel, Y: ys}}
		if t := trendFor(soak, "server:"+ss.Name); t != nil && !counter {
			c.Series = append(c.Series, trendLine(s, soak, t, scale))
		}
		c.YFit = !counter // a leak is a slope, which a zero-based axis flattens
		out = append(out, c)
	}
	return out
}

// unitLabel names an axis, "value" when the quantity has no unit.
func unitLabel(unit string) string {
	if unit == "" {
		return "value"
	}
	return unit
}

// onGrid puts a series' values, at times, on the chart's x grid xs,
// gaps where the series has no bucket.
func onGrid(xs, times []float64, vals []jsNum) []jsNum {
	at := make(map[float64]int, len(times))
	for i, t := range times {
		at[t] = i
	}
	out := make([]jsNum, len(xs))
	for i, x := range xs {
		out[i] = gap
		if j, ok := at[x]; ok {
			out[i] = vals[j]
		}
	}
	return out
}

// sweepSeriesSection is each level's series, one level at a time with a
// picker: p50 and p99 latency and the throughput. Nil when the points
// carry no series.
func sweepSeriesSection(r *results.SweepReport) *htmlSection {
	set := map[float64]bool{}
	var with []int
	for i := range r.Points {
		if s := r.Points[i].Series; s != nil && s.Len() > 0 {
			with = append(with, i)
			for _, t := range seriesTimes(s) {
				set[t] = true
			}
		}
	}
	if len(with) == 0 {
		return nil
	}
	xs := sortedSet(set)
	c := &htmlChart{ID: "over-time-levels", Title: "One level over time", X: jsNums(xs), XAxis: axisSeconds, XLabel: "time since the level started",
		YLabel: "latency (ms)", Y2Label: "answers per second",
		Series: []htmlSeries{{Label: "p50", Color: hexP50}, {Label: "p99", Color: hexP99}, {Label: "rps", Color: hexRPS, Right: true}}}
	for k, i := range with {
		s := r.Points[i].Series
		times := seriesTimes(s)
		label, chosen := levelChoice(r, i)
		if chosen {
			c.Selected = k
		}
		c.Choices = append(c.Choices, htmlChoice{Label: label, Note: tooFewNote(s), Y: [][]jsNum{
			onGrid(xs, times, perBucket(s, true, func(b int) float64 { return s.P50MS[b] })),
			onGrid(xs, times, perBucket(s, true, func(b int) float64 { return s.P99MS[b] })),
			onGrid(xs, times, perBucket(s, false, func(b int) float64 { return rateAt(s, b) })),
		}})
	}
	return &htmlSection{ID: "over-time", Title: "Each level over time", Charts: []*htmlChart{c}}
}

// runSeriesOverlays are the over-time charts of two runs on one time
// axis: throughput and latency, base dashed.
func runSeriesOverlays(base, cur *results.RunReport) []htmlSection {
	bs, ns := base.Point.Series, cur.Point.Series
	if bs == nil || ns == nil || bs.Len() == 0 || ns.Len() == 0 {
		return nil
	}
	set := map[float64]bool{}
	bt, nt := seriesTimes(bs), seriesTimes(ns)
	for _, t := range append(append([]float64{}, bt...), nt...) {
		set[t] = true
	}
	xs := sortedSet(set)
	on := func(s *measure.Series, times []float64, answered bool, f func(i int) float64) []jsNum {
		return onGrid(xs, times, perBucket(s, answered, f))
	}
	tp := &htmlChart{ID: "over-time-throughput", Title: "Throughput", X: jsNums(xs), XAxis: axisSeconds, XLabel: "time since start", YLabel: "answers per second",
		Series: []htmlSeries{
			{Label: "base rps", Color: hexBase, Dash: true, Y: on(bs, bt, false, func(i int) float64 { return rateAt(bs, i) })},
			{Label: "new rps", Color: hexNew, Y: on(ns, nt, false, func(i int) float64 { return rateAt(ns, i) })},
		}}
	lat := &htmlChart{ID: "over-time-latency", Title: "Latency", X: jsNums(xs), XAxis: axisSeconds, XLabel: "time since start", YLabel: "latency (ms)",
		Series: []htmlSeries{
			{Label: "base p50", Color: hexP50, Dash: true, Y: on(bs, bt, true, func(i int) float64 { return bs.P50MS[i] })},
			{Label: "new p50", Color: hexP50, Y: on(ns, nt, true, func(i int) float64 { return ns.P50MS[i] })},
			{Label: "base p99", Color: hexP99, Dash: true, Y: on(bs, bt, true, func(i int) float64 { return bs.P99MS[i] })},
			{Label: "new p99", Color: hexP99, Y: on(ns, nt, true, func(i int) float64 { return ns.P99MS[i] })},
		}}
	return []htmlSection{{ID: "over-time", Title: "Over time", Charts: []*htmlChart{tp, lat}}}
}
