package results

import (
	"fmt"
	"math"
	"time"

	"github.com/mcpbench/mcpbench/measure"
)

// Soak is what a run's series says over time: a robust trend of p99
// latency, the error rate and every server gauge over the run after its
// warm-up, the p99 of the first tenth of the run against the last, and a
// verdict for each trend that is both significant and material.
type Soak struct {
	// WarmupS is the warm-up asked for (0: the default, a tenth of the
	// run); FromS and ToS bound the window the trends cover, in seconds
	// from the start of the series.
	WarmupS float64 `json:"warmup_s"`
	FromS   float64 `json:"from_s"`
	ToS     float64 `json:"to_s"`
	Trends  []Trend `json:"trends"`
	// Drift is p99 latency in the first and last tenth of the run.
	Drift    *Drift    `json:"latency_drift,omitempty"`
	Verdicts []Verdict `json:"verdicts"`
	// Note says why there are no trends (a run too short), if so.
	Note string `json:"note,omitempty"`
}

// Trend is the Theil–Sen line of one series over the soak window.
type Trend struct {
	// Series is "p99_ms", "error_rate" or "server:" and the gauge's name.
	Series string `json:"series"`
	Unit   string `json:"unit,omitempty"`
	Points int    `json:"points"`
	// Slope and its 95% confidence interval, in the series' unit per hour.
	SlopePerH     float64 `json:"slope_per_h"`
	SlopeLowPerH  float64 `json:"slope_low_per_h"`
	SlopeHighPerH float64 `json:"slope_high_per_h"`
	R2            float64 `json:"r2"`
	// Start is the line's value where the window opens; Change is how far
	// it moves across the window.
	Start  float64 `json:"start"`
	Change float64 `json:"change"`
	// Significant: the whole confidence interval is above zero and the
	// line explains at least half the variance (steady growth, not a step
	// or noise). Material: Change is large enough to matter (see
	// materiality).
	Significant bool `json:"significant"`
	Material    bool `json:"material"`
}

// Drift compares p99 latency of the first tenth of the run with the last,
// each from the buckets' merged histograms. A p99 of a tenth without
// answers, and the ratio unless both tenths hold enough answers (Enough),
// were never computed: null in the JSON, not 0, which a script would read
// as a latency or as "no drift".
type Drift struct {
	FirstP99MS    *float64 `json:"first_p99_ms"`
	LastP99MS     *float64 `json:"last_p99_ms"`
	FirstRequests int64    `json:"first_requests"`
	LastRequests  int64    `json:"last_requests"`
	Ratio         *float64 `json:"ratio"`
}

// Verdict is one finding, in words. Leak marks growth of a server series,
// which --fail-on-leak gates on; latency and error-rate findings are
// reported only (a busy generator host can make them).
type Verdict struct {
	Series string `json:"series"`
	Leak   bool   `json:"leak"`
	Text   string `json:"text"`
}

// SoakOptions tune AnalyzeSoak.
type SoakOptions struct {
	// Warmup is left out of the trends at the start of the series; 0
	// leaves out the first tenth of the run.
	Warmup time.Duration
}

// The rules of a verdict. A trend counts when the 95% interval of its
// slope lies above zero, the line explains at least half the variance,
// and its change over the window passes the series' materiality.
const (
	trendConfidence = 0.95
	steadyR2        = 0.5
	minTrendPoints  = 8
	// Drift: the last tenth's p99 at least 1.5 times the first's and 1 ms
	// more, each over at least 100 requests.
	driftRatio       = 1.5
	driftMinMS       = 1.0
	driftMinRequests = 100
)

// materiality is the change across the window a series must show to
// matter: a share of where it started and an absolute floor, whichever
// is larger.
func materiality(series, unit string, start float64) float64 {
	switch {
	case series == "p99_ms":
		return max(0.2*start, 1) // a fifth, and at least 1 ms
	case series == "error_rate":
		return 0.01 // one percentage point
	case unit == "bytes":
		return max(0.1*start, 1e6) // a tenth, and at least 1 MB
	case unit == "":
		return max(0.1*start, 10) // a tenth, and at least 10 (fds, sessions...)
	}
	return 0.1 * math.Abs(start)
}

// AnalyzeSoak finds the trends of s after the warm-up; nil for no series.
func AnalyzeSoak(s *measure.Series, opt SoakOptions) *Soak {
	if s == nil || s.Len() == 0 {
		return nil
	}
	span := s.EndS(s.Len() - 1)
	out := &Soak{WarmupS: opt.Warmup.Seconds(), Trends: []Trend{}, Verdicts: []Verdict{}}
	out.FromS = opt.Warmup.Seconds()
	if opt.Warmup <= 0 {
		out.FromS = span / 10
	}
	out.Drift = drift(s)
	if v, ok := driftVerdict(out.Drift); ok {
		out.Verdicts = append(out.Verdicts, v)
	}
	idx := window(s, out.FromS)
	if len(idx) < minTrendPoints {
		out.Note = fmt.Sprintf("%d buckets after the warm-up: too few for a trend (%d needed)", len(idx), minTrendPoints)
		return out
	}
	out.ToS = s.EndS(idx[len(idx)-1])
	x := make([]float64, len(idx))
	for j, i := range idx {
		x[j] = s.EndS(i)
	}
	add := func(name, unit string, leak bool, y []float64) {
		t, ok := trendOf(name, unit, x, y)
		if !ok {
			return
		}
		out.Trends = append(out.Trends, t)
		if t.Significant && t.Material {
			out.Verdicts = append(out.Verdicts, Verdict{Series: name, Leak: leak, Text: verdictText(t, out.ToS-out.FromS)})
		}
	}
	add("p99_ms", "ms", false, pick(idx, func(i int) float64 { return latencyAt(s, i) }))
	add("error_rate", "", false, pick(idx, func(i int) float64 { return errorRateAt(s, i) }))
	for _, g := range s.Server {
		if g.Kind == measure.GaugeCounter {
			continue // a counter grows by nature: its trend says nothing of leaks
		}
		add("server:"+g.Name, g.Unit, true, pick(idx, func(i int) float64 { return g.Values[i] }))
	}
	return out
}

// window lists the buckets the trends use: those that start at or after
// from, less a last bucket cut to under half an interval (too few
// requests to weigh like the others).
func window(s *measure.Series, from float64) []int {
	var idx []int
	for i := range s.Len() {
		if float64(i)*s.IntervalS >= from-1e-9 {
			idx = append(idx, i)
		}
	}
	if n := len(idx); n > 0 && idx[n-1] == s.Len()-1 && s.LastS < s.IntervalS/2 {
		idx = idx[:n-1]
	}
	return idx
}

func pick(idx []int, f func(int) float64) []float64 {
	y := make([]float64, len(idx))
	for j, i := range idx {
		y[j] = f(i)
	}
	return y
}

// latencyAt is bucket i's p99, NaN for a bucket with no answers.
func latencyAt(s *measure.Series, i int) float64 {
	if s.Requests(i) == 0 {
		return math.NaN()
	}
	return s.P99MS[i]
}

// errorRateAt is bucket i's error rate, NaN for a bucket with no answers.
func errorRateAt(s *measure.Series, i int) float64 {
	n := s.Requests(i)
	if n == 0 {
		return math.NaN()
	}
	return float64(n-s.OK[i]) / float64(n)
}

// trendOf fits y (per second of x) and judges the line.
func trendOf(name, unit string, x, y []float64) (Trend, bool) {
	f, ok := TheilSen(x, y, trendConfidence)
	if !ok || f.N < minTrendPoints {
		return Trend{}, false
	}
	x0, x1 := x[0], x[len(x)-1]
	t := Trend{
		Series: name, Unit: unit, Points: f.N,
		SlopePerH: f.Slope * 3600, SlopeLowPerH: f.Low * 3600, SlopeHighPerH: f.High * 3600,
		R2:     f.R2,
		Start:  f.Intercept + f.Slope*x0,
		Change: f.Slope * (x1 - x0),
	}
	t.Significant = f.Low > 0 && f.R2 >= steadyR2
	t.Material = t.Change >= materiality(name, unit, t.Start)
	return t, true
}
