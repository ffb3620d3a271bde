package bench

import (
	"fmt"
	"runtime"
	"time"
)

// backlog is how an open loop kept its schedule: of the units (requests,
// or sessions) due in the window, how many started and how many were
// never started.
type backlog struct {
	unit                 string
	started, due, missed int64
}

// A measurement too short to judge is not judged: over a few milliseconds
// the CPU and run-queue figures are start-up (threads waking, a first
// garbage collection), and the p99 of a handful of sends is simply their
// slowest. Judging them anyway warned on most short runs of an idle
// machine, and a warning that is usually false teaches users to ignore it.
const (
	minJudgeWindow = time.Second // for the CPU and run-queue figures
	minJudgeSends  = 100         // for the send-lag p99
)

// saturation decides whether the generator, not the server, limited the
// point. Open loop: it sent late with a worker free, or it fell behind the
// schedule while short of CPU. Closed loop: it was short of CPU. The
// thresholds are generous: a false alarm costs trust in the warning.
func (r *runner) saturation(b backlog, cpu, runWait, elapsed time.Duration) (bool, string) {
	cores := min(runtime.GOMAXPROCS(0), runtime.NumCPU())
	busy := cpu.Seconds() / (elapsed.Seconds() * float64(cores))
	waited := runWait.Seconds() / (elapsed.Seconds() * float64(cores))
	short := ""
	switch {
	case elapsed < minJudgeWindow:
	case busy > 0.9:
		short = fmt.Sprintf("it used %.0f%% of the %d cores it may use", 100*busy, cores)
	case waited > 0.2:
		// Summed over its threads, so it can exceed the run's length.
		short = fmt.Sprintf("its threads waited %.1f s in all for a CPU during %.1f s on %d cores: the machine is busy", runWait.Seconds(), elapsed.Seconds(), cores)
	}
	if late := r.lateNotice(); late != "" && elapsed >= minJudgeWindow {
		return true, "the generator was slow to notice answers: " + late
	}
	if !r.p.open() {
		if short != "" {
			return true, "the generator was short of CPU: " + short
		}
		return false, ""
	}
	if b.started > 0 && r.wakeP99 > r.cfg.LagThreshold {
		return true, fmt.Sprintf("the generator sent %s late by itself (p99 %.1f ms behind schedule with a worker free)", b.unit, float64(r.wakeP99.Microseconds())/1000)
	}
	if short != "" && b.missed > b.due/100 {
		return true, fmt.Sprintf("the generator fell behind its schedule (%d of %d %s never sent) while short of CPU: %s", b.missed, b.due, b.unit, short)
	}
	return false, ""
}
