package harness

import (
	"context"

	"github.com/mcpbench/mcpbench/bench"
	"github.com/mcpbench/mcpbench/results"
	"github.com/mcpbench/mcpbench/sweep"
)

// SweepConfig is a series of load points on one connection pool.
type SweepConfig struct {
	Setup
	// Plan lists the levels, the SLO that refinement aims at, and the
	// pause between points; its Progress, if set, is still called.
	Plan sweep.Plan
	// Point is every point's engine configuration (total or duration,
	// warm-up, ramp-up, open-loop bound); the level sets its concurrency
	// or rate.
	Point bench.Config
	// Progress, if set, receives each point's progress with the step it
	// belongs to.
	Progress func(sweep.Step, bench.Progress)
}

// Sweep measures the plan's points and returns the analysed report, gates
// not yet applied; Interrupted is set when ctx ended part-way. When the
// sweep stopped early after some points, the report of those points comes
// back with the error that stopped it. Without a report the error is
// typed as Run's.
func Sweep(ctx context.Context, cfg SweepConfig) (*results.SweepReport, error) {
	ss, err := prepare(ctx, &cfg.Setup)
	if err != nil {
		return nil, err
	}
	defer ss.close()
	m := &pointMeasurer{ss: ss, cfg: &cfg}
	plan := cfg.Plan
	plan.Progress = m.next
	points, runErr := sweep.Run(ctx, plan, m.measure)
	if runErr != nil && len(points) == 0 {
		if ctx.Err() != nil {
			return nil, &InterruptedError{Measuring: true}
		}
		return nil, unreachable(cfg.Options, runErr)
	}
	r := results.NewSweepReport(ss.header(results.SchemaSweep), results.PointsOf(points), plan.SLO)
	r.Interrupted = ctx.Err() != nil
	mode := "closed"
	if len(plan.Rates) > 0 {
		mode = "open"
	}
	r.Shard = cfg.Shard
	r.Workload = ss.workload(mode, cfg.Point)
	r.LogScan, r.Health = ss.observe(ctx)
	return r, runErr
}

// pointMeasurer measures one point of a sweep on the shared client;
// sweep.Run decides which points.
type pointMeasurer struct {
	ss   *session
	cfg  *SweepConfig
	step sweep.Step // the point being measured, for progress
}

// next remembers which point comes next and passes it on.
func (m *pointMeasurer) next(st sweep.Step) {
	m.step = st
	if m.cfg.Plan.Progress != nil {
		m.cfg.Plan.Progress(st)
	}
}

func (m *pointMeasurer) measure(ctx context.Context, l sweep.Level) (bench.Point, error) {
	cfg := m.cfg.Point
	cfg.Concurrency, cfg.Rate = l.Concurrency, l.Rate
	cfg.Gauges = m.ss.gauges
	if m.cfg.Progress != nil {
		cfg.Progress = func(p bench.Progress) { m.cfg.Progress(m.step, p) }
	}
	return m.ss.load(ctx, cfg)
}
