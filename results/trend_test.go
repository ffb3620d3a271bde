package results

import (
	"math"
	"math/rand/v2"
	"testing"
)

func TestTheilSenExactLine(t *testing.T) {
	x := []float64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}
	y := make([]float64, len(x))
	for i := range x {
		y[i] = 5 + 2*x[i]
	}
	f, ok := TheilSen(x, y, 0.95)
	if !ok || f.Slope != 2 || f.Intercept != 5 || f.Low != 2 || f.High != 2 || f.R2 != 1 {
		t.Fatalf("fit %+v ok %v, want slope 2 intercept 5, a zero-width interval and r² 1", f, ok)
	}
}

// TestTheilSenShrugsOffOutliers: a tenth of the points thrown far off (a
// GC pause in a latency series) barely move the slope, which least
// squares would follow.
func TestTheilSenShrugsOffOutliers(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	var x, y []float64
	for i := range 200 {
		v := 100 + 0.5*float64(i) + rng.NormFloat64()
		if i%10 == 3 {
			v += 500
		}
		x, y = append(x, float64(i)), append(y, v)
	}
	f, ok := TheilSen(x, y, 0.95)
	if !ok || math.Abs(f.Slope-0.5) > 0.02 {
		t.Fatalf("slope %v (ok %v), want 0.5 within 0.02", f.Slope, ok)
	}
	if f.Low > 0.5 || f.High < 0.5 || f.High-f.Low > 0.1 {
		t.Errorf("95%% interval [%v, %v] should hold 0.5 and be narrow", f.Low, f.High)
	}
}

// TestTheilSenIntervalCoverage checks Sen's interval on noise with a known
// slope: over many draws about 95% of the intervals hold the true slope.
func TestTheilSenIntervalCoverage(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	const draws = 300
	held := 0
	for range draws {
		var x, y []float64
		for i := range 40 {
			x, y = append(x, float64(i)), append(y, 0.2*float64(i)+3*rng.NormFloat64())
		}
		f, _ := TheilSen(x, y, 0.95)
		if f.Low <= 0.2 && 0.2 <= f.High {
			held++
		}
	}
	if share := float64(held) / draws; share < 0.9 || share > 0.99 {
		t.Errorf("the 95%% interval held the true slope in %.0f%% of draws", 100*share)
	}
}

func TestTheilSenFlatNoiseIsNotSignificant(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	var x, y []float64
	for i := range 60 {
		x, y = append(x, float64(i)), append(y, 50+rng.NormFloat64())
	}
	f, _ := TheilSen(x, y, 0.95)
	if f.Low > 0 || f.High < 0 {
		t.Errorf("flat noise: interval [%v, %v] excludes 0", f.Low, f.High)
	}
	if f.R2 > 0.2 {
		t.Errorf("flat noise: r² %v", f.R2)
	}
}

func TestTheilSenMissingAndThinning(t *testing.T) {
	if _, ok := TheilSen([]float64{1, 2, 3}, []float64{1, math.NaN(), 3}, 0.95); ok {
		t.Error("two points left: a fit")
	}
	var x, y []float64
	for i := range 5000 {
		x, y = append(x, float64(i)), append(y, 7*float64(i))
	}
	f, ok := TheilSen(x, y, 0.95)
	if !ok || f.N != maxFitPoints || math.Abs(f.Slope-7) > 1e-9 {
		t.Errorf("5000 points: n %d slope %v, want %d points and slope 7", f.N, f.Slope, maxFitPoints)
	}
	// A counter that stands still: every y tied.
	f, ok = TheilSen([]float64{1, 2, 3, 4, 5}, []float64{4, 4, 4, 4, 4}, 0.95)
	if !ok || f.Slope != 0 || f.Low != 0 || f.High != 0 || f.R2 != 1 {
		t.Errorf("constant: %+v", f)
	}
}
