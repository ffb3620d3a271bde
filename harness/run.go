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
	// Load is the engine's configuration; its Progress and OnDone are the
	// caller's callbacks.
	Load bench.Config
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
	point, err := bench.Run(ctx, cfg.Load, ss.wl)
	ss.measured()
	if err != nil {
		if ctx.Err() != nil {
			return nil, &InterruptedError{Measuring: true}
		}
		return nil, unreachable(cfg.Options, err)
	}
	point.Client.PoolMaxConns = ss.client.PoolSize()
	point.Client.Engine = string(ss.client.Engine())
	r := &results.RunReport{
		Header: ss.header(results.SchemaRun),
		Workload: results.Workload{Mode: "closed", Operations: ss.wl.Operations(), Warmup: cfg.Load.Warmup,
			DurationS: cfg.Load.Duration.Seconds(), Session: sessionLabel(ss.client, cfg.Options)},
		Point: point,
		Shard: cfg.Shard,
	}
	if cfg.Load.Rate > 0 {
		r.Workload.Mode = "open"
	}
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
