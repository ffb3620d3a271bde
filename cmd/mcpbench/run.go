package main

import (
	"context"
	"fmt"
	"math"
	"time"

	"github.com/spf13/pflag"

	"github.com/mcpbench/mcpbench/bench"
	"github.com/mcpbench/mcpbench/logscan"
	"github.com/mcpbench/mcpbench/mcp"
	"github.com/mcpbench/mcpbench/probe"
	"github.com/mcpbench/mcpbench/report"
	"github.com/mcpbench/mcpbench/results"
	"github.com/mcpbench/mcpbench/sweep"
)

const runUsage = `Usage: mcpbench run --url URL [flags]

Put one level of load on an MCP server and report throughput, tail latency
and errors. Closed loop with -c (each worker waits for its answer), open loop
with --rate (requests on a fixed schedule, latency counted from the intended
send time).

Flags:
%s
Examples:
  mcpbench run --url http://127.0.0.1:3002/mcp -c 10 -n 500
  mcpbench run --url http://127.0.0.1:3002/mcp --method tools/call --tool echo \
      --args '{"message":"hi"}' --rate 200 -d 30s --json-out run.json
  MCPBENCH_TOKEN=... mcpbench run --url https://mcp.example.internal/mcp -c 4 -d 1m
`

// runFlags are all of run's flags.
type runFlags struct {
	target   targetFlags
	workload workloadFlags
	calls    callFlags
	output   outputFlags
	gate     gateFlags
	shard    shardFlags
}

// register adds run's flags to fs.
func (f *runFlags) register(fs *pflag.FlagSet) {
	f.target.register(fs)
	f.workload.register(fs, false)
	f.calls.register(fs)
	f.gate.register(fs)
	f.output.register(fs)
	f.shard.register(fs)
}

func runMain(ctx context.Context, args []string, e env) int {
	var f runFlags
	fs := newFlagSet("run")
	f.register(fs)
	if done, code := parseFlags(fs, args, runUsage, e); done {
		return code
	}
	rest, command := splitCommand(fs)
	if len(rest) > 0 {
		return exitFor(e, "run", usagef("unexpected argument %q", rest[0]))
	}
	f.target.command = command
	if err := f.shard.splitRun(&f.workload, fs.Changed("concurrency")); err != nil {
		return exitFor(e, "run", err)
	}
	cfg, err := f.benchConfig(fs.Changed("concurrency"))
	if err != nil {
		return exitFor(e, "run", err)
	}
	if err := f.gate.validate(); err != nil {
		return exitFor(e, "run", err)
	}
	if err := f.calls.precheck(&f.workload); err != nil {
		return exitFor(e, "run", err)
	}
	opts, err := f.target.options(&e, cfg.Workers())
	if err != nil {
		return exitFor(e, "run", err)
	}
	if f.output.cpuProfile != "" {
		stop, err := startCPUProfile(f.output.cpuProfile)
		if err != nil {
			return exitFor(e, "run", usagef("--cpuprofile: %v", err))
		}
		defer stop()
	}
	started := time.Now()
	client, err := dial(ctx, opts)
	if err != nil {
		if ctx.Err() != nil {
			return exitInterrupted
		}
		return exitFor(e, "run", err)
	}
	defer client.Close(context.Background())

	var mark *logscan.Offset
	if f.target.logFile != "" {
		m, err := logscan.Mark(f.target.logFile)
		if err != nil {
			return exitFor(e, "run", usagef("--log-file: %v", err))
		}
		mark = &m
	}
	if started, err = f.shard.wait(ctx, started); err != nil {
		return exitInterrupted // interrupted before --start-at: nothing measured
	}

	wl, err := buildWorkload(ctx, client, &f.workload, &f.calls)
	if err != nil {
		return exitFor(e, "run", err)
	}
	var health *probe.HealthWatch
	if f.target.healthURL != "" {
		if health, err = probe.WatchHealth(ctx, opts, f.target.healthURL); err != nil {
			return exitFor(e, "run", usagef("--health-url: %v", err))
		}
	}
	progress := progressPrinter(e, f.output.noProgress)
	cfg.Progress = progress
	if f.output.memProfile != "" {
		cfg.OnDone = func() {
			if err := writeHeapProfile(f.output.memProfile); err != nil {
				fmt.Fprintf(e.stderr, "mcpbench run: --memprofile: %v\n", err)
			}
		}
	}
	point, err := bench.Run(ctx, cfg, wl)
	clearProgress(e, progress)
	if err != nil {
		if ctx.Err() != nil {
			fmt.Fprintln(e.stderr, "mcpbench run: interrupted before any request was measured")
			return exitInterrupted
		}
		return exitFor(e, "run", unreachableError{fmt.Sprintf("%s: %v", mcp.Redact(opts.URL), err)})
	}
	point.Client.PoolMaxConns = client.PoolSize()
	point.Client.Engine = string(client.Engine())

	r := &results.RunReport{
		Header:   header(results.SchemaRun, started, client, opts.URL),
		Workload: results.Workload{Mode: "closed", Operations: wl.Operations(), Warmup: cfg.Warmup, DurationS: cfg.Duration.Seconds(), Session: sessionLabel(client, opts)},
		Point:    point,
		Shard:    f.shard.report(),
	}
	if cfg.Rate > 0 {
		r.Workload.Mode = "open"
	}
	if mark != nil {
		if res, err := logscan.Scan(f.target.logFile, *mark); err == nil {
			r.LogScan = &res
		} else {
			fmt.Fprintf(e.stderr, "mcpbench run: --log-file: %v\n", oneLine(err.Error()))
		}
	}
	if health != nil {
		r.Health = health.Finish(context.WithoutCancel(ctx))
	}
	gateFailed := f.gate.gates().Run(r)
	if err := writeRunReports(r, &f.output, e); err != nil {
		return exitFor(e, "run", usagef("writing report: %v", err))
	}
	switch {
	case point.Interrupted:
		return exitInterrupted
	case gateFailed:
		return exitGate
	}
	return exitOK
}

// benchConfig checks the load flags and turns them into a bench.Config.
func (f *runFlags) benchConfig(concurrencySet bool) (bench.Config, error) {
	w := &f.workload
	cfg := bench.Config{
		Concurrency: w.concurrency, Rate: w.rate, MaxInFlight: w.maxInFlight,
		Total: w.total, Duration: w.duration, Warmup: w.warmup,
		RampUp: w.rampUp, MaxRate: w.maxRate,
	}
	switch {
	case w.concurrency < 1:
		return cfg, usagef("-c must be at least 1")
	case w.rate < 0 || math.IsNaN(w.rate) || math.IsInf(w.rate, 0):
		return cfg, usagef("--rate must be a positive number")
	case w.total < 0 || w.duration < 0 || w.warmup < 0 || w.rampUp < 0 || w.maxInFlight < 0 || w.maxRate < 0:
		return cfg, usagef("-n, -d, --warmup, --ramp-up, --max-in-flight and --max-rate must not be negative")
	case w.rate > 0 && w.maxRate > 0:
		return cfg, usagef("--max-rate caps a closed loop; with --rate the rate is already fixed")
	case w.total > 0 && w.duration > 0:
		return cfg, usagef("give -n or -d, not both")
	}
	if w.rate > 0 && concurrencySet && w.maxInFlight == 0 {
		cfg.MaxInFlight = w.concurrency // -c with --rate bounds the workers
	}
	if w.rate == 0 && w.maxInFlight > 0 {
		return cfg, usagef("--max-in-flight goes with --rate (a closed loop has -c in flight)")
	}
	if cfg.Total == 0 && cfg.Duration == 0 {
		cfg.Duration = 10 * time.Second
	}
	return cfg, nil
}

func sessionLabel(c *mcp.Client, o mcp.Options) string {
	if mcp.IsModern(c.ProtocolVersion()) {
		return "stateless"
	}
	return string(o.SessionMode)
}

// gates are the pass/fail rules the flags set; results.Gates evaluates
// them for run and sweep alike.
func (g *gateFlags) gates() results.Gates {
	return results.Gates{
		SLO:       sweep.SLO{P95MS: g.p95SLO, P99MS: g.p99SLO, MaxErrorRate: g.maxErrorRate},
		FailOnSLO: g.failOnSLO,
	}
}

func writeRunReports(r *results.RunReport, o *outputFlags, e env) error {
	return writeFormats(report.RunFormats, r, o.outputs(e, false), e)
}
