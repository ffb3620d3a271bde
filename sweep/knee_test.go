package sweep

import (
	"math/rand/v2"
	"testing"

	"github.com/mcpbench/mcpbench/measure"
)

func TestFindKneeCapacityServer(t *testing.T) {
	got := FindKnee(capacityServer{k: 8, svc: 0.020}.sweep(sweepValues))
	if got == nil || got.Concurrency != 8 || got.Method != KneeKneedle {
		t.Fatalf("exact curve: knee %+v, want concurrency 8 by kneedle", got)
	}
}

// withinOneStep is the tolerance the knee promises: the true knee or a
// neighbouring sweep value.
func withinOneStep(c int) bool { return c == 6 || c == 8 || c == 10 }

func TestFindKneeNoisy(t *testing.T) {
	const seeds = 300
	tests := []struct {
		name   string
		jitter func(r *rand.Rand) func(float64) float64
		// maxMiss is how many seeds may put the knee more than one step
		// from 8.
		maxMiss int
	}{
		{"gaussian 3%", func(r *rand.Rand) func(float64) float64 { return gaussianJitter(r, 0.03) }, 0},
		{"gaussian 5%", func(r *rand.Rand) func(float64) float64 { return gaussianJitter(r, 0.05) }, 0},
		// 1000 exponential service times per point (the seed script's
		// --total 1000): about 3% error per point.
		{"exponential service, 1000 requests", func(r *rand.Rand) func(float64) float64 { return expJitter(r, 1000) }, 0},
		// 200 per point: about 7% error, enough that a low reading at 8
		// and a high one at 12 genuinely move the bend; allow 5% of seeds.
		{"exponential service, 200 requests", func(r *rand.Rand) func(float64) float64 { return expJitter(r, 200) }, seeds / 20},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			exact, miss := 0, 0
			for seed := range uint64(seeds) {
				r := rand.New(rand.NewPCG(seed, 42))
				pts := capacityServer{k: 8, svc: 0.020, jitter: tt.jitter(r)}.sweep(sweepValues)
				k := FindKnee(pts)
				switch {
				case k == nil:
					t.Fatalf("seed %d: nil knee", seed)
				case k.Concurrency == 8:
					exact++
				case !withinOneStep(k.Concurrency):
					miss++
					t.Logf("seed %d: knee %+v", seed, k)
				}
			}
			if miss > tt.maxMiss {
				t.Errorf("%d/%d seeds put the knee more than one step from 8, want at most %d", miss, seeds, tt.maxMiss)
			}
			t.Logf("%d/%d seeds exactly 8, %d outside ±1 step", exact, seeds, miss)
		})
	}
}

func TestFindKneeShapes(t *testing.T) {
	pts := func(ns []int, rps []float64) []measure.Point {
		var out []measure.Point
		for i, n := range ns {
			out = append(out, measure.Point{Concurrency: n, RPS: rps[i]})
		}
		return out
	}
	five := 5.0
	tests := []struct {
		name   string
		points []measure.Point
		want   *Knee
	}{
		{"empty", nil, nil},
		{"rate points only", []measure.Point{{Rate: &five, RPS: 5}}, nil},
		{"one point", pts([]int{4}, []float64{200}), &Knee{4, KneePeak}},
		{"two points", pts([]int{1, 2}, []float64{50, 100}), &Knee{2, KneePeak}},
		{"peak at the second point", pts([]int{1, 2, 4, 8}, []float64{50, 100, 90, 80}), &Knee{2, KneePeak}},
		{"straight line", pts([]int{1, 2, 4, 8, 16}, []float64{50, 100, 200, 400, 800}), &Knee{16, KneePeak}},
		{"convex", pts([]int{1, 2, 4, 8}, []float64{10, 12, 20, 80}), &Knee{8, KneePeak}},
		// Retrograde: throughput peaks at 16 and falls; the knee is sought
		// on the rise only and lies before the peak.
		{"retrograde", pts([]int{1, 2, 4, 8, 16, 32, 64}, []float64{100, 195, 370, 640, 800, 700, 450}), &Knee{8, KneeKneedle}},
		// Duplicate levels are averaged rather than counted twice.
		{"duplicates", pts([]int{1, 2, 4, 4, 8, 16, 32}, []float64{50, 100, 190, 210, 400, 400, 400}), &Knee{8, KneeKneedle}},
		{"unsorted", pts([]int{32, 1, 16, 8, 4, 2}, []float64{400, 50, 400, 400, 200, 100}), &Knee{8, KneeKneedle}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := FindKnee(tt.points)
			if (got == nil) != (tt.want == nil) || (got != nil && *got != *tt.want) {
				t.Errorf("knee %+v, want %+v", got, tt.want)
			}
		})
	}
}
