package main

import (
	"context"
	"time"

	"github.com/spf13/pflag"

	"github.com/mcpbench/mcpbench/dashboard"
	"github.com/mcpbench/mcpbench/harness"
	"github.com/mcpbench/mcpbench/mcp"
	"github.com/mcpbench/mcpbench/results"
	"github.com/mcpbench/mcpbench/workload"
)

// shapeFlags are run's load shapes and the watches that go with them:
// stages of workers (or users) or of a rate, the recovery gate after a
// spike, the thresholds that stop a run early, and the live page.
type shapeFlags struct {
	stages      string
	rateStages  string
	maxRecovery time.Duration
	abortOn     []string
	dashboard   string

	rules []results.AbortRule
}

// flags declares run's shapes, watches and live page.
func (s *shapeFlags) flags() []flagDecl {
	return append([]flagDecl{
		{name: "stages", to: &s.stages, group: "Load", usage: "closed loop in stages `D:N[,D:N…]`: over each D the workers (users with --scenario) move linearly to N, from 0 before the first; each stage is summarised"},
		{name: "rate-stages", to: &s.rateStages, group: "Load", usage: "open loop in stages `D:R[,D:R…]`: over each D the rate (session rate with --scenario) moves linearly to R per second"},
		{name: "max-recovery", to: &s.maxRecovery, group: "SLO and gates", rng: pauseUpTo(maxRunTime), usage: "exit 1 when a spike's recovery takes longer than `D` (0 = no gate)"},
		{name: "abort-on", to: &s.abortOn, group: "SLO and gates", usage: "stop the run, exit 1, when `EXPR` holds, e.g. 'p99>500ms for 30s', 'error_rate>5% for 10s', 'rps<100 for 20s' (repeatable)"},
	}, s.dashboardFlag()...)
}

// dashboardFlag declares --dashboard alone (sweep has no stages).
func (s *shapeFlags) dashboardFlag() []flagDecl {
	return []flagDecl{{name: "dashboard", to: &s.dashboard, group: "Outputs",
		usage: "serve the HTML report live at `ADDR` (host:port, or a port on 127.0.0.1) while the command runs; read-only"}}
}

// shapeConflicts are the load flags a stage list replaces.
var shapeConflicts = []string{"concurrency", "rate", "total", "duration", "ramp-up", "users", "session-rate", "max-sessions", "shard"}

// apply puts the stages into load, refusing the flags they replace; w
// gives the workers' bound and the rate cap that go with stages.
func (s *shapeFlags) apply(fs *pflag.FlagSet, load *harness.LevelConfig, interval time.Duration, w *workloadFlags) error {
	if s.stages == "" && s.rateStages == "" {
		return nil
	}
	if s.stages != "" && s.rateStages != "" {
		return usagef("give --stages or --rate-stages, not both")
	}
	name, text := "--stages", s.stages
	if s.rateStages != "" {
		name, text = "--rate-stages", s.rateStages
	}
	for _, f := range shapeConflicts {
		if fs.Lookup(f) != nil && fs.Changed(f) {
			return usagef("%s sets the load and its length: drop --%s", name, f)
		}
	}
	st, err := harness.ParseStages(text)
	if err != nil {
		return usagef("%s: %v", name, err)
	}
	return setStages(load, name, st, interval, w)
}

// setStages makes checked stages load's model, in place of its level and
// length. A cap beside rate stages is the model's to refuse when the
// level runs, as it always was.
func setStages(load *harness.LevelConfig, name string, st harness.Stages, interval time.Duration, w *workloadFlags) error {
	var m harness.Model = harness.ClosedStages{Stages: st, MaxRate: w.maxRate}
	if name == "--rate-stages" || name == "rate_stages" {
		m = harness.RateStages{Stages: st, MaxInFlight: w.maxInFlight}
	}
	if err := m.Validate(harness.LevelConfig{Interval: interval}); err != nil {
		return usagef("%s: %v", name, err)
	}
	if r, ok := m.(harness.RateStages); ok {
		r.MaxRate, m = w.maxRate, r
	}
	load.Model, load.Total, load.Duration = m, 0, 0
	return nil
}

// fromFile takes a scenario file's stages when no flag gave any.
func (s *shapeFlags) fromFile(fs *pflag.FlagSet, load *harness.LevelConfig, file *workload.ScenarioFile, interval time.Duration, w *workloadFlags) error {
	if s.stages != "" || s.rateStages != "" || file == nil {
		return nil
	}
	st, rate := file.LoadStages()
	if st == nil {
		return nil
	}
	if len(file.Stages) > 0 && len(file.RateStages) > 0 {
		return usagef("--scenario %s: stages or rate_stages, not both", file.Name)
	}
	name := "stages"
	if rate {
		name = "rate_stages"
	}
	for _, f := range shapeConflicts {
		if fs.Lookup(f) != nil && fs.Changed(f) {
			return usagef("--scenario %s has %s, which set the load and its length: drop --%s", file.Name, name, f)
		}
	}
	return setStages(load, name, st, interval, w)
}

// check reads the --abort-on rules and the --dashboard address.
func (s *shapeFlags) check() error {
	if s.dashboard != "" {
		if _, err := dashboard.ListenAddr(s.dashboard); err != nil {
			return usagef("--dashboard %s: want host:port or a port (%v)", s.dashboard, err)
		}
	}
	s.rules = s.rules[:0]
	for _, text := range s.abortOn {
		r, err := results.ParseAbortRule(text)
		if err != nil {
			return usagef("--abort-on %v", err)
		}
		s.rules = append(s.rules, r)
	}
	return nil
}

// attach registers the live page and the abort watch as they are asked
// for, and returns the context the run goes on (the watch ends it), the
// watch (nil without rules) and what closes the page.
func (s *shapeFlags) attach(ctx context.Context, setup *harness.Setup, e env, cmd string) (context.Context, *abortOutput, func()) {
	closePage := func() {}
	if s.dashboard != "" {
		d := dashboard.New(s.dashboard, mcp.Redact(setup.Options.URL))
		setup.Outputs = append(setup.Outputs, dashboardOutput{Dashboard: d, e: e, cmd: cmd})
		closePage = d.Close
	}
	if len(s.rules) == 0 {
		return ctx, nil, closePage
	}
	ctx, cancel := context.WithCancel(ctx)
	a := &abortOutput{cancel: cancel, e: e, cmd: cmd, watch: results.AbortWatch{Rules: s.rules}}
	setup.Outputs = append(setup.Outputs, a)
	return ctx, a, closePage
}
