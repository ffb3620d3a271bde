package results

import (
	"strings"
	"testing"
	"time"

	"github.com/mcpbench/mcpbench/measure"
)

func TestAbortRulesParse(t *testing.T) {
	for _, c := range []struct {
		in   string
		want AbortRule
	}{
		{"p99>500ms for 30s", AbortRule{Metric: "p99", Above: true, Limit: 500, For: 30 * time.Second}},
		{"error_rate>5% for 10s", AbortRule{Metric: "error_rate", Above: true, Limit: 0.05, For: 10 * time.Second}},
		{"rps<100 for 20s", AbortRule{Metric: "rps", Limit: 100, For: 20 * time.Second}},
		{"p95>1.5s", AbortRule{Metric: "p95", Above: true, Limit: 1500}},
	} {
		got, err := ParseAbortRule(c.in)
		c.want.Text = c.in
		if err != nil || got != c.want {
			t.Errorf("%q: %+v, %v; want %+v", c.in, got, err, c.want)
		}
	}
	for _, bad := range []string{"p99", "p99>5% for 1s", "rps<10ms", "cpu>1", "p99>1ms for soon"} {
		if _, err := ParseAbortRule(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}

func TestAbortWatchNeedsTheBreachToLast(t *testing.T) {
	p99, _ := ParseAbortRule("p99>100ms for 2s")
	rps, _ := ParseAbortRule("rps<10 for 1s")
	w := AbortWatch{Rules: []AbortRule{p99, rps}}
	feed := func(end float64, p99 float64, reqs int64) *Aborted {
		return w.Observe(IntervalFigures{EndS: end, LengthS: 1, Requests: reqs, P99MS: p99})
	}
	// Two breaches broken by a good interval do not add up.
	for i, v := range []float64{150, 50, 150} {
		if a := feed(float64(i+1), v, 100); a != nil {
			t.Fatalf("interval %d aborted: %+v", i+1, a)
		}
	}
	a := feed(4, 120, 100)
	if a == nil || a.AtS != 4 || !strings.HasPrefix(a.Reason, "p99>100ms for 2s: p99 was 120 ms") {
		t.Fatalf("second breach in a row: %+v", a)
	}
	w = AbortWatch{Rules: []AbortRule{p99, rps}}
	if a := feed(1, 0, 5); a == nil || !strings.Contains(a.Reason, "rps was 5/s") {
		t.Errorf("a slow interval: %+v", a)
	}
}

func TestMaxRecoveryGatesEachSpike(t *testing.T) {
	r := &RunReport{}
	r.Spikes = []measure.Spike{{Stage: 2, Back: 4, RecoveryS: 1.5, Recovered: true}, {Stage: 5, Back: 7, RecoveryS: 0.5}}
	if !(Gates{MaxRecoveryS: 2}).Run(r) {
		t.Error("a spike that never recovered passed")
	}
	var rec []Gate
	for _, g := range r.Gates {
		if g.Name == "recovery_s" {
			rec = append(rec, g)
		}
	}
	if len(rec) != 2 || !rec[0].Passed || rec[1].Passed {
		t.Errorf("recovery gates %+v", rec)
	}
	r = &RunReport{}
	r.Spikes = []measure.Spike{{RecoveryS: 2.5, Recovered: true}}
	if !(Gates{MaxRecoveryS: 2}).Run(r) {
		t.Error("a 2.5 s recovery passed a 2 s gate")
	}
}
