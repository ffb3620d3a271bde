package results

import (
	"testing"

	"github.com/mcpbench/mcpbench/measure"
	"github.com/mcpbench/mcpbench/sweep"
)

// TestSweepGates: --fail-on-slo fails only when no point met the SLO (a
// sweep measures past the limit on purpose), --require-concurrency when the
// highest feasible concurrency is below it; each is recorded as it was
// judged (issue 19, point 4).
func TestSweepGates(t *testing.T) {
	point := func(c int, p99 float64) measure.Point {
		p := measure.Point{Concurrency: c, RPS: float64(c) * 100}
		p.Requests, p.OK, p.P95MS, p.P99MS = 100, 100, p99/2, p99
		return p
	}
	slo := sweep.SLO{P99MS: 100}
	some := NewSweepReport(Header{}, []measure.Point{point(1, 20), point(8, 300)}, slo)
	none := NewSweepReport(Header{}, []measure.Point{point(1, 200), point(8, 300)}, slo)
	for _, tt := range []struct {
		name  string
		r     *SweepReport
		g     Gates
		fails bool
		gates []Gate
	}{
		{"no gate asked for", none, Gates{SLO: slo}, false, []Gate{}},
		{"one point met the SLO", some, Gates{SLO: slo, FailOnSLO: true}, false,
			[]Gate{{Name: "points_meeting_slo", Limit: 1, Value: 1, Passed: true}}},
		{"none met it", none, Gates{SLO: slo, FailOnSLO: true}, true,
			[]Gate{{Name: "points_meeting_slo", Limit: 1, Value: 0, Passed: false}}},
		{"concurrency required", some, Gates{SLO: slo, RequireConcurrency: 8}, true,
			[]Gate{{Name: "max_feasible_concurrency", Limit: 8, Value: 1, Passed: false}}},
		{"concurrency met", some, Gates{SLO: slo, RequireConcurrency: 1}, false,
			[]Gate{{Name: "max_feasible_concurrency", Limit: 1, Value: 1, Passed: true}}},
	} {
		err := tt.g.Sweep(tt.r)
		if (err != nil) != tt.fails || len(tt.r.Gates) != len(tt.gates) {
			t.Errorf("%s: error %v, gates %+v", tt.name, err, tt.r.Gates)
			continue
		}
		for i := range tt.gates {
			if tt.r.Gates[i] != tt.gates[i] {
				t.Errorf("%s: gate %+v, want %+v", tt.name, tt.r.Gates[i], tt.gates[i])
			}
		}
	}
}
