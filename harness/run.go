package harness

import (
	"context"
	"encoding/hex"

	"github.com/mcpbench/mcpbench/mcp"
	"github.com/mcpbench/mcpbench/results"
	"github.com/mcpbench/mcpbench/sweep"
)

// RunConfig is one load point: the shared setup and the level.
type RunConfig struct {
	Setup
	// Level is the generator's configuration; its Gauges and Observer are
	// the harness's (Setup.Sampling, Setup.Outputs).
	Level LevelConfig
	// Soak tunes the trends and verdicts drawn from the series.
	Soak results.SoakOptions
}

// Run measures one load point and returns its report, gates not yet
// applied. A report whose point is Interrupted was cut short by ctx. The
// errors are typed: *ConfigError, *UnreachableError, *WorkloadError, and
// *InterruptedError when ctx ended before anything was measured.
func Run(ctx context.Context, cfg RunConfig) (*results.RunReport, error) {
	meta := Meta{Command: "run", Version: cfg.Version, Shard: cfg.Shard, Interval: cfg.Level.Interval,
		Levels: []sweep.Level{levelOf(cfg.Level.Model)}}
	return observed(ctx, cfg.Outputs, meta,
		func(out *stream) (*results.RunReport, error) { return run(ctx, &cfg, out) },
		func(r *results.RunReport, err error) Final { return Final{Run: r, Err: err} })
}

func run(ctx context.Context, cfg *RunConfig, out *stream) (*results.RunReport, error) {
	ss, err := prepare(ctx, &cfg.Setup, out)
	if err != nil {
		return nil, err
	}
	defer ss.close()
	point, err := ss.measure(ctx, cfg.Level, sweep.Step{})
	if err != nil {
		if ctx.Err() != nil {
			return nil, &InterruptedError{Measuring: true}
		}
		return nil, unreachable(cfg.Options, err)
	}
	r := &results.RunReport{Header: ss.header(results.SchemaRun), Workload: *ss.workload(modeOf(cfg.Level.Model), cfg.Level), Point: point, Shard: cfg.Shard}
	r.Workload.Session = sessionLabel(ss.client, cfg.Options)
	r.Exemplars = exemplarsOf(ss.slowest.list())
	r.Soak = results.AnalyzeSoak(r.Series, cfg.Soak)
	r.AbandonedMemory = results.AnalyzeAbandoned(r.Series)
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

// exemplarsOf is the client's slowest traced requests in the report's
// form.
func exemplarsOf(spans []mcp.Span) []results.Exemplar {
	var out []results.Exemplar
	for i := range spans {
		sp := &spans[i]
		out = append(out, results.Exemplar{Method: sp.Method, Tool: sp.Tool,
			TraceID: hex.EncodeToString(sp.TraceID[:]), SpanID: hex.EncodeToString(sp.SpanID[:]),
			LatencyMS: float64(sp.End.Sub(sp.Start).Microseconds()) / 1000, Outcome: sp.Kind.String(), At: sp.Start.UTC()})
	}
	return out
}
