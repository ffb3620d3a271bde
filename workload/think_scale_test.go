package workload_test

import (
	"context"
	"testing"
	"time"

	"github.com/mcpbench/mcpbench/bench"
	"github.com/mcpbench/mcpbench/target"
	"github.com/mcpbench/mcpbench/workload"
)

// TestThinkScale: --think-scale multiplies the pauses a scenario gives
// (recorded ones, say): the think time the sessions report is the file's
// times the scale, and the sessions take that much longer.
func TestThinkScale(t *testing.T) {
	o := observe(t, target.Config{})
	c := o.dial(t, 2)
	f, err := workload.ParseScenarios([]byte(`scenarios: [{name: s, steps: [ping, {think: 40ms}, ping]}]`), t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	for _, scale := range []float64{0.25, 2} {
		wl, err := workload.BuildScenarios(context.Background(), c, "", workload.ScenarioSpec{File: f, ThinkScale: scale})
		if err != nil {
			t.Fatal(err)
		}
		p, err := bench.Run(context.Background(), bench.Config{Model: bench.ScenarioUsers{Users: 1}, Total: 4}, wl)
		if err != nil || p.Sessions.Completed != 4 {
			t.Fatalf("%v %+v", err, p.Sessions)
		}
		want := 4 * 40 * time.Millisecond.Seconds() * scale
		// Timers wake late, never early: up to 5 ms a pause on a busy machine.
		if p.Sessions.ThinkS < want*0.999 || p.Sessions.ThinkS > want+0.02 {
			t.Errorf("scale %g: %.3f s of think time in all, want %.3f", scale, p.Sessions.ThinkS, want)
		}
		if min := 40 * scale; p.Sessions.Duration.P50MS < min {
			t.Errorf("scale %g: sessions took %.1f ms, under the %.0f ms they pause", scale, p.Sessions.Duration.P50MS, min)
		}
	}
}
