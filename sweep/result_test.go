package sweep

import (
	"slices"
	"testing"

	"github.com/mcpbench/mcpbench/measure"
)

func TestAnalyzeCapacityServer(t *testing.T) {
	pts := capacityServer{k: 8, svc: 0.020}.sweep(sweepValues)
	// Shuffle the input and add errors to check ordering and totals.
	in := append([]measure.Point{pts[9], pts[3]}, pts[:3]...)
	in = append(in, pts[4:9]...)
	in[0].Errors = 5
	before := in[0].Concurrency

	res := Analyze(in, SLO{P95MS: 50, P99MS: 70})
	if in[0].Concurrency != before {
		t.Error("Analyze reordered the caller's slice")
	}
	for i, p := range res.Points {
		if p.Concurrency != sweepValues[i] {
			t.Fatalf("points not ordered by concurrency: %d at %d", p.Concurrency, i)
		}
	}
	s := res.Summary
	if s.PointCount != 10 || s.ErrorTotal != 5 || s.PeakRPS != 400 || s.PeakConcurrency != 8 || s.PeakRate != nil {
		t.Errorf("summary %+v", s)
	}
	if res.Knee == nil || res.Knee.Concurrency != 8 {
		t.Errorf("knee %+v", res.Knee)
	}
	if res.USL == nil {
		t.Error("no USL fit")
	}
	r := res.Recommendation
	if r.KneeConcurrency == nil || *r.KneeConcurrency != 8 || r.RecommendedConcurrency == nil || *r.RecommendedConcurrency != 8 {
		t.Errorf("recommendation %+v", r)
	}
}

func TestAnalyzeRateSweep(t *testing.T) {
	res := Analyze([]measure.Point{ratePoint(200, 200, 20, 30, 0), ratePoint(100, 100, 20, 30, 0), ratePoint(400, 300, 200, 300, 0)}, SLO{P95MS: 50})
	if *res.Points[0].Rate != 100 || *res.Points[2].Rate != 400 {
		t.Error("rate points not ordered by rate")
	}
	if res.Knee != nil || res.USL != nil {
		t.Errorf("knee %+v usl %+v on a rate sweep", res.Knee, res.USL)
	}
	if res.Summary.PeakRate == nil || *res.Summary.PeakRate != 400 || res.Summary.PeakRPS != 300 {
		t.Errorf("summary %+v", res.Summary)
	}
	if r := res.Recommendation.MaxSustainableRPS; r == nil || *r != 200 {
		t.Errorf("max sustainable %v", deref(r))
	}
}

// TestAnalyzeLeavesOutCutShortPoints: a point cut short by an interrupt is
// kept and marked, but cannot be the knee, the peak or the recommendation,
// however good its partial figures look (issue 19, point 14).
func TestAnalyzeLeavesOutCutShortPoints(t *testing.T) {
	points := capacityServer{k: 8, svc: 0.020}.sweep([]int{1, 2, 4, 8})
	cut := lat(16, 900, 5, 6, 0) // a few fast answers before the stop
	cut.Interrupted = true
	a := Analyze(append(points, cut), SLO{P95MS: 70, P99MS: 100})
	if len(a.Points) != 5 || !a.Points[4].Interrupted {
		t.Fatalf("the cut-short point is not kept and marked: %+v", a.Points)
	}
	rec := a.Recommendation
	if slices.Contains(rec.FeasibleConcurrency, 16) || rec.RecommendedConcurrency == nil || *rec.RecommendedConcurrency == 16 ||
		rec.MaxFeasibleConcurrency == nil || *rec.MaxFeasibleConcurrency != 8 {
		t.Errorf("recommendation took the cut-short point: %+v", rec)
	}
	if a.Summary.PeakConcurrency == 16 || a.Summary.PointCount != 5 {
		t.Errorf("summary %+v", a.Summary)
	}
	if a.Knee != nil && a.Knee.Concurrency == 16 {
		t.Errorf("knee at the cut-short point")
	}
}
