package bench

import (
	"runtime"
	"testing"
	"time"
)

// TestSaturationNeedsEnoughToJudge: the same busy figures that mark a
// second-long point saturated say nothing about a few milliseconds, and a
// send-lag p99 over a handful of sends is not judged either.
func TestSaturationNeedsEnoughToJudge(t *testing.T) {
	cores := time.Duration(min(runtime.GOMAXPROCS(0), runtime.NumCPU()))
	closed := &runner{cfg: Config{Model: ClosedLoop{Concurrency: 1}}}
	for _, tt := range []struct {
		elapsed time.Duration
		want    bool
	}{
		{5 * time.Millisecond, false},
		{minJudgeWindow - time.Millisecond, false},
		{2 * time.Second, true},
	} {
		// Waited for a CPU half the time on every core: a busy machine.
		got, why := closed.saturation(backlog{}, 0, tt.elapsed*cores/2, tt.elapsed)
		if got != tt.want {
			t.Errorf("closed loop over %v: saturated %v (%s), want %v", tt.elapsed, got, why, tt.want)
		}
	}

	openCfg := Config{Model: OpenLoop{Rate: 1000}, LagThreshold: 5 * time.Millisecond}
	open := &runner{cfg: openCfg, p: openCfg.pace()}
	wake := NewHistogram()
	for range minJudgeSends - 1 {
		_ = wake.RecordValue(50_000) // 50 ms late, in µs
	}
	p := backlog{unit: "requests", started: minJudgeSends - 1, due: minJudgeSends - 1}
	open.judgeWake(wake)
	if got, why := open.saturation(p, 0, 0, 2*time.Second); got {
		t.Errorf("%d sends: saturated (%s)", p.started, why)
	}
	_ = wake.RecordValue(50_000)
	open.judgeWake(wake)
	if got, _ := open.saturation(p, 0, 0, 2*time.Second); !got {
		t.Errorf("%d sends 50 ms late: not saturated", minJudgeSends)
	}
}
