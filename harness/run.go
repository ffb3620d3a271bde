package harness

import (
	"context"

	"github.com/mcpbench/mcpbench/bench"
	"github.com/mcpbench/mcpbench/mcp"
	"github.com/mcpbench/mcpbench/results"
)

// RunConfig is one load point: the shared setup and the load.
type RunConfig struct {
	Setup
	// Load is the engine's configuration; its Progress, OnInterval and
	// OnDone are the caller's callbacks (Gauges is Setup.Sampling's).
	Load bench.Config
	// Soak tunes the trends and verdicts drawn from the series.
	Soak results.SoakOptions
}

// Run measures one load point and returns its report, gates not yet
// applied. A report whose point is Interrupted was cut short by ctx. The
// errors are typed: *ConfigError, *UnreachableError, *WorkloadError, and
// *InterruptedError when ctx ended before anything was measured.
func Run(ctx context.Context, cfg RunConfig) (*results.RunReport, error) {
	ss, err := prepare(ctx, &cfg.Setup)
	if err != nil {
		return nil, err
	}
	defer ss.close()
	cfg.Load.Gauges = ss.gauges
	point, err := ss.load(ctx, cfg.Load)
	if err != nil {
		if ctx.Err() != nil {
			return nil, &InterruptedError{Measuring: true}
		}
		return nil, unreachable(cfg.Options, err)
	}
	mode := "closed"
	if cfg.Load.Rate > 0 {
		mode = "open"
	}
	r := &results.RunReport{Header: ss.header(results.SchemaRun), Workload: *ss.workload(mode, cfg.Load), Point: results.PointOf(point), Shard: cfg.Shard}
	r.Workload.Session = sessionLabel(ss.client, cfg.Options)
	r.Soak = results.AnalyzeSoak(r.Series, cfg.Soak)
	r.LogScan, r.Health = ss.observe(ctx)
	return r, nil
}

// sessionLabel is how sessions were used: stateless for the revisions
// without sessions, else the configured mode.
func sessionLabel(c *mcp.Client, o mcp.Options) string {
	if mcp.IsModern(c.ProtocolVersion()) {
		return "stateless"
	}
	return string(o.SessionMode)
}
