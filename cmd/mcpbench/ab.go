package main

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/mcpbench/mcpbench/ab"
	"github.com/mcpbench/mcpbench/abstat"
	"github.com/mcpbench/mcpbench/report"
	"github.com/mcpbench/mcpbench/results"
)

const abUsage = `Usage: mcpbench ab (--a-url URL | --a-cmd CMD) (--b-url URL | --b-cmd CMD) [flags]

Tell whether B is slower than A, or costs its server more CPU, beyond the
noise of the machine. The load of run's flags is measured in rounds; each
round measures A and B once, after a short warm-up each, in an order drawn
anew from --seed (randomized multiple interleaved trials), and the evidence
is each round's ratio B/A. Measured by time (-d), A and B take turns of
--slice within the round, each pair of turns in a random order, so that
both meet the same moments of a machine whose speed wanders; servers that
mcpbench started are started afresh before each round (--restart-servers).
Wilcoxon's signed-rank test and the Hodges-Lehmann interval judge each
metric: throughput, p50, p95, p99, error rate and, where it can be read,
the server's CPU time per request. Rounds
are added until every gated metric (throughput, p50 and server CPU per
request) is decided or --max-rounds or --budget is spent. --alpha is the
gate's false-alarm rate over these repeated looks: identical sides fail
the gate (a regression on any gated metric) at most that often, each of
the k gated metrics being tested at 2*alpha/k. A change smaller than
--min-effect is no change, once two one-sided tests say so, each at
--no-change-alpha. With a --budget that holds fewer rounds
than --max-rounds, the plan is fitted to those after the first five.

A side is a URL, or a command mcpbench starts and stops itself: each {port}
in it becomes a free loopback port and the server is then
http://127.0.0.1:{port}/mcp (--path), ready when an MCP handshake succeeds
(or --health-url answers). Its output is kept beside the first report file.
The server's CPU comes from /proc for a command (the whole process tree),
from --a-metrics (its Prometheus process_cpu_seconds_total) or --a-pid.

Exit 1 when a gated metric of B regressed, 0 otherwise; inconclusive is 0
unless --fail-on-inconclusive; 2 for a bad flag, 3 when a side cannot be
started or reached, 130 when interrupted (the rounds so far are reported).

Flags:
%s
Examples:
  mcpbench ab --a-cmd 'mcpbench serve --addr 127.0.0.1:{port}' \
      --b-cmd 'mcpbench serve --addr 127.0.0.1:{port} --burn 1ms' \
      --method tools/call --tool echo --args '{"message":"hi"}' -c 2 -n 200 \
      --max-rounds 10 --json-out ab.json --md-out ab.md --html-out ab.html
`

// abFlags are ab's flags: two sides, the experiment's plan and gate, the
// report files, and run's target and workload flags, shared with run.
type abFlags struct {
	run                      runFlags
	a, b                     abSideFlags
	path, healthURL          string
	alpha, noChangeAlpha     float64
	minEffect                string
	maxRounds                int
	budget, slice            time.Duration
	failOnInconclusive, duet bool
	restart                  bool
	jsonOut, mdOut, htmlOut  string
	junitOut                 string
	quiet                    bool
}

// abSideFlags say where one side is.
type abSideFlags struct {
	url, cmd, metrics string
	pid               int
}

// abShared are the help groups of run's flags that ab takes over as they
// are, and abNotShared the flags of those groups it does not: one URL, a
// dry run, stdio processes and load shapes have no meaning for two sides.
var (
	abShared    = []string{"Target and transport", "Authentication", "Load", "Workload and tools", "Scenarios"}
	abNotShared = []string{"url", "dry-run", "stdio-procs", "stages", "rate-stages"}
)

// flagSet is ab's flag set, bound to f: its own flags, then run's of the
// groups it shares, declared as run declares them.
func (f *abFlags) flagSet() *pflag.FlagSet {
	var own []flagDecl
	for _, s := range []struct {
		side *abSideFlags
		name string
	}{{&f.a, "a"}, {&f.b, "b"}} {
		up := strings.ToUpper(s.name)
		own = append(own,
			flagDecl{name: s.name + "-url", to: &s.side.url, group: "A/B sides", usage: "side " + up + ": MCP endpoint `URL`"},
			flagDecl{name: s.name + "-cmd", to: &s.side.cmd, group: "A/B sides", usage: "side " + up + ": server `COMMAND` to start (sh -c), {port} replaced by a free port"},
			flagDecl{name: s.name + "-metrics", to: &s.side.metrics, group: "A/B sides", usage: "side " + up + ": Prometheus `URL` whose process_cpu_seconds_total gives the server's CPU"},
			flagDecl{name: s.name + "-pid", to: &s.side.pid, group: "A/B sides", rng: atLeastOne(1 << 22), usage: "side " + up + ": `PID` of the server, whose CPU (with its children's) is read from /proc"})
	}
	own = append(own,
		flagDecl{name: "path", to: &f.path, def: "/mcp", group: "A/B sides", usage: "with --a-cmd/--b-cmd: the endpoint's path"},
		flagDecl{name: "health-url", to: &f.healthURL, group: "A/B sides", usage: "with --a-cmd/--b-cmd: ready when this `URL` ({port} replaced) answers 2xx, instead of an MCP handshake"},
		flagDecl{name: "duet", to: &f.duet, group: "A/B sides", usage: "measure A and B at the same time in each round (needs a core for each server and the generator)"},
		flagDecl{name: "slice", to: &f.slice, def: abDefaultSlice, group: "A/B sides", rng: pauseUpTo(time.Minute),
			usage: "A and B take turns of `D` within each round, each pair of turns in a random order, so that both meet the same moments of a noisy machine (0: each side measured whole, one after the other; needs -d and a closed or open loop)"},
		flagDecl{name: "restart-servers", to: &f.restart, def: true, group: "A/B sides",
			usage: "start the servers of --a-cmd/--b-cmd afresh before each round: two starts of one server differ by a few percent, which a single start would read as a difference between A and B (not with --a-pid or --a-metrics)"},
		flagDecl{name: "alpha", to: &f.alpha, def: 0.01, group: "SLO and gates", rng: above0(0.5), usage: "false-alarm rate of the gate, over all looks: how often identical sides may fail it (a regression on any gated metric; each is tested at 2*alpha/gated)"},
		flagDecl{name: "no-change-alpha", to: &f.noChangeAlpha, def: 0.05, group: "SLO and gates", rng: above0(0.5), usage: "how often, per metric and direction, a change of --min-effect or more may be called no change"},
		flagDecl{name: "min-effect", to: &f.minEffect, def: "3%", group: "SLO and gates", usage: "smallest change that counts: a change within ± this is no change (3% or 0.03)"},
		flagDecl{name: "max-rounds", to: &f.maxRounds, def: 30, group: "SLO and gates", rng: &limit{min: 2, max: abstat.MaxRounds}, usage: "most rounds (each measures A and B once)"},
		flagDecl{name: "budget", to: &f.budget, def: 5 * time.Minute, group: "SLO and gates", rng: pauseUpTo(maxRunTime), usage: "no round starts that would end after this `D` (0: no limit)"},
		flagDecl{name: "fail-on-inconclusive", to: &f.failOnInconclusive, group: "SLO and gates", usage: "exit 1 when a gated metric is left undecided"},
		flagDecl{name: "json-out", to: &f.jsonOut, group: "Outputs", usage: "write the report as JSON to `FILE` (- = stdout): rounds, verdicts, seed"},
		flagDecl{name: "md-out", to: &f.mdOut, group: "Outputs", usage: "write a Markdown summary to `FILE`, e.g. $GITHUB_STEP_SUMMARY (- = stdout)"},
		flagDecl{name: "html-out", to: &f.htmlOut, group: "Outputs", usage: "write an HTML page to `FILE`: A and B by round, the ratios, the verdicts"},
		flagDecl{name: "junit-out", to: &f.junitOut, group: "Outputs", usage: "write JUnit XML to `FILE`, one test case per metric"},
		flagDecl{name: "quiet", short: "q", to: &f.quiet, group: "Outputs", usage: "no summary and no line per round on the terminal"})
	// run's flags of the shared groups, with ab's words where a flag
	// means something per side and round.
	for _, d := range f.run.declarations() {
		if !slices.Contains(abShared, d.group) || slices.Contains(abNotShared, d.name) {
			continue
		}
		switch d.name {
		case "seed":
			d.def, d.usage = uint64(0), "seed of the rounds' order (default: drawn, and written in the report) and of mixes and generated arguments"
		case "duration":
			d.usage = "measure each side for `D` in each round (default 2s when -n is not given)"
		case "total":
			d.usage = "measure `N` requests of each side in each round"
		}
		own = append(own, d)
	}
	return declare("ab", own...)
}

func abMain(ctx context.Context, args []string, e env) int {
	f := new(abFlags)
	fs := f.flagSet()
	if done, code := parseFlags(fs, args, abUsage, e); done {
		return code
	}
	return f.main(ctx, fs, e)
}

// main runs the experiment the parsed flags describe and writes its
// reports.
func (f *abFlags) main(ctx context.Context, fs *pflag.FlagSet, e env) int {
	x, err := f.experiment(fs, &e)
	if err != nil {
		return exitFor(e, "ab", err)
	}
	outs := f.outputs()
	if err := checkOutputs(files(outs)); err != nil {
		return exitFor(e, "ab", err)
	}
	sides, err := x.startSides(ctx, e)
	defer sides.stop()
	if err != nil {
		return exitFor(e, "ab", err)
	}
	res, runErr := x.exp.Run(ctx)
	r := x.report(res, sides, runErr)
	writeErr := writeFormats(report.ABFormats, r, outs, e)
	switch {
	case res.Stopped == ab.StopInterrupted:
		return exitInterrupted
	case runErr != nil:
		return exitFor(e, "ab", flagError(runErr))
	case writeErr != nil:
		return exitFor(e, "ab", writeErr)
	case r.GateFailed:
		return exitGate
	}
	return exitOK
}

// outputs are the report files and the terminal summary.
func (f *abFlags) outputs() map[string]output {
	outs := map[string]output{
		report.FormatJSON:     {path: f.jsonOut, flag: "--json-out"},
		report.FormatMarkdown: {path: f.mdOut, flag: "--md-out"},
		report.FormatHTML:     {path: f.htmlOut, flag: "--html-out"},
		report.FormatJUnit:    {path: f.junitOut, flag: "--junit-out"},
	}
	if !f.quiet && f.jsonOut != "-" && f.mdOut != "-" && f.htmlOut != "-" && f.junitOut != "-" {
		outs[report.FormatSummary] = output{path: "-", flag: "the summary"}
	}
	return outs
}

// plan checks the experiment's flags and turns them into a plan.
func (f *abFlags) plan() (abstat.Plan, error) {
	eff, err := parseFraction(f.minEffect)
	if err != nil || !(eff > 0 && eff < 1) {
		return abstat.Plan{}, usagef("--min-effect %q: want a share above 0 and below 100%%, e.g. 2%% or 0.02", f.minEffect)
	}
	p, err := abstat.Plan{Alpha: f.alpha, NoChangeAlpha: f.noChangeAlpha, MinEffect: eff, MaxRounds: f.maxRounds}.WithDefaults()
	if err != nil {
		return p, usagef("%v", err)
	}
	gated := ab.DefaultGated(f.a.hasCPU() && f.b.hasCPU())
	if seq, err := abstat.NewSequential(p, gated); err == nil && seq.Blind() {
		return p, usagef("--max-rounds %d: too few to find a regression at --alpha %g over %d gated metrics (each tested at %.2g; %d rounds cannot give a p-value below %.2g): give more rounds or a larger --alpha",
			p.MaxRounds, p.Alpha, len(gated), seq.AlarmAlpha(), p.MaxRounds, math.Ldexp(2, -p.MaxRounds))
	}
	return p, nil
}

// hasCPU says whether the side's server CPU can be read: a server
// mcpbench starts, a PID or a metrics endpoint.
func (s abSideFlags) hasCPU() bool { return s.cmd != "" || s.pid != 0 || s.metrics != "" }

// parseFraction reads "2%" or "0.02".
func parseFraction(s string) (float64, error) {
	s = strings.TrimSpace(s)
	if p, ok := strings.CutSuffix(s, "%"); ok {
		v, err := strconv.ParseFloat(strings.TrimSpace(p), 64)
		return v / 100, err
	}
	return strconv.ParseFloat(s, 64)
}

// checkSides refuses a side given twice or not at all.
func (f *abFlags) checkSides(e env) error {
	for _, s := range []struct {
		name string
		side abSideFlags
	}{{"a", f.a}, {"b", f.b}} {
		switch {
		case s.side.url == "" && s.side.cmd == "":
			return usagef("side %s needs --%s-url or --%s-cmd", strings.ToUpper(s.name), s.name, s.name)
		case s.side.url != "" && s.side.cmd != "":
			return usagef("give --%s-url or --%s-cmd, not both", s.name, s.name)
		case s.side.cmd != "" && !strings.Contains(s.side.cmd, "{port}"):
			return usagef("--%s-cmd needs a {port} for the server to listen on, e.g. 'my-server --port {port}'", s.name)
		case s.side.metrics != "" && s.side.pid != 0:
			return usagef("give --%s-metrics or --%s-pid, not both", s.name, s.name)
		case s.side.url != "":
			if err := checkURL(s.side.url); err != nil {
				return usagef("--%s-%s", s.name, strings.TrimPrefix(err.Error(), "--"))
			}
		}
	}
	if f.run.target.transport == "stdio" {
		return usagef("--transport stdio: ab measures HTTP servers; start a stdio server behind a command with --a-cmd")
	}
	return nil
}

// abExperiment is the experiment as the flags describe it.
type abExperiment struct {
	f    *abFlags
	exp  ab.Experiment
	cfg  abRunConfig
	seed uint64
}

// experiment checks the flags and builds the experiment, its sides
// still to be started.
func (f *abFlags) experiment(fs *pflag.FlagSet, e *env) (*abExperiment, error) {
	if err := f.checkSides(*e); err != nil {
		return nil, err
	}
	plan, err := f.plan()
	if err != nil {
		return nil, err
	}
	if !fs.Changed("total") && !fs.Changed("duration") {
		f.run.workload.duration = 2 * time.Second
	}
	// run's checks want one URL; each measurement puts its side's in.
	f.run.target.url = f.a.url
	if f.run.target.url == "" {
		f.run.target.url = "http://127.0.0.1" + f.path
	}
	cfg, err := f.run.config(fs, e)
	if err != nil {
		return nil, err
	}
	x := &abExperiment{f: f, cfg: abRunConfig{cfg}}
	// A drawn seed stays below 2^53, so that readers holding JSON numbers
	// as doubles (jq, JavaScript) read it exactly to repeat the order.
	x.seed = rand.Uint64N(1<<53) | 1
	if fs.Changed("seed") {
		x.seed = f.run.workload.seed
	}
	x.exp = ab.Experiment{Plan: plan, Seed: x.seed, Budget: f.budget, Duet: f.duet, Restart: f.restart, Measure: x.cfg.measure}
	if x.exp.Slice, x.exp.Pairs, err = f.slicing(fs, cfg.Level); err != nil {
		return nil, err
	}
	if f.duet && runtime.NumCPU() < 4 {
		fmt.Fprintf(e.stderr, "mcpbench ab: --duet on %d cores: the two servers and the generator share them, so their contention is measured too\n", runtime.NumCPU())
	}
	if !f.quiet {
		x.exp.OnRound = func(r ab.Round) { abRoundLine(*e, r) }
	}
	return x, nil
}

// abRoundLine prints a round as it ends.
func abRoundLine(e env, r ab.Round) {
	fmt.Fprintf(e.stderr, "round %d (%s%s): A %.1f rps p50 %.3f ms, B %.1f rps p50 %.3f ms\n",
		r.Index, r.Order[0], r.Order[1], r.A.Throughput, r.A.P50MS, r.B.Throughput, r.B.P50MS)
}

// report is the A/B report of a finished experiment.
func (x *abExperiment) report(res *ab.Result, s *abSides, runErr error) *results.ABReport {
	r := &results.ABReport{
		Schema: results.SchemaAB, MCPBenchVersion: buildVersion(), StartedAt: s.started,
		A: s.a.side, B: s.b.side, Workload: x.cfg.describe(), Result: *res,
		FailOnInconclusive: x.f.failOnInconclusive,
	}
	r.GateFailed = res.GateFailed(x.f.failOnInconclusive)
	if runErr != nil {
		r.Error = oneLine(runErr.Error())
	}
	return r
}
