package main

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/spf13/pflag"

	"github.com/mcpbench/mcpbench/harness"
	"github.com/mcpbench/mcpbench/mcp"
	"github.com/mcpbench/mcpbench/probe"
	"github.com/mcpbench/mcpbench/report"
	"github.com/mcpbench/mcpbench/results"
	"github.com/mcpbench/mcpbench/sweep"
)

const probeUsage = `Usage: mcpbench probe --url URL [flags]
       mcpbench probe --transport stdio [flags] -- CMD ARGS...

One-shot observability probe of an MCP server: /health before and after
(with the change in its cache counters), what the server says about itself
(initialize or server/discover, and a plain GET of the endpoint), an audit
of the tools/list payload (size, pages, largest tools, descriptions, schema
compaction, lint), a sequential latency profile in the order sent (the
first call is the cold one), a small and a large concurrent tools/list
benchmark and, with --log-file, the server's stats lines over the probe.
A stdio server gets the same probe bar health and the GET, which need an
HTTP endpoint.

Flags:
%s
Examples:
  mcpbench probe --base-url http://127.0.0.1:3002 \
      --log-file .run/logs/mcp.log \
      --json-out .run/reports/mcp-tools-list-observability.json
  mcpbench probe --url http://127.0.0.1:3002/mcp --bench-large-total 0 --md-out probe.md
  mcpbench probe --transport stdio --bench-large-total 0 -- npx -y @modelcontextprotocol/server-memory
`

type probeFlags struct {
	target       targetFlags
	output       outputFlags
	samples      int
	sleepMS      float64
	smallTotal   int64
	smallC       int
	largeTotal   int64
	largeC       int
	maxErrorRate float64
	allowErrors  bool
}

func (f *probeFlags) flagSet() *pflag.FlagSet {
	return declare("probe", slices.Concat(f.target.flags(), []flagDecl{
		{name: "sequential-samples", to: &f.samples, def: 5, group: "Probe benchmarks", rng: zeroOrMore(maxSamples), usage: "tools/list listings sent one after another (the first is the cold call)"},
		{name: "sequential-sleep-ms", to: &f.sleepMS, def: 100.0, group: "Probe benchmarks", rng: zeroOrMore(maxWait.Seconds() * 1000), usage: "pause between sequential listings, in ms"},
		{name: "bench-small-total", to: &f.smallTotal, def: int64(200), group: "Probe benchmarks", rng: zeroOrMore(maxRequests), usage: "requests of the small concurrent benchmark (0 = skip it)"},
		{name: "bench-small-concurrency", to: &f.smallC, def: 10, group: "Probe benchmarks", rng: atLeastOne(maxWorkers), usage: "workers of the small benchmark"},
		{name: "bench-large-total", to: &f.largeTotal, def: int64(1000), group: "Probe benchmarks", rng: zeroOrMore(maxRequests), usage: "requests of the large concurrent benchmark (0 = skip it)"},
		{name: "bench-large-concurrency", to: &f.largeC, def: 50, group: "Probe benchmarks", rng: atLeastOne(maxWorkers), usage: "workers of the large benchmark"},
		{name: "max-error-rate", to: &f.maxErrorRate, group: "SLO and gates", rng: fraction, usage: "highest acceptable error rate of each benchmark and of the sequential listings, 0..1"},
		{name: "allow-request-errors", to: &f.allowErrors, group: "SLO and gates", usage: "any error rate is acceptable"},
	}, f.output.reports(), []flagDecl{{name: "no-progress", to: &f.output.noProgress, group: "Outputs", usage: "no progress on stderr"}})...)
}

// maxSamples bounds the sequential listings: each is sent alone, so more
// than this would take hours.
const maxSamples = 100_000

func probeMain(ctx context.Context, args []string, e env) int {
	var f probeFlags
	fs := f.flagSet()
	if done, code := parseFlags(fs, args, probeUsage, e); done {
		return code
	}
	cfg, err := f.config(fs, &e)
	if err == nil {
		err = checkOutputs(files(f.output.outputs(e)))
	}
	if err != nil {
		return exitFor(e, "probe", err)
	}
	progress := progressPrinter(e, f.output.noProgress)
	cfg.BenchProgress = progress
	st := newStageWatch(e, "probe", cfg.Options, progress != nil)
	cfg.Progress = func(stage string) {
		if stage == probe.PhaseDial {
			st.show("connecting to "+st.target, true)
			return
		}
		st.show("probe: "+stage, false)
	}
	started := time.Now()
	res, err := probe.Run(ctx, cfg)
	st.show("", false)
	if err != nil {
		if ctx.Err() != nil {
			fmt.Fprintln(e.stderr, "mcpbench probe: interrupted before the server answered")
			return exitInterrupted
		}
		var se *probe.PhaseError
		if errors.As(err, &se) && se.Phase == probe.PhaseLogMark {
			return exitFor(e, "probe", usagef("--log-file: %v", se.Err))
		}
		if ce := harness.OptionError(err); ce != nil {
			return exitFor(e, "probe", flagError(ce))
		}
		return exitFor(e, "probe", err)
	}
	r := f.report(res, cfg, started)
	gateFailed := results.Gates{SLO: sweep.SLO{MaxErrorRate: f.maxErrorRate}}.Probe(r)
	writeErr := writeFormats(report.ProbeFormats, r, f.output.outputs(e), e)
	return finish(e, "probe", writeErr, r.Interrupted, gateFailed)
}

// config checks probe's flags and turns them into the probe's
// configuration.
func (f *probeFlags) config(fs *pflag.FlagSet, e *env) (probe.Config, error) {
	rest, command := splitCommand(fs)
	if len(rest) > 0 {
		return probe.Config{}, usagef("unexpected argument %q", rest[0])
	}
	f.target.command = command
	if f.allowErrors {
		f.maxErrorRate = 1
	}
	opts, err := f.target.options(e, max(f.smallC, f.largeC, 1))
	if err != nil {
		return probe.Config{}, err
	}
	if err := probe.ValidateHealthURL(opts.URL, f.target.healthURL); err != nil {
		return probe.Config{}, usagef("--health-url: %v", err)
	}
	return probe.Config{
		Options:           opts,
		Dial:              f.target.dial,
		HealthURL:         f.target.healthURL,
		SequentialSamples: f.samples,
		SequentialSleep:   time.Duration(f.sleepMS * float64(time.Millisecond)),
		Small:             probe.BenchSpec{Concurrency: f.smallC, Total: f.smallTotal},
		Large:             probe.BenchSpec{Concurrency: f.largeC, Total: f.largeTotal},
		LogFile:           f.target.logFile,
		LogSettle:         time.Duration(f.target.logSettle),
	}, nil
}

// report wraps the probe's findings with the header and the settings
// they were taken with.
func (f *probeFlags) report(res *probe.Report, cfg probe.Config, started time.Time) *results.ProbeReport {
	si := res.ServerInfo
	return &results.ProbeReport{
		Header: results.Header{
			Schema: results.SchemaProbe, MCPBenchVersion: buildVersion(), StartedAt: started.UTC(),
			Target: results.Target{URL: mcp.Redact(si.Endpoint), Transport: si.Transport, ProtocolVersion: si.ProtocolVersion,
				ServerName: si.Name, ServerVersion: si.Version},
		},
		Settings: results.ProbeSettings{
			HealthURL:         res.Health.URL,
			SequentialSamples: f.samples,
			SequentialSleepMS: f.sleepMS,
			Small:             cfg.Small,
			Large:             cfg.Large,
			LogFile:           f.target.logFile,
			MaxErrorRate:      f.maxErrorRate,
		},
		Report: *res,
	}
}
