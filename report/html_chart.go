package report

import (
	"fmt"
	"image/color"
	"math"
	"strconv"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/mcpbench/mcpbench/internal/hist"
	"github.com/mcpbench/mcpbench/measure"
)

// The HTML page's charts are described here, in Go, and drawn by a small
// generic script (assets/page.js): every chart is line series over one
// shared x axis, with optional reference lines. Deciding what to draw in
// Go keeps the script free of report logic and lets the tests read the
// chart data directly.

// X-axis kinds the page's script knows.
const (
	axisLinear     = "linear"
	axisLog        = "log"
	axisPercentile = "percentile" // x = 1/(1-p), log scale, labelled in percent
	axisSeconds    = "seconds"    // seconds since the start of the run
)

// htmlChart is one chart: series over a shared x.
type htmlChart struct {
	ID    string  `json:"id"`
	Title string  `json:"title"`
	Note  string  `json:"-"` // a line under the chart, in the page
	X     []jsNum `json:"x"`
	XAxis string  `json:"xAxis"`
	// Ticks, when set, are where the x axis is labelled (the measured
	// loads, so they can be read off).
	Ticks  []jsNum `json:"ticks,omitempty"`
	XLabel string  `json:"xLabel"`
	YLabel string  `json:"yLabel"`
	YLog   bool    `json:"yLog,omitempty"`
	// YFit spans the y axis over the data instead of from zero.
	YFit    bool         `json:"yFit,omitempty"`
	Y2Label string       `json:"y2Label,omitempty"`
	Series  []htmlSeries `json:"series"`
	HLines  []refMark    `json:"hlines,omitempty"`
	VLines  []refMark    `json:"vlines,omitempty"`
	// Choices lets the reader pick what the series show (one sweep point's
	// spectrum, say): each choice has one value list per series; Selected
	// is the one drawn first.
	Choices  []htmlChoice `json:"choices,omitempty"`
	Selected int          `json:"selected,omitempty"`
}

// htmlSeries is one line of a chart.
type htmlSeries struct {
	Label  string  `json:"label"`
	Color  string  `json:"color"`
	Y      []jsNum `json:"y"`
	Dash   bool    `json:"dash,omitempty"`
	Points bool    `json:"points,omitempty"`
	Right  bool    `json:"right,omitempty"` // on the right-hand axis (Y2Label)
	// Bars draws the series as bars (counts per interval, such as errors);
	// Marks draws its points only, no line.
	Bars  bool `json:"bars,omitempty"`
	Marks bool `json:"marks,omitempty"`
}

// refMark is a labelled reference line: an SLO (horizontal) or a knee or
// recommendation (vertical).
type refMark struct {
	At    float64 `json:"at"`
	Label string  `json:"label"`
	Color string  `json:"color"`
}

// htmlChoice is one option of a chart's picker.
type htmlChoice struct {
	Label string    `json:"label"`
	Y     [][]jsNum `json:"y"`
	// Note, shown above the chart while the choice is, says why it draws
	// no line (too few intervals).
	Note string `json:"note,omitempty"`
}

// jsNum is a number in the page's data: non-finite values become null
// (a gap in the line), and six significant digits keep the file small.
type jsNum float64

// MarshalJSON implements json.Marshaler.
func (n jsNum) MarshalJSON() ([]byte, error) {
	v := float64(n)
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return []byte("null"), nil
	}
	return strconv.AppendFloat(nil, v, 'g', 6, 64), nil
}

// gap is a missing value.
var gap = jsNum(math.NaN())

func jsNums(vs []float64) []jsNum {
	out := make([]jsNum, len(vs))
	for i, v := range vs {
		out[i] = jsNum(v)
	}
	return out
}

// Series colours: the SVG chart's palette, so the two read alike.
var (
	hexRPS   = hexOf(colRPS)
	hexP50   = hexOf(colP50)
	hexP95   = hexOf(colP95)
	hexP99   = hexOf(colP99)
	hexGrey  = hexOf(colKnee)
	hexRec   = hexOf(colRec)
	hexModel = hexOf(colModel)
	hexBase  = hexGrey
	hexNew   = hexRPS
	hexError = hexP99
)

// Colours of the page's own: light for a series in the background (max),
// near black for fitted trends.
const (
	hexLight = "#b0b0b0"
	hexTrend = "#222222"
)

// hexOf is a colour as CSS writes it.
func hexOf(c color.RGBA) string { return fmt.Sprintf("#%02x%02x%02x", c.R, c.G, c.B) }

// spectrumGrid is the percentiles of an HdrHistogram "percentile
// distribution" (as wrk2 and HdrHistogram's plotter draw it) as
// x = 1/(1-p), from p = 0 until 1/(1-p) reaches maxX, the last point:
// five steps in every halving of the distance to 100%, the steps
// HdrHistogram's own percentile iterator takes, plus the percentiles the
// tables print (p99, p99.9 …) so the chart reads the same figures. A fixed
// grid lets two spectra share one x axis.
func spectrumGrid(maxX float64) []float64 {
	const ticksPerHalf = 5
	set := map[float64]bool{maxX: true}
	for _, p := range []float64{0.99, 0.999, 0.9999, 0.99999, 0.999999} {
		if x := 1 / (1 - p); x < maxX {
			set[x] = true
		}
	}
	// Halving k covers p from 1-2^-k to 1-2^-(k+1) in five equal steps.
	for k := 0; k < 64; k++ {
		start, step := 1-math.Ldexp(1, -k), math.Ldexp(1, -k-1)/ticksPerHalf
		for j := range ticksPerHalf {
			x := 1 / (1 - (start + float64(j)*step))
			if x >= maxX {
				return sortedSet(set)
			}
			set[x] = true
		}
	}
	return sortedSet(set)
}

// spectrumX is the grid for histograms of up to n values: it ends where
// one value in n lies beyond, which is where the maximum is reached.
func spectrumX(n int64) []float64 { return spectrumGrid(math.Max(float64(n), 2)) }

// spectrumValues is the latency (ms) at each grid point: the value at that
// percentile, and the maximum at the last point. A nil or empty histogram
// gives gaps.
func spectrumValues(h *hdrhistogram.Histogram, xs []float64) []jsNum {
	out := make([]jsNum, len(xs))
	if h == nil || h.TotalCount() == 0 {
		for i := range out {
			out[i] = gap
		}
		return out
	}
	pcts := make([]float64, len(xs))
	for i, x := range xs {
		pcts[i] = 100 * (1 - 1/x)
	}
	vals := h.ValueAtPercentilesSlice(pcts)
	for i, v := range vals {
		out[i] = jsNum(float64(v) / 1000)
	}
	out[len(out)-1] = jsNum(float64(h.Max()) / 1000)
	return out
}

// pointHistograms decodes a point's latency histogram and, for an open
// loop, the one measured from the actual send. Either may be nil (a report
// written without them, or one that does not decode): the chart then
// leaves a gap rather than failing the whole page.
func pointHistograms(p *measure.Point) (corrected, uncorrected *hdrhistogram.Histogram) {
	corrected = p.Hist
	if corrected == nil && p.Histogram != "" {
		corrected, _ = hist.Decode(p.Histogram)
	}
	if u := p.Uncorrected; u != nil && u.Histogram != "" {
		uncorrected, _ = hist.Decode(u.Histogram)
	}
	return corrected, uncorrected
}

// histCount is the number of values in h, 0 for nil.
func histCount(h *hdrhistogram.Histogram) int64 {
	if h == nil {
		return 0
	}
	return h.TotalCount()
}
