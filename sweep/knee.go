package sweep

import (
	"cmp"
	"math"
	"slices"

	"github.com/mcpbench/mcpbench/measure"
)

// Knee methods, as reported in knee.method.
const (
	// KneeKneedle: the Kneedle maximum-distance point of the rising part of
	// the throughput curve.
	KneeKneedle = "kneedle"
	// KneePeak: too few points before the throughput peak for Kneedle (fewer
	// than 3), or a curve with no bend (straight or convex), so the knee is
	// the point of highest throughput.
	KneePeak = "peak"
)

// kneeMinBend is the least rise of the scaled curve above its diagonal that
// counts as a bend. A straight line measured with a few percent of noise
// rises by a few hundredths; a real knee by tenths (0.7 for a server that
// saturates a third of the way along the sweep).
const kneeMinBend = 0.1

// kneePlateau is how far below the peak throughput a point may be and
// still count as the plateau: wide enough for run-to-run noise, narrow
// enough that a real retrograde fall ends the curve.
const kneePlateau = 0.95

// Knee is the concurrency beyond which more workers stop buying throughput.
type Knee struct {
	Concurrency int    `json:"concurrency"`
	Method      string `json:"method"`
}

// curvePoint is one concurrency level with its throughput, duplicates of a
// level averaged.
type curvePoint struct {
	n   int
	rps float64
}

// throughputCurve returns the closed-loop points as (concurrency, rps),
// sorted by concurrency, one entry per level, skipping rate points and
// non-finite values.
func throughputCurve(points []measure.Point) []curvePoint {
	type acc struct {
		sum float64
		k   int
	}
	byN := map[int]*acc{}
	for _, p := range points {
		if p.Rate != nil || p.Concurrency <= 0 || !finite(p.RPS) {
			continue
		}
		a := byN[p.Concurrency]
		if a == nil {
			a = &acc{}
			byN[p.Concurrency] = a
		}
		a.sum += p.RPS
		a.k++
	}
	out := make([]curvePoint, 0, len(byN))
	for n, a := range byN {
		out = append(out, curvePoint{n: n, rps: a.sum / float64(a.k)})
	}
	slices.SortFunc(out, func(a, b curvePoint) int { return cmp.Compare(a.n, b.n) })
	return out
}

// FindKnee locates the knee of throughput against concurrency with the
// Kneedle method (Satopää, Albrecht, Irwin and Raghavan, 2011): both axes
// are scaled to [0,1] and the knee is where the scaled curve rises furthest
// above the diagonal from its first point to its peak. Only the part up to
// the end of the throughput plateau (within 5% of the peak) is used,
// because a retrograde tail (throughput falling under contention) is not
// part of the concave rise Kneedle models. Rate
// points are ignored. It returns nil when there is no closed-loop point.
//
// There is no smoothing and no threshold step: sweeps have a handful of
// points, and smoothing them would move the knee off a measured level.
func FindKnee(points []measure.Point) *Knee {
	curve := throughputCurve(points)
	if len(curve) == 0 {
		return nil
	}
	peak := 0
	for i, c := range curve {
		if c.rps > curve[peak].rps {
			peak = i
		}
	}
	// The rise ends at the last point still on the plateau, not at the
	// single highest reading: on a flat top, noise puts the maximum at a
	// random level, and cutting there would squeeze the x axis.
	end := peak
	for i, c := range curve {
		if c.rps >= kneePlateau*curve[peak].rps {
			end = i
		}
	}
	rise := curve[:end+1]
	if len(rise) < 3 {
		return &Knee{Concurrency: curve[peak].n, Method: KneePeak}
	}
	x0, x1 := float64(rise[0].n), float64(rise[end].n)
	y0, y1 := rise[0].rps, curve[peak].rps
	if y1 <= y0 {
		return &Knee{Concurrency: curve[peak].n, Method: KneePeak}
	}
	best, bestDiff := end, 0.0
	for i, c := range rise {
		x := (float64(c.n) - x0) / (x1 - x0)
		y := (c.rps - y0) / (y1 - y0)
		// Strictly greater: on a plateau of equal differences the lowest
		// concurrency wins, which is the cheaper setting.
		if d := y - x; d > bestDiff {
			best, bestDiff = i, d
		}
	}
	if bestDiff < kneeMinBend {
		// Straight (within noise) or convex: throughput still scales at
		// the peak, so the sweep has not reached a knee.
		return &Knee{Concurrency: curve[peak].n, Method: KneePeak}
	}
	return &Knee{Concurrency: rise[best].n, Method: KneeKneedle}
}

func finite(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }
