package main

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/mcpbench/mcpbench/harness"
	"github.com/mcpbench/mcpbench/report"
	"github.com/mcpbench/mcpbench/results"
	"github.com/mcpbench/mcpbench/sweep"
)

const sweepUsage = `Usage: mcpbench sweep --url URL (--concurrency-values LIST | --concurrency-range R |
                      --rate-values LIST | --rate-range R) [flags]
       mcpbench sweep --url URL --scenario FILE --users-values LIST [flags]

Measure a series of load points, then estimate the knee (where more
concurrency stops buying throughput), fit the Universal Scalability Law, and
recommend the concurrency (or rate) that meets the p95/p99 targets. Every
point shares one connection pool sized for the largest one. Without report
paths, JSON, Markdown, SVG and HTML reports are written under --out-dir.

Tools are chosen as in run: with --gen-args, only read-only ones unless
--allow-writes or --allow-destructive says otherwise; --dry-run prints the
plan (tools, sample arguments, levels) and calls nothing.

Flags:
%s
Examples:
  mcpbench sweep --url http://127.0.0.1:3002/mcp --concurrency-values 1,2,4,8,16,32 \
      --total 1000 --p95-slo-ms 400 --p99-slo-ms 800
  mcpbench sweep --url http://127.0.0.1:3002/mcp --concurrency-range 1:64:x2 --refine \
      --p99-slo-ms 100 --require-concurrency 16
  mcpbench sweep --url http://127.0.0.1:3002/mcp --rate-range 100:400:+100 -d 2s --p99-slo-ms 100
  mcpbench sweep --url http://127.0.0.1:3002/mcp --gen-args --tools 'tool_00*' \
      --concurrency-values 1,4,16 --dry-run
  mcpbench sweep --url http://127.0.0.1:3002/mcp --scenario docs/examples/coding-agent.yaml \
      --users-values 1,4,8 -d 2s --p95-slo-ms 200
`

// sweepFlags are all of sweep's flags: run's groups and the levels.
type sweepFlags struct {
	loadFlags
	concurrencyValues  string
	concurrencyRange   string
	rateValues         string
	rateRange          string
	refine             bool
	cooldown           time.Duration
	requireConcurrency int
	svgOut             string
}

// flagSet is sweep's flag set, bound to f.
func (f *sweepFlags) flagSet() *pflag.FlagSet {
	return declare("sweep", slices.Concat(f.target.flags(), f.workload.requests(), f.workload.inFlight(),
		f.workload.length("measure `N` requests at each point (default 1000 at each concurrency when -d is not given)",
			"measure each point for `D` (default 10s at each rate when -n is not given)"),
		f.workload.pacing(), f.scenario.flags(f.scenario.usersLevels()), f.calls.flags(), f.levelFlags(),
		f.gate.flags("exit 1 when no point meets the SLO (points past the limit are data, not failures)"), f.series.flags(), f.telemetry.flags(),
		f.output.flags("write the reports to `DIR` as mcpbench-<host>_<port>-sweep.json, .md, .svg and .html when no --json-out, --md-out, --svg-out or --html-out is given"),
		[]flagDecl{{name: "svg-out", to: &f.svgOut, group: "Outputs", usage: "write the chart to `FILE`"}},
		f.shard.flags(), f.shapes.dashboardFlag())...)
}

// levelFlags declares the sweep's levels and how it moves between them.
func (f *sweepFlags) levelFlags() []flagDecl {
	return []flagDecl{
		{name: "concurrency-values", to: &f.concurrencyValues, group: "Load", usage: "concurrency levels, e.g. 1,2,4,8"},
		{name: "concurrency-range", to: &f.concurrencyRange, group: "Load", usage: "FROM:TO[:xF|:+S] levels, e.g. 1:64:x2"},
		{name: "rate-values", to: &f.rateValues, group: "Load", usage: "open-loop rates, e.g. 100,200,400"},
		{name: "rate-range", to: &f.rateRange, group: "Load", usage: "FROM:TO[:xF|:+S] rates, e.g. 100:600:+100"},
		{name: "refine", to: &f.refine, group: "Load", usage: "search between the last feasible and first infeasible point for the exact maximum"},
		{name: "cooldown", to: &f.cooldown, group: "Load", rng: pauseUpTo(maxWait), usage: "pause between points"},
		{name: "require-concurrency", to: &f.requireConcurrency, group: "SLO and gates", rng: atLeastOne(maxWorkers), usage: "exit 1 when the maximum feasible concurrency is below N"},
	}
}

// levels returns the sweep's concurrency levels or rates, exactly one of
// them non-empty.
func (f *sweepFlags) levels() ([]int, []float64, error) {
	if f.scenario.file != "" {
		if f.scenario.usersValues == "" {
			return nil, nil, usagef("--scenario sweeps users: give --users-values, e.g. 1,2,4,8")
		}
		cs, err := sweep.ParseConcurrencyValues(f.scenario.usersValues)
		if le, ok := errors.AsType[*sweep.LevelsError](err); ok {
			return nil, nil, usagef("--users-values%s", le.Detail)
		}
		return cs, nil, err
	}
	given := 0
	for _, v := range []string{f.concurrencyValues, f.concurrencyRange, f.rateValues, f.rateRange} {
		if v != "" {
			given++
		}
	}
	if given != 1 {
		return nil, nil, usagef("give exactly one of --concurrency-values, --concurrency-range, --rate-values, --rate-range")
	}
	var cs []int
	var rs []float64
	var err error
	switch {
	case f.concurrencyValues != "":
		cs, err = sweep.ParseConcurrencyValues(f.concurrencyValues)
	case f.concurrencyRange != "":
		cs, err = sweep.ParseConcurrencyRange(f.concurrencyRange)
	case f.rateValues != "":
		rs, err = sweep.ParseRateValues(f.rateValues)
	default:
		rs, err = sweep.ParseRateRange(f.rateRange)
	}
	if le, ok := errors.AsType[*sweep.LevelsError](err); ok {
		return nil, nil, usagef("%s%s", "--"+strings.ReplaceAll(le.Of, " ", "-"), le.Detail)
	}
	if err != nil {
		return nil, nil, usagef("%v", err)
	}
	return cs, rs, nil
}

func sweepMain(ctx context.Context, args []string, e env) int {
	var f sweepFlags
	var cfg harness.SweepConfig
	fs := f.flagSet()
	return loadMain(ctx, args, e, loadCommand{
		name: "sweep", usage: sweepUsage, unit: "point", sessionUnit: "point", flags: &f.loadFlags, fs: fs,
		config: func(e *env) (*harness.Setup, *harness.LevelConfig, error) {
			var err error
			if cfg, err = f.config(fs, e); err == nil {
				err = f.shapes.check()
			}
			return &cfg.Setup, &cfg.Point, err
		},
		plan:    func(ctx context.Context) (*results.PlanReport, error) { return harness.PlanSweep(ctx, cfg) },
		outputs: f.outputs,
		measure: func(ctx context.Context, _ *abortOutput, _ map[string]output, _ env) (*measured, error) {
			r, runErr := harness.Sweep(ctx, cfg)
			if r == nil {
				return nil, runErr
			}
			gateErr := f.gates().Sweep(r)
			return &measured{gates: r.Gates, interrupted: r.Interrupted, gateFailed: gateErr != nil,
				write: func(outs map[string]output, e env) error { return writeFormats(report.SweepFormats, r, outs, e) },
				notes: func(e env) {
					if runErr != nil {
						fmt.Fprintf(e.stderr, "mcpbench sweep: stopped early: %v\n", oneLine(runErr.Error()))
					}
					if gateErr != nil {
						fmt.Fprintf(f.output.summaryErr(e), "mcpbench sweep: %v\n", gateErr)
					}
				}}, nil
		},
	})
}

// outputs are the sweep's report destinations: the files named, or all
// three under default names in --out-dir.
func (f *sweepFlags) outputs(e env) map[string]output {
	outs := f.output.outputs(e)
	outs[report.FormatSVG] = output{path: f.svgOut, flag: "--svg-out"}
	if !named(outs) {
		f.output.defaultNames(outs, reportBase(&f.target, "sweep"))
	}
	return outs
}

// gates are the sweep's pass/fail rules.
func (f *sweepFlags) gates() results.Gates {
	g := f.gate.gates()
	g.RequireConcurrency = f.requireConcurrency
	return g
}

// config checks sweep's flags, in the order whose errors the contract
// fixes, and turns them into the harness's configuration.
func (f *sweepFlags) config(fs *pflag.FlagSet, e *env) (harness.SweepConfig, error) {
	rest, command := splitCommand(fs)
	if len(rest) > 0 {
		return harness.SweepConfig{}, usagef("unexpected argument %q", rest[0])
	}
	f.target.command = command
	if err := f.scenario.check(fs, f.target.session); err != nil {
		return harness.SweepConfig{}, err
	}
	cs, rs, err := f.levels()
	if err != nil {
		return harness.SweepConfig{}, err
	}
	f.gate.apply()
	if err := f.perPoint(len(rs) > 0); err != nil {
		return harness.SweepConfig{}, err
	}
	if err := f.series.validate(); err != nil {
		return harness.SweepConfig{}, err
	}
	// Split after the per-point defaults, so the default total is split too.
	w := &f.workload
	if cs, rs, err = f.shard.splitSweep(w, cs, rs, f.refine); err != nil {
		return harness.SweepConfig{}, err
	}
	setup, err := f.setup(e, cs, rs)
	if err != nil {
		return harness.SweepConfig{}, err
	}
	loops, err := w.loops()
	if err != nil {
		return harness.SweepConfig{}, err
	}
	return harness.SweepConfig{
		Setup:       setup,
		Plan:        sweep.Plan{Concurrency: cs, Rates: rs, SLO: f.gate.gates().SLO, Refine: f.refine, Cooldown: f.cooldown},
		Point:       harness.LevelConfig{Total: w.total, Duration: w.duration, Warmup: w.warmup, Loops: loops},
		RampUp:      w.rampUp,
		MaxInFlight: w.maxInFlight,
	}, nil
}

// setup is the target and what is sent: requests, or sessions of a
// scenario file, with a pool for the largest level.
func (f *sweepFlags) setup(e *env, cs []int, rs []float64) (harness.Setup, error) {
	w := &f.workload
	if f.scenario.file != "" {
		spec, err := f.scenario.spec(w, &f.calls)
		if err != nil {
			return harness.Setup{}, err
		}
		opts, err := f.target.options(e, sweepPool(cs, rs, w.maxInFlight)*spec.File.Width())
		if err != nil {
			return harness.Setup{}, err
		}
		return f.target.setup(opts, harness.Scenarios(*spec, opts.SessionMode), &f.shard), nil
	}
	spec, err := f.calls.spec(w)
	if err != nil {
		return harness.Setup{}, err
	}
	opts, err := f.target.options(e, sweepPool(cs, rs, w.maxInFlight))
	if err != nil {
		return harness.Setup{}, err
	}
	return f.target.setup(opts, harness.Requests(spec), &f.shard), nil
}

// perPoint checks how long each point lasts and fills in the default: a
// total for concurrency levels, a duration for rates and for users of a
// scenario (whose total, --max-sessions, counts sessions and may come
// with a duration).
func (f *sweepFlags) perPoint(rates bool) error {
	w := &f.workload
	if w.total > 0 && w.duration > 0 {
		return usagef("give --total or --duration per point, not both")
	}
	if f.scenario.file != "" {
		w.total = f.scenario.maxSessions
		if w.total == 0 && w.duration == 0 {
			w.duration = 10 * time.Second
		}
		return nil
	}
	if w.total == 0 && w.duration == 0 {
		if rates {
			w.duration = 10 * time.Second
		} else {
			w.total = 1000
		}
	}
	return nil
}

// sweepPool is the connection pool every point shares: enough for the
// largest one.
func sweepPool(cs []int, rs []float64, maxInFlight int) int {
	pool := 1
	for _, c := range cs {
		pool = max(pool, c)
	}
	for _, r := range rs {
		pool = max(pool, harness.LevelConfig{Model: harness.OpenLoop{Rate: r, MaxInFlight: maxInFlight}}.Workers())
	}
	return pool
}

// levelLabel names a point's level on the progress line.
func levelLabel(l sweep.Level) string {
	if l.Rate > 0 {
		return fmt.Sprintf("rate %s", fmtNum(l.Rate))
	}
	return fmt.Sprintf("concurrency %d", l.Concurrency)
}

func fmtNum(v float64) string {
	return strings.TrimSuffix(strings.TrimRight(fmt.Sprintf("%.2f", v), "0"), ".")
}
