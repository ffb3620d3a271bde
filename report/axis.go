package report

import (
	"math"
	"slices"
)

// The load axis of the sweep charts, shared by the SVG and the HTML page
// so both choose the same scale and label the same loads.

// loadAxis picks the x axis for loads: a log axis when the loads grow
// geometrically over a wide range (concurrency 1, 2, 4 … 64), a linear one
// when they are evenly spaced (rates 100, 200 … 1000), where a log axis
// would bend a straight line.
func loadAxis(xs []float64) string {
	if len(xs) < 3 {
		return axisLinear
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	if s[0] <= 0 || s[len(s)-1]/s[0] < 8 {
		return axisLinear
	}
	if spread(s, func(v float64) float64 { return math.Log(v) }) < spread(s, func(v float64) float64 { return v }) {
		return axisLog
	}
	return axisLinear
}

// spread is the ratio of the largest to the smallest gap between sorted
// values under f: 1 for values evenly spaced in that scale.
func spread(sorted []float64, f func(float64) float64) float64 {
	lo, hi := math.Inf(1), 0.0
	for i := 1; i < len(sorted); i++ {
		g := f(sorted[i]) - f(sorted[i-1])
		if g <= 0 {
			continue
		}
		lo, hi = math.Min(lo, g), math.Max(hi, g)
	}
	if hi == 0 {
		return 1
	}
	return hi / lo
}

// loadTicks are the measured loads to label on the x axis, thinned so
// neighbouring labels keep at least 6% of the axis apart (in the axis's
// scale); the highest load is always labelled.
func loadTicks(loads []float64, axis string) []float64 {
	if len(loads) == 0 {
		return nil
	}
	s := slices.Clone(loads)
	slices.Sort(s)
	s = slices.Compact(s)
	pos := func(x float64) float64 { return x }
	if axis == axisLog {
		pos = math.Log
	}
	span := pos(s[len(s)-1]) - pos(s[0])
	var ticks []float64
	for i, x := range s {
		if len(ticks) > 0 && pos(x)-pos(ticks[len(ticks)-1]) < 0.06*span {
			if i != len(s)-1 {
				continue
			}
			ticks = ticks[:len(ticks)-1] // make room for the highest
		}
		ticks = append(ticks, x)
	}
	return ticks
}
