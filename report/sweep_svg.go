package report

import (
	"fmt"
	"image/color"
	"io"
	"math"
	"slices"
	"strconv"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
	"gonum.org/v1/plot/vg/vgsvg"

	"github.com/mcpbench/mcpbench/bench"
	"github.com/mcpbench/mcpbench/internal/textfmt"
	"github.com/mcpbench/mcpbench/results"
	"github.com/mcpbench/mcpbench/sweep"
)

// Chart size: two stacked panels that fit a report page or a PR comment.
const (
	chartWidth  = 20 * vg.Centimeter
	chartHeight = 22 * vg.Centimeter
)

// Series colours, chosen to stay apart for common colour blindness.
var (
	colRPS   = color.RGBA{R: 0x1f, G: 0x77, B: 0xb4, A: 0xff} // blue
	colP50   = color.RGBA{R: 0x2c, G: 0xa0, B: 0x2c, A: 0xff} // green
	colP95   = color.RGBA{R: 0xff, G: 0x7f, B: 0x0e, A: 0xff} // orange
	colP99   = color.RGBA{R: 0xd6, G: 0x27, B: 0x28, A: 0xff} // red
	colKnee  = color.RGBA{R: 0x7f, G: 0x7f, B: 0x7f, A: 0xff} // grey
	colRec   = color.RGBA{R: 0x94, G: 0x67, B: 0xbd, A: 0xff} // purple
	colModel = color.RGBA{R: 0x17, G: 0xbe, B: 0xcf, A: 0xff} // cyan
)

// WriteSweepSVG draws the sweep as an SVG: throughput on top, p50/p95/p99
// latency below, both against the load axis (concurrency, or offered rate
// for a rate sweep). SLO bounds are dashed horizontal lines, the knee and
// the recommendation dashed vertical lines.
func WriteSweepSVG(w io.Writer, r *results.SweepReport) error {
	c := vgsvg.New(chartWidth, chartHeight)
	if err := drawSweep(draw.New(c), r); err != nil {
		return err
	}
	if _, err := c.WriteTo(w); err != nil {
		return fmt.Errorf("sweep chart: %w", err)
	}
	return nil
}

// writeSweepPNG is WriteSweepSVG's raster twin, used to look at the chart.
func writeSweepPNG(w io.Writer, r *results.SweepReport) error {
	c := vgimg.NewWith(vgimg.UseWH(chartWidth, chartHeight), vgimg.UseDPI(110), vgimg.UseBackgroundColor(color.White))
	if err := drawSweep(draw.New(c), r); err != nil {
		return err
	}
	if _, err := (vgimg.PngCanvas{Canvas: c}).WriteTo(w); err != nil {
		return fmt.Errorf("sweep chart: %w", err)
	}
	return nil
}

func drawSweep(dc draw.Canvas, r *results.SweepReport) error {
	var closed, open []bench.Point
	for _, p := range r.Points {
		if p.Rate != nil {
			open = append(open, p)
		} else {
			closed = append(closed, p)
		}
	}
	var top, bottom *plot.Plot
	var err error
	if len(closed) > 0 || len(open) == 0 {
		top, bottom, err = concurrencyPlots(r, closed)
	} else {
		top, bottom, err = ratePlots(r, open)
	}
	if err != nil {
		return fmt.Errorf("sweep chart: %w", err)
	}
	tiles := draw.Tiles{Rows: 2, Cols: 1, PadTop: vg.Millimeter * 3, PadBottom: vg.Millimeter * 3,
		PadLeft: vg.Millimeter * 3, PadRight: vg.Millimeter * 5, PadY: vg.Millimeter * 8}
	cs := plot.Align([][]*plot.Plot{{top}, {bottom}}, tiles, dc)
	top.Draw(cs[0][0])
	bottom.Draw(cs[1][0])
	return nil
}

func concurrencyPlots(r *results.SweepReport, pts []bench.Point) (top, bottom *plot.Plot, err error) {
	xs := make([]float64, len(pts))
	for i, p := range pts {
		xs[i] = float64(p.Concurrency)
	}
	top, bottom = newPanels("Throughput — "+textfmt.OrDash(r.Target.URL), "throughput (rps)", "Latency", "concurrency", xs)

	if err := addSeries(top, "rps", xs, pts, func(p bench.Point) float64 { return p.RPS }, colRPS, draw.CircleGlyph{}); err != nil {
		return nil, nil, err
	}
	if u := r.USL; u != nil && len(xs) > 0 {
		// Sampled rather than a plotter.Function so the model's peak counts
		// in the axis range instead of running off the top.
		const samples = 200
		curve := make(plotter.XYs, samples+1)
		for i := range curve {
			x := xs[0] + (xs[len(xs)-1]-xs[0])*float64(i)/samples
			curve[i] = plotter.XY{X: x, Y: u.Predict(x)}
		}
		model, err := plotter.NewLine(curve)
		if err != nil {
			return nil, nil, fmt.Errorf("usl curve: %w", err)
		}
		model.LineStyle = draw.LineStyle{Color: colModel, Width: vg.Points(1), Dashes: []vg.Length{vg.Points(2), vg.Points(2)}}
		top.Add(model)
		top.Legend.Add(fmt.Sprintf("USL fit (r² %.2f)", u.R2), model)
	}
	if err := addLatency(bottom, xs, pts, r.SLO); err != nil {
		return nil, nil, err
	}
	k, rc := r.Knee, r.Recommendation.RecommendedConcurrency
	for _, p := range []*plot.Plot{top, bottom} {
		labelled := p == top
		switch {
		case k != nil && rc != nil && k.Concurrency == *rc:
			addVLine(p, float64(*rc), "knee = recommended "+strconv.Itoa(*rc), colRec, labelled, 0)
		default:
			row := 0
			if k != nil {
				addVLine(p, float64(k.Concurrency), "knee "+strconv.Itoa(k.Concurrency), colKnee, labelled, row)
				row++
			}
			if rc != nil {
				addVLine(p, float64(*rc), "recommended "+strconv.Itoa(*rc), colRec, labelled, row)
			}
		}
	}
	headroom(top)
	return top, bottom, nil
}

func ratePlots(r *results.SweepReport, pts []bench.Point) (top, bottom *plot.Plot, err error) {
	xs := make([]float64, len(pts))
	for i, p := range pts {
		xs[i] = *p.Rate
	}
	top, bottom = newPanels("Offered and achieved rate — "+textfmt.OrDash(r.Target.URL), "achieved (rps)", "Latency (from intended send time)", "offered rate (rps)", xs)

	// offered = achieved, sampled densely because the x axis may be
	// logarithmic, where y = x is a curve.
	const samples = 100
	diag := make(plotter.XYs, samples+1)
	for i := range diag {
		x := xs[0] + (xs[len(xs)-1]-xs[0])*float64(i)/samples
		diag[i] = plotter.XY{X: x, Y: x}
	}
	ideal, err := plotter.NewLine(diag)
	if err != nil {
		return nil, nil, fmt.Errorf("offered line: %w", err)
	}
	ideal.LineStyle = draw.LineStyle{Color: colKnee, Width: vg.Points(1), Dashes: []vg.Length{vg.Points(2), vg.Points(2)}}
	top.Add(ideal)
	top.Legend.Add("offered", ideal)
	if err := addSeries(top, "achieved", xs, pts, func(p bench.Point) float64 { return p.RPS }, colRPS, draw.CircleGlyph{}); err != nil {
		return nil, nil, err
	}
	if err := addLatency(bottom, xs, pts, r.SLO); err != nil {
		return nil, nil, err
	}
	if m := r.Recommendation.MaxSustainableRPS; m != nil {
		for _, p := range []*plot.Plot{top, bottom} {
			addVLine(p, *m, "max sustainable "+textfmt.Float(*m), colRec, p == top, 0)
		}
	}
	headroom(top)
	return top, bottom, nil
}

// setLoadAxis uses a log scale when the loads span a wide ratio (sweeps
// usually double), with ticks at the measured loads so they can be read
// off directly.
func setLoadAxis(p *plot.Plot, xs []float64) {
	if len(xs) == 0 {
		return
	}
	lo, hi := slices.Min(xs), slices.Max(xs)
	if lo > 0 && hi/lo >= 8 {
		p.X.Scale = plot.LogScale{}
	}
	// Thin the ticks so labels do not collide: keep one where the previous
	// kept tick is at least 12% of the axis away (in the axis's scale).
	pos := func(x float64) float64 {
		if _, ok := p.X.Scale.(plot.LogScale); ok {
			return math.Log(x)
		}
		return x
	}
	span := pos(hi) - pos(lo)
	var ticks plot.ConstantTicks
	last := math.Inf(-1)
	for _, x := range xs {
		if span > 0 && pos(x)-last < 0.06*span && x != hi {
			continue
		}
		if span > 0 && x == hi && pos(x)-last < 0.06*span && len(ticks) > 0 {
			ticks = ticks[:len(ticks)-1]
		}
		ticks = append(ticks, plot.Tick{Value: x, Label: textfmt.Float(x)})
		last = pos(x)
	}
	p.X.Tick.Marker = ticks
	p.X.Min, p.X.Max = lo, hi
}

func addSeries(p *plot.Plot, name string, xs []float64, pts []bench.Point, y func(bench.Point) float64, col color.Color, glyph draw.GlyphDrawer) error {
	xy := make(plotter.XYs, 0, len(pts))
	for i, pt := range pts {
		if v := y(pt); !math.IsNaN(v) && !math.IsInf(v, 0) {
			xy = append(xy, plotter.XY{X: xs[i], Y: v})
		}
	}
	if len(xy) == 0 {
		return nil
	}
	line, points, err := plotter.NewLinePoints(xy)
	if err != nil {
		return fmt.Errorf("%s series: %w", name, err)
	}
	line.Color, line.Width = col, vg.Points(1.5)
	points.Color, points.Shape, points.Radius = col, glyph, vg.Points(2.5)
	p.Add(line, points)
	p.Legend.Add(name, line, points)
	return nil
}

func addLatency(p *plot.Plot, xs []float64, pts []bench.Point, slo sweep.SLO) error {
	// Latency past saturation is often 100× the unloaded figure; on a
	// linear axis that flattens everything the SLO is about into the
	// bottom row. Switch to a log axis then.
	lo, hi := math.Inf(1), 0.0
	for _, pt := range pts {
		for _, v := range []float64{pt.P50MS, pt.P99MS, slo.P95MS, slo.P99MS} {
			if v > 0 && !math.IsInf(v, 0) {
				lo, hi = math.Min(lo, v), math.Max(hi, v)
			}
		}
	}
	if hi/lo >= 20 {
		p.Y.Scale, p.Y.Tick.Marker = plot.LogScale{}, plot.LogTicks{Prec: -1}
		p.Y.Label.Text += ", log scale"
	} else {
		p.Y.Min = 0
	}
	series := []struct {
		name  string
		y     func(bench.Point) float64
		col   color.Color
		glyph draw.GlyphDrawer
	}{
		{"p50", func(p bench.Point) float64 { return p.P50MS }, colP50, draw.CircleGlyph{}},
		{"p95", func(p bench.Point) float64 { return p.P95MS }, colP95, draw.SquareGlyph{}},
		{"p99", func(p bench.Point) float64 { return p.P99MS }, colP99, draw.TriangleGlyph{}},
	}
	for _, s := range series {
		if err := addSeries(p, s.name, xs, pts, s.y, s.col, s.glyph); err != nil {
			return err
		}
	}
	// The p99 label sits at the right end; the p95 label left of it, so
	// the two never overprint when the bounds are close.
	var shift vg.Length
	if slo.P99MS > 0 {
		l := addHLine(p, slo.P99MS, "p99 SLO "+textfmt.Float(slo.P99MS)+" ms", colP99, 0)
		shift = l.text.Width(l.label) + vg.Points(8)
	}
	if slo.P95MS > 0 {
		addHLine(p, slo.P95MS, "p95 SLO "+textfmt.Float(slo.P95MS)+" ms", colP95, shift)
	}
	// Mark the points that miss the SLO, on the percentile that missed
	// (p99 when only errors or the delivered rate failed), so the
	// feasible set is visible.
	var bad plotter.XYs
	for i, pt := range pts {
		ok := slo.Feasible(pt)
		if pt.Rate != nil {
			ok = slo.Sustained(pt)
		}
		if ok {
			continue
		}
		y := pt.P99MS
		if slo.P95MS > 0 && pt.P95MS > slo.P95MS {
			y = pt.P95MS
		}
		if !math.IsNaN(y) && !math.IsInf(y, 0) {
			bad = append(bad, plotter.XY{X: xs[i], Y: y})
		}
	}
	if len(bad) > 0 {
		sc, err := plotter.NewScatter(bad)
		if err != nil {
			return fmt.Errorf("infeasible marks: %w", err)
		}
		sc.Color, sc.Shape, sc.Radius = color.Black, draw.CrossGlyph{}, vg.Points(4)
		p.Add(sc)
		p.Legend.Add("misses SLO", sc)
	}
	return nil
}

// refLine is a horizontal or vertical reference line across the data area
// with an optional label at its end.
type refLine struct {
	vertical bool
	at       float64
	label    string
	style    draw.LineStyle
	text     text.Style
	// row moves a vertical line's label down by that many text lines;
	// shift moves a horizontal line's label left.
	row   int
	shift vg.Length
}

var dashes = []vg.Length{vg.Points(5), vg.Points(3)}

func addVLine(p *plot.Plot, x float64, label string, col color.Color, labelled bool, row int) {
	l := &refLine{vertical: true, at: x, row: row, style: draw.LineStyle{Color: col, Width: vg.Points(1.2), Dashes: dashes}, text: p.Legend.TextStyle}
	if labelled {
		l.label = label
	}
	l.text.Color = col
	l.text.XAlign, l.text.YAlign = text.XLeft, text.YTop
	p.Add(l)
	if !labelled {
		p.Legend.Add(label, l)
	}
}

func addHLine(p *plot.Plot, y float64, label string, col color.Color, shift vg.Length) *refLine {
	l := &refLine{at: y, label: label, shift: shift, style: draw.LineStyle{Color: col, Width: vg.Points(1.2), Dashes: dashes}, text: p.Legend.TextStyle}
	l.text.Color = col
	l.text.XAlign, l.text.YAlign = text.XRight, text.YBottom
	p.Add(l)
	return l
}

// headroom lifts the top of a throughput axis so a plateau does not run
// along the frame.
func headroom(p *plot.Plot) {
	if p.Y.Max > p.Y.Min {
		p.Y.Max += 0.08 * (p.Y.Max - p.Y.Min)
	}
}

// Plot implements plot.Plotter.
func (l *refLine) Plot(c draw.Canvas, p *plot.Plot) {
	trX, trY := p.Transforms(&c)
	pad := vg.Points(2)
	if l.vertical {
		x := trX(l.at)
		c.StrokeLine2(l.style, x, c.Min.Y, x, c.Max.Y)
		if l.label != "" {
			y := c.Max.Y - pad - vg.Length(l.row)*l.text.Height(l.label)
			c.FillText(l.text, vg.Point{X: x + pad, Y: y}, l.label)
		}
		return
	}
	y := trY(l.at)
	c.StrokeLine2(l.style, c.Min.X, y, c.Max.X, y)
	if l.label != "" {
		c.FillText(l.text, vg.Point{X: c.Max.X - pad - l.shift, Y: y + pad}, l.label)
	}
}

// DataRange implements plot.DataRanger: the line's own coordinate must be
// on the axis (an SLO far above every point still shows), the other axis
// is left to the data.
func (l *refLine) DataRange() (xmin, xmax, ymin, ymax float64) {
	inf := math.Inf(1)
	if l.vertical {
		return l.at, l.at, inf, -inf
	}
	return inf, -inf, l.at, l.at
}

// Thumbnail implements plot.Thumbnailer for the legend.
func (l *refLine) Thumbnail(c *draw.Canvas) {
	y := c.Center().Y
	c.StrokeLine2(l.style, c.Min.X, y, c.Max.X, y)
}

// newPanels makes a sweep chart's two panels over the load values xs: a
// throughput panel (titled top, y axis topY, from 0) above a latency one.
func newPanels(top, topY, bottom, xLabel string, xs []float64) (*plot.Plot, *plot.Plot) {
	t, b := plot.New(), plot.New()
	t.Title.Text, t.Y.Label.Text = top, topY
	b.Title.Text, b.Y.Label.Text = bottom, "latency (ms)"
	for _, p := range []*plot.Plot{t, b} {
		p.X.Label.Text = xLabel
		setLoadAxis(p, xs)
		p.Add(plotter.NewGrid())
		p.Legend.Top, p.Legend.Left = true, true
	}
	t.Y.Min = 0
	return t, b
}
