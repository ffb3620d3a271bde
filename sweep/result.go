package sweep

import (
	"slices"

	"github.com/mcpbench/mcpbench/measure"
)

// Summary gives the headline figures of a sweep.
type Summary struct {
	PointCount      int      `json:"point_count"`
	ErrorTotal      int64    `json:"error_total"`
	PeakRPS         float64  `json:"peak_rps"`
	PeakConcurrency int      `json:"peak_concurrency"`
	PeakRate        *float64 `json:"peak_rate,omitempty"`
}

// Analysis is the points as measured and what the analysis made of them:
// the body of a sweep report (results.SweepReport embeds it), with the
// report's JSON names in its order.
type Analysis struct {
	SLO            SLO             `json:"slo"`
	Points         []measure.Point `json:"points"`
	Summary        Summary         `json:"summary"`
	Knee           *Knee           `json:"knee"`
	USL            *USL            `json:"usl"`
	Recommendation Recommendation  `json:"recommendation"`
}

// Analyze orders the points (closed loop by concurrency, then open loop by
// rate) and derives the summary, knee, USL fit and recommendation. A point
// cut short by an interrupt stays in Points, marked, but the analysis
// leaves it out: its figures cover part of a level, and must not become
// the knee or the recommendation. The caller's slice is not modified.
func Analyze(points []measure.Point, slo SLO) Analysis {
	closed, open := splitPoints(slices.Clone(points))
	ordered := append(closed, open...)
	if ordered == nil {
		ordered = []measure.Point{}
	}
	whole := Complete(ordered)
	res := Analysis{
		SLO:     slo,
		Points:  ordered,
		Summary: summarize(ordered),
		Knee:    FindKnee(whole),
		USL:     FitUSL(whole),
	}
	res.Recommendation = Recommend(whole, slo, res.Knee)
	return res
}

// Complete returns the points that were measured to the end.
func Complete(points []measure.Point) []measure.Point {
	return slices.DeleteFunc(slices.Clone(points), func(p measure.Point) bool { return p.Interrupted })
}

func summarize(points []measure.Point) Summary {
	s := Summary{PointCount: len(points)}
	var peak *measure.Point
	for i := range points {
		p := &points[i]
		s.ErrorTotal += p.Errors
		if finite(p.RPS) && !p.Interrupted && (peak == nil || p.RPS > peak.RPS) {
			peak = p
		}
	}
	if peak != nil {
		s.PeakRPS, s.PeakConcurrency = peak.RPS, peak.Concurrency
		if peak.Rate != nil {
			s.PeakRate = ptr(*peak.Rate)
		}
	}
	return s
}
