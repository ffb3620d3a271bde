package harness

import (
	"context"
	"time"

	"github.com/mcpbench/mcpbench/results"
)

// A dry run: connect, list the tools, build the load, and say what a
// run or sweep would do, calling no tool. The log, the start time and
// health are left alone: nothing is measured.

// PlanRun is the plan of Run(cfg). Its errors are typed as Run's.
func PlanRun(ctx context.Context, cfg RunConfig) (*results.PlanReport, error) {
	load := loadOf(cfg.Level, cfg.Level.RampUp())
	if l := levelOf(cfg.Level.Model); l.Rate > 0 {
		load.Mode, load.Rates = "open", []float64{l.Rate}
	} else {
		load.Concurrency = []int{l.Concurrency}
	}
	return plan(ctx, &cfg.Setup, "run", load)
}

// PlanSweep is the plan of Sweep(cfg): every level it would measure, bar
// those --refine might add. Its errors are typed as Sweep's.
func PlanSweep(ctx context.Context, cfg SweepConfig) (*results.PlanReport, error) {
	load := loadOf(cfg.Point, cfg.RampUp)
	load.Concurrency, load.Rates = cfg.Plan.Concurrency, cfg.Plan.Rates
	if len(cfg.Plan.Rates) > 0 {
		load.Mode = "open"
	}
	return plan(ctx, &cfg.Setup, "sweep", load)
}

// loadOf is the part of the load shape every point shares.
func loadOf(c LevelConfig, ramp time.Duration) results.PlannedLoad {
	return results.PlannedLoad{Mode: "closed", Total: c.Total, DurationS: c.Duration.Seconds(), Warmup: c.Warmup, RampUpS: ramp.Seconds()}
}

func plan(ctx context.Context, s *Setup, command string, load results.PlannedLoad) (*results.PlanReport, error) {
	ss, err := connect(ctx, s, newStream(nil))
	if err != nil {
		return nil, err
	}
	defer ss.close()
	wl, err := s.kind().Build(ctx, ss.client)
	if err != nil {
		return nil, &WorkloadError{err}
	}
	wl.Describe(&results.Workload{}, &load)
	return results.NewPlanReport(ss.header(results.SchemaPlan), command, wl, load), nil
}
