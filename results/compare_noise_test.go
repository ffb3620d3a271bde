package results

import (
	"math"
	"strings"
	"testing"

	"github.com/mcpbench/mcpbench/measure"
)

// TestShiftInterval: the Hodges–Lehmann shift of the log values, against
// values worked by hand.
func TestShiftInterval(t *testing.T) {
	base := []float64{10, 11, 12, 13, 14, 15}
	scaled := make([]float64, len(base))
	for i, v := range base {
		scaled[i] = 1.1 * v
	}
	// Every value times 1.1: each difference of the same index is ln 1.1,
	// the median of all 36 is too, and the spread of the base (ln 1.5)
	// keeps 0 inside the interval.
	nz, ok := ShiftInterval(base, scaled)
	if !ok || math.Abs(nz.Change-0.1) > 1e-9 || !nz.WithinNoise || nz.Intervals != [2]int{6, 6} {
		t.Errorf("×1.1 within a spread of 1.5: %+v", nz)
	}
	// Twice as much: every difference is positive, beyond the noise. With
	// 6 and 6 values, k = floor(18 − 1.96·√39) = 5: the interval is the
	// 6th smallest and 6th largest difference.
	double := make([]float64, len(base))
	for i, v := range base {
		double[i] = 2 * v
	}
	nz, _ = ShiftInterval(base, double)
	if nz.WithinNoise || math.Abs(nz.Low-(2*12.0/15-1)) > 1e-9 || math.Abs(nz.High-(2*15.0/12-1)) > 1e-9 {
		t.Errorf("×2: %+v", nz)
	}
	if _, ok := ShiftInterval(base[:4], base); ok {
		t.Error("4 intervals judged")
	}
}

// TestCompareSaysWithinNoise: a p95 that passes its limit while the
// per-interval series of both runs overlap gets a note; the JSON keeps
// each figure's shift.
func TestCompareSaysWithinNoise(t *testing.T) {
	run := func(p95 float64, wobble []float64) *RunReport {
		s := &measure.Series{IntervalS: 1, LastS: 1}
		for _, w := range wobble {
			s.OK = append(s.OK, 100)
			s.Sent = append(s.Sent, 100)
			s.RPS = append(s.RPS, 100)
			s.P50MS = append(s.P50MS, 5)
			s.P95MS = append(s.P95MS, p95*w)
			s.P99MS = append(s.P99MS, 2*p95*w)
		}
		r := &RunReport{}
		r.Point.P95MS, r.Point.RPS, r.Point.Series = p95, 100, s
		return r
	}
	noisy := []float64{0.6, 1.5, 0.8, 1.3, 1, 0.7, 1.4}
	c := CompareRuns(run(10, noisy), run(12, noisy), DefaultLimits())
	if c.Passed || len(c.Noise) != 4 {
		t.Fatalf("passed %v, noise %+v", c.Passed, c.Noise)
	}
	if !strings.Contains(strings.Join(c.Notes, "\n"), "p95_ms: the change passes its limit but lies within the noise") {
		t.Errorf("notes: %q", c.Notes)
	}
}
