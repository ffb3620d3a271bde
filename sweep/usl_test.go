package sweep

import (
	"encoding/json"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/mcpbench/mcpbench/measure"
)

func relErr(got, want float64) float64 { return math.Abs(got-want) / math.Abs(want) }

func TestFitUSLRecoversParameters(t *testing.T) {
	const lambda, sigma, kappa = 100.0, 0.05, 0.001
	wantPeak := math.Sqrt((1 - sigma) / kappa) // 30.8
	tests := []struct {
		name  string
		ns    []int
		noise float64
		seeds uint64
		// tol is the relative error allowed on σ, κ, λ and the peak, in
		// that order, for the worst seed. σ and κ trade off against each
		// other, so they scatter more than λ and the peak they imply.
		tol [4]float64
	}{
		{"exact, N=1..64", seqInts(1, 64), 0, 1, [4]float64{1e-6, 1e-6, 1e-6, 1e-6}},
		{"exact, doubling", []int{1, 2, 4, 8, 16, 32, 64}, 0, 1, [4]float64{1e-6, 1e-6, 1e-6, 1e-6}},
		{"exact, three points", []int{1, 16, 64}, 0, 1, [4]float64{1e-6, 1e-6, 1e-6, 1e-6}},
		{"1% noise, N=1..64", seqInts(1, 64), 0.01, 50, [4]float64{0.05, 0.05, 0.05, 0.05}},
		{"1% noise, doubling", []int{1, 2, 4, 8, 16, 32, 64}, 0.01, 50, [4]float64{0.10, 0.10, 0.05, 0.05}},
		{"2% noise, N=1..64", seqInts(1, 64), 0.02, 50, [4]float64{0.10, 0.10, 0.05, 0.05}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var worst [4]float64
			for seed := range tt.seeds {
				var r *rand.Rand
				if tt.noise > 0 {
					r = rand.New(rand.NewPCG(seed, 7))
				}
				u := FitUSL(uslPoints(lambda, sigma, kappa, tt.ns, r, tt.noise))
				if u == nil {
					t.Fatalf("seed %d: no fit", seed)
				}
				if u.PeakConcurrency == nil || u.PeakRPS == nil {
					t.Fatalf("seed %d: no peak in %+v", seed, u)
				}
				errs := [4]float64{relErr(u.Sigma, sigma), relErr(u.Kappa, kappa), relErr(u.Lambda, lambda), relErr(*u.PeakConcurrency, wantPeak)}
				for i, e := range errs {
					worst[i] = math.Max(worst[i], e)
				}
				if u.R2 < 0.95 {
					t.Errorf("seed %d: r² %.4f", seed, u.R2)
				}
			}
			t.Logf("worst relative error over %d seeds: sigma %.2g%%, kappa %.2g%%, lambda %.2g%%, peak %.2g%%",
				tt.seeds, 100*worst[0], 100*worst[1], 100*worst[2], 100*worst[3])
			for i, name := range []string{"sigma", "kappa", "lambda", "peak concurrency"} {
				if worst[i] > tt.tol[i] {
					t.Errorf("%s off by %.2g%%, want within %.2g%%", name, 100*worst[i], 100*tt.tol[i])
				}
			}
		})
	}
}

func TestFitUSLPeakCases(t *testing.T) {
	// κ = 0: the model never turns down; it approaches λ/σ.
	u := FitUSL(uslPoints(100, 0.1, 0, []int{1, 2, 4, 8, 16, 32}, nil, 0))
	if u == nil || u.PeakConcurrency != nil || u.PeakRPS == nil || relErr(*u.PeakRPS, 1000) > 1e-3 {
		t.Errorf("kappa 0: %+v, want no peak concurrency and peak_rps 1000", u)
	}
	// Linear scaling: no ceiling at all.
	u = FitUSL(uslPoints(100, 0, 0, []int{1, 2, 4, 8}, nil, 0))
	if u == nil || u.PeakConcurrency != nil || u.PeakRPS != nil || u.Sigma != 0 || u.Kappa != 0 {
		t.Errorf("linear: %+v, want sigma = kappa = 0 and no peak", u)
	}
	// Flat throughput: everything serialises (σ = 1), the peak is one worker.
	u = FitUSL(uslPoints(100, 1, 0, []int{1, 2, 4}, nil, 0))
	if u == nil || u.PeakConcurrency == nil || *u.PeakConcurrency != 1 {
		t.Errorf("flat: %+v, want peak concurrency 1", u)
	}
	// The capacity server: a hard ceiling the smooth law approximates.
	u = FitUSL(capacityServer{k: 8, svc: 0.020}.sweep(sweepValues))
	if u == nil {
		t.Fatal("capacity server: no fit")
	}
	b, _ := json.Marshal(u)
	t.Logf("capacity server fit: %s", b)
}

func TestFitUSLRefuses(t *testing.T) {
	nan, rate := math.NaN(), 10.0
	pts := func(rps ...float64) []measure.Point {
		var out []measure.Point
		for i, x := range rps {
			out = append(out, measure.Point{Concurrency: 1 << i, RPS: x})
		}
		return out
	}
	tests := []struct {
		name   string
		points []measure.Point
	}{
		{"none", nil},
		{"two points", pts(100, 190)},
		{"two distinct levels", append(pts(100, 190), measure.Point{Concurrency: 2, RPS: 185})},
		{"zeros", pts(0, 0, 0, 0)},
		{"one zero", pts(100, 190, 0, 350)},
		{"NaN", pts(100, nan, 300)},
		{"infinite", pts(100, math.Inf(1), 300)},
		{"negative", pts(100, -5, 300)},
		{"superlinear", pts(10, 40, 160, 640, 2560)},
		{"noise without shape", pts(100, 300, 90, 310, 95, 305, 100)},
		{"rate points only", []measure.Point{{Rate: &rate, RPS: 10}, {Rate: &rate, RPS: 10}, {Rate: &rate, RPS: 10}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if u := FitUSL(tt.points); u != nil {
				t.Errorf("got %+v, want nil", u)
			}
		})
	}
	b, _ := json.Marshal(struct {
		USL *USL `json:"usl"`
	}{FitUSL(nil)})
	if !strings.Contains(string(b), `"usl":null`) {
		t.Errorf("nil fit marshals as %s, want null", b)
	}
}
