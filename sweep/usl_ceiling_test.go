package sweep

import (
	"testing"

	"github.com/mcpbench/mcpbench/measure"
)

// TestFitUSLHardCeiling: a server that scales linearly to 8 slots and then
// stops (the bundled server in make demo, measured) is fitted, not refused
// as superlinear: the free fit's negative σ is a bend, not a speed-up.
func TestFitUSLHardCeiling(t *testing.T) {
	var ps []measure.Point
	for _, c := range [][2]float64{{1, 44.8}, {2, 89.3}, {4, 172.1}, {8, 349.4}, {12, 395.0}, {16, 398.5}, {24, 397.4}} {
		ps = append(ps, measure.Point{Concurrency: int(c[0]), RPS: c[1]})
	}
	u := FitUSL(ps)
	if u == nil {
		t.Fatal("a capacity-limited curve was not fitted")
	}
	if u.R2 < 0.95 || u.PeakRPS == nil || *u.PeakRPS < 380 || *u.PeakRPS > 440 {
		t.Fatalf("fit %+v: want r² ≥ 0.95 and a peak near 400 rps", *u)
	}
}
