package report

import (
	"bytes"
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

	"github.com/mcpbench/mcpbench/internal/textfmt"
	"github.com/mcpbench/mcpbench/measure"
	"github.com/mcpbench/mcpbench/results"
	"github.com/mcpbench/mcpbench/sweep"
)

// Chart size: two stacked panels that fit a report page or a PR comment,
// with a column on the right for the legends, so no legend covers data.
const (
	chartWidth   = 24 * vg.Centimeter
	chartHeight  = 22 * vg.Centimeter
	legendColumn = 5 * vg.Centimeter
)

// The chart's text is Liberation Sans, whose widths gonum measures. The
// SVG names it with its metric twins and a generic family after it, so a
// viewer without Liberation still draws sans-serif text of the same
// widths (Arial, Helvetica) or close to it.
const (
	svgFontFamily = "font-family:Liberation Sans;"
	svgFontStack  = "font-family:'Liberation Sans',Arial,Helvetica,sans-serif;"
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
	var buf bytes.Buffer
	if _, err := c.WriteTo(&buf); err != nil {
		return fmt.Errorf("sweep chart: %w", err)
	}
	if _, err := w.Write(bytes.ReplaceAll(buf.Bytes(), []byte(svgFontFamily), []byte(svgFontStack))); err != nil {
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
	var closed, open []measure.Point
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
	// The legends go in the column right of the panels, each level with
	// its panel's top, instead of over the data.
	legends := []plot.Legend{top.Legend, bottom.Legend}
	top.Legend, bottom.Legend = plot.NewLegend(), plot.NewLegend()
	cs := plot.Align([][]*plot.Plot{{top}, {bottom}}, tiles, draw.Crop(dc, 0, -legendColumn, 0, 0))
	for i, p := range []*plot.Plot{top, bottom} {
		p.Draw(cs[i][0])
		panel := cs[i][0]
		titleH := p.Title.TextStyle.Height(p.Title.Text) + p.Title.Padding
		area := draw.Canvas{Canvas: dc.Canvas, Rectangle: vg.Rectangle{
			Min: vg.Point{X: panel.Max.X + vg.Millimeter*2, Y: panel.Min.Y},
			Max: vg.Point{X: dc.Max.X, Y: panel.Max.Y - titleH},
		}}
		legends[i].Top, legends[i].Left = true, true
		legends[i].Draw(area)
	}
	return nil
}

func concurrencyPlots(r *results.SweepReport, pts []measure.Point) (top, bottom *plot.Plot, err error) {
	xs := make([]float64, len(pts))
	for i, p := range pts {
		xs[i] = float64(p.Concurrency)
	}
	top, bottom = newPanels("Throughput — "+textfmt.OrDash(r.Target.URL), "throughput (rps)", "Latency", "concurrency", xs, loadAxis(xs))

	if err := addSeries(top, "rps", xs, pts, func(p measure.Point) float64 { return p.RPS }, colRPS, draw.CircleGlyph{}); err != nil {
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

func ratePlots(r *results.SweepReport, pts []measure.Point) (top, bottom *plot.Plot, err error) {
	xs := make([]float64, len(pts))
	for i, p := range pts {
		xs[i] = *p.Rate
	}
	// A linear axis: offered = achieved must read as the straight line it
	// is, whatever the spacing of the rates.
	top, bottom = newPanels("Offered and achieved rate — "+textfmt.OrDash(r.Target.URL), "achieved (rps)", "Latency (from intended send time)", "offered rate (rps)", xs, axisLinear)

	ideal, err := plotter.NewLine(plotter.XYs{{X: xs[0], Y: xs[0]}, {X: xs[len(xs)-1], Y: xs[len(xs)-1]}})
	if err != nil {
		return nil, nil, fmt.Errorf("offered line: %w", err)
	}
	ideal.LineStyle = draw.LineStyle{Color: colKnee, Width: vg.Points(1), Dashes: []vg.Length{vg.Points(2), vg.Points(2)}}
	top.Add(ideal)
	top.Legend.Add("offered", ideal)
	if err := addSeries(top, "achieved", xs, pts, func(p measure.Point) float64 { return p.RPS }, colRPS, draw.CircleGlyph{}); err != nil {
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

// setLoadAxis sets the load axis's scale (loadAxis: log for loads that
// grow geometrically, linear otherwise), with ticks at the measured loads
// so they can be read off directly.
func setLoadAxis(p *plot.Plot, xs []float64, scale string) {
	if len(xs) == 0 {
		return
	}
	if scale == axisLog {
		p.X.Scale = plot.LogScale{}
	}
	var ticks plot.ConstantTicks
	for _, x := range loadTicks(xs, scale) {
		ticks = append(ticks, plot.Tick{Value: x, Label: textfmt.Float(x)})
	}
	p.X.Tick.Marker = ticks
	p.X.Min, p.X.Max = slices.Min(xs), slices.Max(xs)
}

func addSeries(p *plot.Plot, name string, xs []float64, pts []measure.Point, y func(measure.Point) float64, col color.Color, glyph draw.GlyphDrawer) error {
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

func addLatency(p *plot.Plot, xs []float64, pts []measure.Point, slo sweep.SLO) error {
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
		y     func(measure.Point) float64
		col   color.Color
		glyph draw.GlyphDrawer
	}{
		{"p50", func(p measure.Point) float64 { return p.P50MS }, colP50, draw.CircleGlyph{}},
		{"p95", func(p measure.Point) float64 { return p.P95MS }, colP95, draw.SquareGlyph{}},
		{"p99", func(p measure.Point) float64 { return p.P99MS }, colP99, draw.TriangleGlyph{}},
	}
	for _, s := range series {
		if err := addSeries(p, s.name, xs, pts, s.y, s.col, s.glyph); err != nil {
			return err
		}
	}
	// The labels sit at the left end, where the load is lightest and the
	// data lie below the bounds; the p95 label right of the p99 one, so
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
		if slo.Met(pt) {
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
	l.text.XAlign, l.text.YAlign = text.XLeft, text.YBottom
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
			// Right of the line, or left of it where the label would
			// leave the plot area; a tenth of spare width allows for a
			// viewer's fallback font being wider.
			w := l.text.Width(l.label) * 1.1
			at := x + pad
			if at+w > c.Max.X {
				at = max(c.Min.X+pad, x-pad-w)
			}
			c.FillText(l.text, vg.Point{X: at, Y: y}, l.label)
		}
		return
	}
	y := trY(l.at)
	c.StrokeLine2(l.style, c.Min.X, y, c.Max.X, y)
	if l.label != "" {
		at := vg.Point{X: c.Min.X + pad + l.shift, Y: y + pad}
		if y+pad+l.text.Height(l.label) > c.Max.Y { // too near the top: below the line
			at.Y = y - pad - l.text.Height(l.label)
		}
		c.FillText(l.text, at, l.label)
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

// newPanels makes a sweep chart's two panels over the load values xs on
// the given scale: a throughput panel (titled top, y axis topY, from 0)
// above a latency one.
func newPanels(top, topY, bottom, xLabel string, xs []float64, scale string) (*plot.Plot, *plot.Plot) {
	t, b := plot.New(), plot.New()
	t.Title.Text, t.Y.Label.Text = top, topY
	b.Title.Text, b.Y.Label.Text = bottom, "latency (ms)"
	for _, p := range []*plot.Plot{t, b} {
		sansText(p)
		p.X.Label.Text = xLabel
		setLoadAxis(p, xs, scale)
		p.Add(plotter.NewGrid())
	}
	t.Y.Min = 0
	return t, b
}

// sansText sets every text of p in Liberation Sans: charts read better
// without serifs, and its metric twins are on most systems (svgFontStack).
func sansText(p *plot.Plot) {
	for _, st := range []*text.Style{&p.Title.TextStyle, &p.X.Label.TextStyle, &p.Y.Label.TextStyle,
		&p.X.Tick.Label, &p.Y.Tick.Label, &p.Legend.TextStyle} {
		st.Font.Variant = "Sans"
	}
}
