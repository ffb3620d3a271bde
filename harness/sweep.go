package harness

import (
	"context"
	"strconv"
	"time"

	"github.com/mcpbench/mcpbench/mcp"
	"github.com/mcpbench/mcpbench/measure"
	"github.com/mcpbench/mcpbench/results"
	"github.com/mcpbench/mcpbench/sweep"
)

// SweepConfig is a series of load points on one connection pool.
type SweepConfig struct {
	Setup
	// Plan lists the levels, the SLO that refinement aims at, and the
	// pause between points.
	Plan sweep.Plan
	// Point is every point's generator configuration (total or duration,
	// warm-up, interval); each level sets its model (modelAt), with
	// RampUp and, for rates, MaxInFlight.
	Point       LevelConfig
	RampUp      time.Duration
	MaxInFlight int
}

// Sweep measures the plan's points and returns the analysed report, gates
// not yet applied; Interrupted is set when ctx ended part-way. When the
// sweep stopped early after some points, the report of those points comes
// back with the error that stopped it. Without a report the error is
// typed as Run's. The outputs see each point between EventLevelStart and
// EventLevelEnd.
func Sweep(ctx context.Context, cfg SweepConfig) (*results.SweepReport, error) {
	meta := Meta{Command: "sweep", Version: cfg.Version, Shard: cfg.Shard, Interval: cfg.Point.Interval}
	for _, c := range cfg.Plan.Concurrency {
		meta.Levels = append(meta.Levels, sweep.Level{Concurrency: c})
	}
	for _, r := range cfg.Plan.Rates {
		meta.Levels = append(meta.Levels, sweep.Level{Rate: r})
	}
	return observed(ctx, cfg.Outputs, meta,
		func(out *stream) (*results.SweepReport, error) { return sweepPoints(ctx, &cfg, out) },
		func(r *results.SweepReport, err error) Final { return Final{Sweep: r, Err: err} })
}

func sweepPoints(ctx context.Context, cfg *SweepConfig, out *stream) (*results.SweepReport, error) {
	ss, err := prepare(ctx, &cfg.Setup, out)
	if err != nil {
		return nil, err
	}
	defer ss.close()
	var exemplars []results.Exemplar
	level := func(ctx context.Context, st sweep.Step) (measure.Point, error) {
		point := cfg.Point
		point.Model = cfg.modelAt(st.Level)
		out.event(Event{Kind: EventLevelStart, Step: st})
		p, err := ss.measure(ctx, point, st)
		end := Event{Kind: EventLevelEnd, Step: st}
		if err == nil {
			rp := p
			end.Point = &rp
			exemplars = append(exemplars, levelExemplars(st.Level, ss.slowest.list())...)
		}
		out.event(end)
		return p, err
	}
	points, runErr := sweep.Run(ctx, cfg.Plan, level)
	if runErr != nil && len(points) == 0 {
		if ctx.Err() != nil {
			return nil, &InterruptedError{Measuring: true}
		}
		return nil, unreachable(cfg.Options, runErr)
	}
	r := results.NewSweepReport(ss.header(results.SchemaSweep), points, cfg.Plan.SLO)
	r.Interrupted = ctx.Err() != nil
	mode := "closed"
	if len(cfg.Plan.Rates) > 0 {
		mode = "open"
	}
	r.Shard = cfg.Shard
	r.Workload = ss.workload(mode, cfg.Point)
	r.LogScan, r.Health = ss.observe(ctx)
	r.Exemplars = exemplars
	return r, runErr
}

// levelExemplars are a sweep point's exemplars, each naming its level.
func levelExemplars(l sweep.Level, spans []mcp.Span) []results.Exemplar {
	ex := exemplarsOf(spans)
	name := "c=" + strconv.Itoa(l.Concurrency)
	if l.Rate > 0 {
		name = "rate=" + strconv.FormatFloat(l.Rate, 'g', -1, 64)
	}
	for i := range ex {
		ex[i].Level = name
	}
	return ex
}
