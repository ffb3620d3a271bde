package results

import (
	"fmt"
	"math"
	"slices"

	"gonum.org/v1/gonum/stat/distuv"

	"github.com/mcpbench/mcpbench/measure"
)

// Noise is what the two reports' own per-interval series say of one
// figure's change: the shift from the base's intervals to the new one's
// (Hodges–Lehmann, as new/base − 1) and its 95% interval by the
// Mann–Whitney test. A change whose interval holds 0 lies within the
// noise the reports show.
//
// The intervals of one run are not independent (a slow minute is followed
// by another), so the interval is narrower than the truth: "within the
// noise" is a safe reading, "beyond it" a hint, not a verdict. `mcpbench
// ab` gives the verdict, from rounds that are independent.
type Noise struct {
	Metric      string  `json:"metric"`
	Change      float64 `json:"change"` // the shift, new/base − 1
	Low         float64 `json:"low"`
	High        float64 `json:"high"`
	Intervals   [2]int  `json:"intervals"` // the base's and the new report's
	WithinNoise bool    `json:"within_noise"`
}

// noiseMinIntervals is the fewest full intervals a side needs: with
// fewer, the interval of the shift is the whole range of differences.
const noiseMinIntervals = 5

// noiseChecks adds, for each figure of a run that both series carry, the
// shift the intervals show, and a note for each gated figure whose limit
// the change passed although it lies within that noise.
func (c *Comparison) noiseChecks(b, n *measure.Point) {
	if b.Series == nil || n.Series == nil {
		return
	}
	for _, m := range []struct {
		metric string
		col    func(*measure.Series) []float64
	}{
		{"rps", func(s *measure.Series) []float64 { return s.RPS }},
		{"p50_ms", func(s *measure.Series) []float64 { return s.P50MS }},
		{"p95_ms", func(s *measure.Series) []float64 { return s.P95MS }},
		{"p99_ms", func(s *measure.Series) []float64 { return s.P99MS }},
	} {
		bv, nv := fullIntervals(b.Series, m.col(b.Series)), fullIntervals(n.Series, m.col(n.Series))
		nz, ok := ShiftInterval(bv, nv)
		if !ok {
			continue
		}
		nz.Metric = m.metric
		c.Noise = append(c.Noise, nz)
		for i := range c.Checks {
			ch := &c.Checks[i]
			if ch.Scope == "run" && ch.Metric == m.metric && ch.Verdict == VerdictRegression && nz.WithinNoise {
				c.Notes = append(c.Notes, fmt.Sprintf("%s: the change passes its limit but lies within the noise of the reports' %d and %d intervals (shift %+.1f%%, 95%% interval %+.1f%% to %+.1f%%); `mcpbench ab` can tell",
					m.metric, nz.Intervals[0], nz.Intervals[1], 100*nz.Change, 100*nz.Low, 100*nz.High))
			}
		}
	}
}

// fullIntervals are a column's values over the buckets of a whole
// interval, without NaN, zero or negative values.
func fullIntervals(s *measure.Series, col []float64) []float64 {
	var out []float64
	for i, v := range col {
		if i >= s.Len() || s.BucketS(i) < 0.99*s.IntervalS || !(v > 0) || math.IsInf(v, 0) {
			continue
		}
		out = append(out, v)
	}
	return out
}

// ShiftInterval is the Hodges–Lehmann shift of log(b) to log(n), the
// median of all differences ln(n_j) − ln(b_i), with its 95% interval
// from the Mann–Whitney statistic's normal approximation (the c-th
// smallest and largest differences), turned into ratios − 1. ok is
// false with fewer than noiseMinIntervals values on either side.
func ShiftInterval(b, n []float64) (Noise, bool) {
	if len(b) < noiseMinIntervals || len(n) < noiseMinIntervals {
		return Noise{}, false
	}
	d := make([]float64, 0, len(b)*len(n))
	for _, x := range b {
		for _, y := range n {
			d = append(d, math.Log(y/x))
		}
	}
	slices.Sort(d)
	mn := float64(len(b) * len(n))
	z := distuv.UnitNormal.Quantile(0.975)
	k := int(math.Floor(mn/2 - z*math.Sqrt(mn*float64(len(b)+len(n)+1)/12)))
	k = max(k, 0)
	med := d[len(d)/2]
	if len(d)%2 == 0 {
		med = (d[len(d)/2-1] + d[len(d)/2]) / 2
	}
	nz := Noise{Change: math.Expm1(med), Low: math.Expm1(d[k]), High: math.Expm1(d[len(d)-1-k]), Intervals: [2]int{len(b), len(n)}}
	nz.WithinNoise = nz.Low <= 0 && nz.High >= 0
	return nz, true
}
