package results

import "github.com/mcpbench/mcpbench/measure"
import "testing"

func stagedRun(p99 ...float64) *RunReport {
	r := &RunReport{}
	r.RPS, r.P95MS, r.P99MS = 100, 10, 10
	for i, v := range p99 {
		r.Stages = append(r.Stages, measure.StageSummary{FromS: float64(2 * i), ToS: float64(2*i + 2), Target: 4, Requests: 200, RPS: 100, P50MS: 5, P95MS: 8, P99MS: v})
	}
	return r
}

func TestCompareGoesStageByStage(t *testing.T) {
	c := CompareRuns(stagedRun(10, 10), stagedRun(10, 30), DefaultLimits())
	var bad []string
	for _, ch := range c.Checks {
		if ch.Verdict == VerdictRegression {
			bad = append(bad, ch.Scope+" "+ch.Metric)
		}
	}
	if len(bad) != 1 || bad[0] != "run, stage 2 p99_ms" {
		t.Errorf("regressions %v, want stage 2's p99 alone", bad)
	}
	c = CompareRuns(stagedRun(10, 10), stagedRun(10), DefaultLimits())
	if len(c.Notes) == 0 || c.Regressions != 0 {
		t.Errorf("different stages: notes %v, %d regressions", c.Notes, c.Regressions)
	}
}

func TestMergedStagesFollowTheMergedSeries(t *testing.T) {
	shard := func(ok ...int64) measure.Point {
		p := measure.Point{Series: &measure.Series{IntervalS: 1, LastS: 1, OK: ok, Sent: ok, RPS: make([]float64, len(ok)), P50MS: make([]float64, len(ok)),
			P95MS: make([]float64, len(ok)), P99MS: make([]float64, len(ok)), MaxMS: make([]float64, len(ok)), InFlight: make([]int64, len(ok)),
			CPUS: make([]float64, len(ok)), Histograms: make([]string, len(ok))}}
		p.Stages = []measure.StageSummary{{FromS: 0, ToS: 2, Target: 2}, {FromS: 2, ToS: 4, Target: 4}}
		return p
	}
	a, b := shard(10, 10, 20, 20), shard(1, 1, 2, 2)
	var out measure.Point
	out.Series = shard(11, 11, 22, 22).Series // what mergeSeries gives
	if err := mergeStages(&out, []measure.Point{a, b}); err != nil {
		t.Fatal(err)
	}
	if len(out.Stages) != 2 || out.Stages[0].Requests != 22 || out.Stages[1].Requests != 44 || out.Stages[1].Target != 8 || out.Stages[1].RPS != 22 {
		t.Errorf("merged stages %+v", out.Stages)
	}
	b.Stages = b.Stages[:1]
	if err := mergeStages(&out, []measure.Point{a, b}); err == nil {
		t.Error("shards with different stages merged")
	}
}
