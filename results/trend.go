package results

import (
	"math"
	"slices"

	"gonum.org/v1/gonum/stat"
	"gonum.org/v1/gonum/stat/distuv"
)

// Fit is a robust straight line through a series: the Theil–Sen slope
// (the median of the slopes between every pair of points, which a few
// outliers such as a GC pause or a cache rebuild cannot drag), Sen's
// confidence interval for it, and how much of the variation the line
// explains.
type Fit struct {
	Slope     float64 // per unit of x
	Intercept float64 // at x = 0
	// Low and High bound the slope at the confidence level asked for.
	Low, High float64
	// R2 is the share of the variance the line explains (0 when it
	// explains none, or does worse than the mean).
	R2 float64
	// N is the number of points fitted (after thinning, see maxFitPoints).
	N int
}

// maxFitPoints bounds the points a fit uses: the pairs grow with the
// square, so a long soak is thinned first by averaging runs of
// neighbouring points, which keeps the trend and only smooths the noise.
const maxFitPoints = 500

// TheilSen fits y against x at the given confidence (e.g. 0.95). Points
// with a NaN are left out; ok is false with fewer than three points left
// or when all x are equal.
func TheilSen(x, y []float64, confidence float64) (Fit, bool) {
	xs, ys := dropNaN(x, y)
	xs, ys = thin(xs, ys, maxFitPoints)
	n := len(xs)
	if n < 3 {
		return Fit{}, false
	}
	slopes := make([]float64, 0, n*(n-1)/2)
	for i := range n {
		for j := i + 1; j < n; j++ {
			if dx := xs[j] - xs[i]; dx != 0 {
				slopes = append(slopes, (ys[j]-ys[i])/dx)
			}
		}
	}
	if len(slopes) == 0 {
		return Fit{}, false
	}
	slices.Sort(slopes)
	f := Fit{N: n, Slope: median(slopes)}
	resid := make([]float64, n)
	for i := range n {
		resid[i] = ys[i] - f.Slope*xs[i]
	}
	slices.Sort(resid)
	f.Intercept = median(resid)
	f.Low, f.High = senInterval(slopes, ys, confidence)
	f.R2 = max(0, stat.RSquared(xs, ys, nil, f.Intercept, f.Slope))
	if math.IsNaN(f.R2) { // y constant: a flat line explains it all
		f.R2 = 1
	}
	return f, true
}

// senInterval is Sen's (1968) confidence interval of the Theil–Sen slope:
// ranks around the median set by the variance of Kendall's S, corrected
// for tied y values (a counter that stands still, say), rounded outwards.
func senInterval(sorted, y []float64, confidence float64) (lo, hi float64) {
	n := float64(len(y))
	variance := n * (n - 1) * (2*n + 5)
	ys := slices.Clone(y)
	slices.Sort(ys)
	for i := 0; i < len(ys); {
		j := i
		for j < len(ys) && ys[j] == ys[i] {
			j++
		}
		t := float64(j - i)
		variance -= t * (t - 1) * (2*t + 5)
		i = j
	}
	z := distuv.UnitNormal.Quantile(1 - (1-confidence)/2)
	c := z * math.Sqrt(max(variance, 0)/18)
	m := float64(len(sorted))
	lower := int(math.Floor((m-c)/2)) - 1
	upper := int(math.Ceil((m+c)/2+1)) - 1
	clamp := func(i int) int { return min(max(i, 0), len(sorted)-1) }
	return sorted[clamp(lower)], sorted[clamp(upper)]
}

func median(sorted []float64) float64 {
	n := len(sorted)
	if n%2 == 1 {
		return sorted[n/2]
	}
	return (sorted[n/2-1] + sorted[n/2]) / 2
}

func dropNaN(x, y []float64) ([]float64, []float64) {
	var xs, ys []float64
	for i := range min(len(x), len(y)) {
		if !math.IsNaN(x[i]) && !math.IsNaN(y[i]) && !math.IsInf(y[i], 0) {
			xs, ys = append(xs, x[i]), append(ys, y[i])
		}
	}
	return xs, ys
}

// thin averages runs of neighbouring points so that at most limit remain.
func thin(x, y []float64, limit int) ([]float64, []float64) {
	if len(x) <= limit {
		return x, y
	}
	group := (len(x) + limit - 1) / limit
	var xs, ys []float64
	for i := 0; i < len(x); i += group {
		j := min(i+group, len(x))
		xs, ys = append(xs, stat.Mean(x[i:j], nil)), append(ys, stat.Mean(y[i:j], nil))
	}
	return xs, ys
}
