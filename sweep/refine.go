package sweep

import (
	"math"

	"github.com/mcpbench/mcpbench/measure"
)

// NextRefine returns the next concurrency to measure when refining a sweep:
// the midpoint between the last feasible level and the first infeasible
// level above it. ok is false when there is nothing left to search (no
// feasible point, no infeasible point above one, or the two are adjacent).
// A level measured more than once is feasible only if every measurement
// was, so a noisy repeat cannot talk the search upwards.
//
//	for c, ok := sweep.NextRefine(points, slo); ok; c, ok = sweep.NextRefine(points, slo) {
//		points = append(points, measure(c))
//	}
func NextRefine(points []measure.Point, slo SLO) (int, bool) {
	closed, _ := splitPoints(points)
	var levels []float64
	var ok []bool
	for _, p := range closed {
		if p.Concurrency <= 0 {
			continue
		}
		c := float64(p.Concurrency)
		if n := len(levels); n > 0 && levels[n-1] == c {
			ok[n-1] = ok[n-1] && slo.Feasible(p)
			continue
		}
		levels, ok = append(levels, c), append(ok, slo.Feasible(p))
	}
	lo, hi, found := bracket(levels, ok)
	if !found || hi-lo <= 1 {
		return 0, false
	}
	return int(lo) + int(hi-lo)/2, true
}

// NextRefineRate is NextRefine for open-loop points: it bisects between
// the highest sustained rate (SLO met and at least 99% of the offered rate
// achieved) and the first unsustained rate above it, and stops when they
// are within resolution requests/s. A resolution of zero or less means 1%
// of the sustained rate, and never finer than 1 rps.
func NextRefineRate(points []measure.Point, slo SLO, resolution float64) (float64, bool) {
	_, open := splitPoints(points)
	var levels []float64
	var ok []bool
	for _, p := range open {
		r := *p.Rate
		if !(r > 0) || !finite(r) {
			continue
		}
		if n := len(levels); n > 0 && levels[n-1] == r {
			ok[n-1] = ok[n-1] && slo.Sustained(p)
			continue
		}
		levels, ok = append(levels, r), append(ok, slo.Sustained(p))
	}
	lo, hi, found := bracket(levels, ok)
	if !found {
		return 0, false
	}
	if resolution <= 0 {
		resolution = math.Max(1, 0.01*lo)
	}
	if hi-lo <= resolution {
		return 0, false
	}
	mid := lo + (hi-lo)/2
	// Whole rates read better in reports, as long as rounding keeps the
	// midpoint strictly inside the bracket.
	if r := math.Round(mid); r > lo && r < hi {
		mid = r
	}
	return roundSig(mid), true
}

// bracket finds the first infeasible level that has a feasible level below
// it, and that feasible level.
func bracket(levels []float64, ok []bool) (lo, hi float64, found bool) {
	seen := false
	for i, l := range levels {
		switch {
		case ok[i]:
			seen, lo = true, l
		case seen:
			return lo, l, true
		}
	}
	return 0, 0, false
}
