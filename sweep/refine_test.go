package sweep

import (
	"math"
	"testing"

	"github.com/mcpbench/mcpbench/measure"
)

func TestNextRefine(t *testing.T) {
	slo := SLO{P95MS: 50}
	ok := func(c int) measure.Point { return lat(c, 100, 10, 10, 0) }
	bad := func(c int) measure.Point { return lat(c, 100, 90, 90, 0) }
	tests := []struct {
		name   string
		points []measure.Point
		want   int
		wantOK bool
	}{
		{"between 8 and 16", []measure.Point{ok(1), ok(2), ok(4), ok(8), bad(16), bad(32)}, 12, true},
		{"unsorted input", []measure.Point{bad(32), ok(8), ok(1), bad(16)}, 12, true},
		{"adjacent", []measure.Point{ok(8), bad(9)}, 0, false},
		{"gap of two", []measure.Point{ok(8), bad(10)}, 9, true},
		{"all feasible", []measure.Point{ok(1), ok(2)}, 0, false},
		{"none feasible", []measure.Point{bad(1), bad(2)}, 0, false},
		{"infeasible below feasible is ignored", []measure.Point{bad(1), ok(4), bad(32)}, 18, true},
		{"first break wins over a later recovery", []measure.Point{ok(1), bad(8), ok(16), bad(32)}, 4, true},
		{"a failing repeat makes the level infeasible", []measure.Point{ok(1), ok(8), bad(8), bad(16)}, 4, true},
		{"empty", nil, 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, gotOK := NextRefine(tt.points, slo)
			if got != tt.want || gotOK != tt.wantOK {
				t.Errorf("NextRefine = %d, %v; want %d, %v", got, gotOK, tt.want, tt.wantOK)
			}
		})
	}
}

// TestNextRefineConverges drives the loop the command runs against the
// capacity server and checks it lands on the exact limit.
func TestNextRefineConverges(t *testing.T) {
	srv := capacityServer{k: 8, svc: 0.020}
	slo := SLO{P95MS: 50} // p95 = 1.5·c·20/8 ms above 8: feasible up to 13
	points := srv.sweep([]int{1, 2, 4, 8, 16, 32})
	steps := 0
	for c, ok := NextRefine(points, slo); ok; c, ok = NextRefine(points, slo) {
		points = append(points, srv.point(c))
		if steps++; steps > 10 {
			t.Fatal("refine does not converge")
		}
	}
	rec := Recommend(points, slo, nil)
	if rec.MaxFeasibleConcurrency == nil || *rec.MaxFeasibleConcurrency != 13 {
		t.Errorf("max feasible %v after %d refine steps, want 13", deref(rec.MaxFeasibleConcurrency), steps)
	}
	t.Logf("%d refine steps", steps) // 12, 14, 13
}

func TestNextRefineRate(t *testing.T) {
	slo := SLO{P95MS: 50}
	// A server that delivers up to 437 rps.
	at := func(rate float64) measure.Point {
		return ratePoint(rate, math.Min(rate, 437), 20, 30, 0)
	}
	points := []measure.Point{at(100), at(200), at(400), at(800)}
	var asked []float64
	for r, ok := NextRefineRate(points, slo, 0); ok; r, ok = NextRefineRate(points, slo, 0) {
		asked = append(asked, r)
		points = append(points, at(r))
		if len(asked) > 20 {
			t.Fatalf("does not converge: %v", asked)
		}
	}
	rec := Recommend(points, slo, nil)
	// 437/0.99 = 441.4: every rate up to that is sustained; resolution is
	// 1% of the sustained rate (about 4.4 rps).
	if got := deref(rec.MaxSustainableRPS); got == nil || got.(float64) < 437 || got.(float64) > 441.5 {
		t.Errorf("max sustainable %v after %v, want within 437..441.4", got, asked)
	}
	if asked[0] != 600 {
		t.Errorf("first refine rate %v, want 600", asked[0])
	}

	tests := []struct {
		name       string
		points     []measure.Point
		resolution float64
		want       float64
		wantOK     bool
	}{
		{"within resolution", []measure.Point{at(430), at(450)}, 20, 0, false},
		{"fine resolution", []measure.Point{at(430), at(450)}, 0.5, 440, true},
		{"fractional midpoint", []measure.Point{at(1), ratePoint(2, 1, 20, 30, 0)}, 0.1, 1.5, true},
		{"no sustained rate", []measure.Point{ratePoint(100, 10, 20, 30, 0)}, 0, 0, false},
		{"closed-loop points only", []measure.Point{lat(1, 100, 10, 10, 0)}, 0, 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := NextRefineRate(tt.points, slo, tt.resolution)
			if got != tt.want || ok != tt.wantOK {
				t.Errorf("NextRefineRate = %v, %v; want %v, %v", got, ok, tt.want, tt.wantOK)
			}
		})
	}
}
