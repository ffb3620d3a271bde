package main

import (
	"context"
	"path/filepath"
	"runtime/debug"
	"slices"
	"time"

	"github.com/spf13/pflag"

	"github.com/mcpbench/mcpbench/harness"
	"github.com/mcpbench/mcpbench/report"
	"github.com/mcpbench/mcpbench/results"
)

const runUsage = `Usage: mcpbench run --url URL [flags]

Put one level of load on an MCP server and report throughput, tail latency
and errors. Closed loop with -c (each worker waits for its answer), open loop
with --rate (requests on a fixed schedule, latency counted from the intended
send time). With --scenario, whole sessions of a scenario file are the unit
of work (initialize, tool calls with think time, DELETE): --users N runs N
users back to back, --session-rate R starts R new sessions a second.

With --gen-args and no --tool, only the tools annotated readOnlyHint: true
are called (the MCP spec presumes any other tool may write or destroy):
--allow-writes adds those annotated destructiveHint: false,
--allow-destructive the rest, --tools and --exclude-tools narrow the set.
A tool named with --tool is called whatever it says. --dry-run connects,
lists the tools and prints the plan without calling any.

Flags:
%s
Examples:
  mcpbench run --url http://127.0.0.1:3002/mcp -c 10 -n 500
  mcpbench run --url http://127.0.0.1:3002/mcp --method tools/call --tool echo \
      --args '{"message":"hi"}' --rate 200 -d 5s --json-out run.json --html-out run.html
  mcpbench run --transport stdio -c 4 -n 1000 -- npx -y @modelcontextprotocol/server-everything stdio
  MCPBENCH_TOKEN=... mcpbench run --url https://mcp.example.internal/mcp -c 4 -n 1000
  mcpbench run --transport stdio --gen-args --dry-run -c 4 -n 200 \
      -- npx -y @modelcontextprotocol/server-filesystem /tmp/scratch
  mcpbench run --url http://127.0.0.1:3002/mcp --rate 50 -d 1h --live \
      --server-pid "$(pgrep -f my-mcp-server)" --server-metrics http://127.0.0.1:9090/metrics --fail-on-leak
  mcpbench run --url http://127.0.0.1:3002/mcp --scenario docs/examples/coding-agent.yaml \
      --users 8 --ramp-up 1s -d 4s
`

// runFlags are all of run's flags.
type runFlags struct{ loadFlags }

// flagSet is run's flag set, bound to f.
func (f *runFlags) flagSet() *pflag.FlagSet { return declare("run", f.declarations()...) }

// declarations are run's flags, bound to f (ab takes some of them).
func (f *runFlags) declarations() []flagDecl {
	return slices.Concat(f.target.flags(), f.workload.requests(), f.workload.level(), f.workload.inFlight(),
		f.workload.length("stop after `N` measured requests", "stop after `D` (default 10s when -n is not given)"),
		f.workload.pacing(), f.scenario.flags(f.scenario.users()), f.calls.flags(), f.gate.flags("exit 1 when p95 or p99 misses its target"),
		f.series.flags(), f.series.soakFlags(), f.telemetry.flags(),
		f.output.flags("write the reports to `DIR` as mcpbench-<host>_<port>-run.json, .md and .html (when given; an interrupted run without --json-out keeps its JSON there)"),
		f.shard.flags(), f.shapes.flags())
}

func runMain(ctx context.Context, args []string, e env) int {
	var f runFlags
	var cfg harness.RunConfig
	fs := f.flagSet()
	return loadMain(ctx, args, e, loadCommand{
		name: "run", usage: runUsage, unit: "request", sessionUnit: "session", flags: &f.loadFlags, fs: fs,
		config: func(e *env) (*harness.Setup, *harness.LevelConfig, error) {
			var err error
			cfg, err = f.config(fs, e)
			return &cfg.Setup, &cfg.Level, err
		},
		plan: func(ctx context.Context) (*results.PlanReport, error) { return harness.PlanRun(ctx, cfg) },
		outputs: func(e env) map[string]output {
			outs := f.output.outputs(e)
			if fs.Changed("out-dir") && !named(outs) {
				f.output.defaultNames(outs, reportBase(&f.target, "run"))
			}
			return outs
		},
		measure: func(ctx context.Context, abort *abortOutput, outs map[string]output, e env) (*measured, error) {
			r, err := harness.Run(ctx, cfg)
			if err != nil {
				return nil, err
			}
			return f.judge(r, abort, outs), nil
		},
	})
}

// judge applies run's gates to r and keeps what an interrupt left of it.
func (f *runFlags) judge(r *results.RunReport, abort *abortOutput, outs map[string]output) *measured {
	gates := f.gate.gates()
	gates.FailOnLeak = f.series.failOnLeak
	gates.MaxRecoveryS = f.shapes.maxRecovery.Seconds()
	abort.mark(r)
	gateFailed := gates.Run(r) || r.Aborted != nil
	if r.Point.Interrupted && outs[report.FormatJSON].path == "" {
		// What was measured before the stop is kept, not lost with the run.
		outs[report.FormatJSON] = output{path: filepath.Join(f.output.outDir, reportBase(&f.target, "run")+".json"), flag: "--out-dir"}
	}
	return &measured{gates: r.Gates, interrupted: r.Point.Interrupted && r.Aborted == nil, gateFailed: gateFailed,
		write: func(outs map[string]output, e env) error { return writeFormats(report.RunFormats, r, outs, e) }}
}

// giveBackRunMemory returns what the finished load left (its sessions'
// buffers, its garbage) to the system before the reports are built. Left
// resident, the report's own allocations stacked on top of it, and the
// peak memory of a ten-minute run stood 10% above a one-minute run's,
// where the load itself grows by 4%. The reports then collect early: a
// long run's JSON (a ten-minute series is some 3 MB of histograms) is
// built in a buffer that doubles as it grows, and at the default pace
// every buffer it outgrew stays resident until the process ends.
// The returned func restores the pace (for commands run in-process, as
// the tests do).
func giveBackRunMemory() (restore func()) {
	debug.FreeOSMemory()
	pace := debug.SetGCPercent(reportGCPercent)
	return func() { debug.SetGCPercent(pace) }
}

// reportGCPercent is the collector's pace while the reports are built: a
// collection once the heap grows by a quarter. A short run's reports grow
// it by less (a 2-second run collects no more often than before).
const reportGCPercent = 25

// finish is the exit code once the reports are out: an interrupt first,
// then a report that could not be written where asked, then the gates.
func finish(e env, cmd string, writeErr error, interrupted, gateFailed bool) int {
	code := exitOK
	switch {
	case writeErr != nil:
		code = exitFor(e, cmd, writeErr)
	case gateFailed:
		code = exitGate
	}
	if interrupted {
		return exitInterrupted
	}
	return code
}

// config checks run's flags, in the order whose errors the contract
// fixes, and turns them into the harness's configuration.
func (f *runFlags) config(fs *pflag.FlagSet, e *env) (harness.RunConfig, error) {
	rest, command := splitCommand(fs)
	if len(rest) > 0 {
		return harness.RunConfig{}, usagef("unexpected argument %q", rest[0])
	}
	f.target.command = command
	if err := f.scenario.check(fs, f.target.session); err != nil {
		return harness.RunConfig{}, err
	}
	if f.scenario.file != "" {
		return f.scenarioConfig(fs, e)
	}
	if err := f.shard.splitRun(&f.workload, fs.Changed("concurrency")); err != nil {
		return harness.RunConfig{}, err
	}
	load, err := f.benchConfig(fs.Changed("concurrency"))
	if err == nil {
		err = f.shapes.apply(fs, &load, f.series.interval, &f.workload)
	}
	if err != nil {
		return harness.RunConfig{}, err
	}
	f.gate.apply()
	if err := f.series.validate(); err != nil {
		return harness.RunConfig{}, err
	}
	if err := f.shapes.check(); err != nil {
		return harness.RunConfig{}, err
	}
	spec, err := f.calls.spec(&f.workload)
	if err != nil {
		return harness.RunConfig{}, err
	}
	opts, err := f.target.options(e, load.Workers())
	if err != nil {
		return harness.RunConfig{}, err
	}
	return harness.RunConfig{Setup: f.target.setup(opts, harness.Requests(spec), &f.shard), Level: load, Soak: f.series.soak()}, nil
}

// scenarioConfig is config for sessions of a scenario file.
func (f *runFlags) scenarioConfig(fs *pflag.FlagSet, e *env) (harness.RunConfig, error) {
	load, err := f.scenario.runLoad(&f.workload, &f.shard, fs.Changed("users"))
	if err == nil {
		err = f.shapes.apply(fs, &load, f.series.interval, &f.workload)
	}
	if err == nil {
		err = f.shapes.check()
	}
	if err != nil {
		return harness.RunConfig{}, err
	}
	f.gate.apply()
	spec, err := f.scenario.spec(&f.workload, &f.calls)
	if err == nil {
		err = f.shapes.fromFile(fs, &load, spec.File, f.series.interval, &f.workload)
	}
	if err != nil {
		return harness.RunConfig{}, err
	}
	// Every user may have a whole parallel block in flight.
	opts, err := f.target.options(e, load.Users()*spec.File.Width())
	if err != nil {
		return harness.RunConfig{}, err
	}
	setup := f.target.setup(opts, harness.Scenarios(*spec, opts.SessionMode), &f.shard)
	return harness.RunConfig{Setup: setup, Level: load}, nil
}

// benchConfig checks how the load flags combine (their ranges are
// checked as they are parsed) and turns them into a harness.LevelConfig.
func (f *runFlags) benchConfig(concurrencySet bool) (harness.LevelConfig, error) {
	w := &f.workload
	cfg := harness.LevelConfig{Total: w.total, Duration: w.duration, Warmup: w.warmup}
	loops, err := w.loops()
	if err != nil {
		return cfg, err
	}
	cfg.Loops = loops
	switch {
	case w.rate > 0 && w.maxRate > 0:
		return cfg, usagef("--max-rate caps a closed loop; with --rate the rate is already fixed")
	case w.total > 0 && w.duration > 0:
		return cfg, usagef("give -n or -d, not both")
	}
	cfg.Model = harness.ClosedLoop{Concurrency: w.concurrency, RampUp: w.rampUp, MaxRate: w.maxRate}
	if w.rate > 0 {
		open := harness.OpenLoop{Rate: w.rate, MaxInFlight: w.maxInFlight, RampUp: w.rampUp}
		if concurrencySet && w.maxInFlight == 0 {
			open.MaxInFlight = w.concurrency // -c with --rate bounds the workers
		}
		cfg.Model = open
	}
	if w.rate == 0 && w.maxInFlight > 0 && f.shapes.rateStages == "" {
		return cfg, usagef("--max-in-flight goes with --rate (a closed loop has -c in flight)")
	}
	if cfg.Total == 0 && cfg.Duration == 0 {
		cfg.Duration = 10 * time.Second
	}
	return cfg, nil
}
