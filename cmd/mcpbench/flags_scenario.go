package main

import (
	"time"

	"github.com/spf13/pflag"

	"github.com/mcpbench/mcpbench/harness"
	"github.com/mcpbench/mcpbench/mcp"
	"github.com/mcpbench/mcpbench/workload"
)

// scenarioFlags run sessions of a scenario file in place of single
// requests: the load is then users (closed) or new sessions a second
// (open).
type scenarioFlags struct {
	file          string
	userCount     int
	sessionRate   float64
	maxSessions   int64
	newConnection bool
	thinkScale    float64
	usersValues   string // sweep only
}

// flags declares sessions of a scenario file; levels are the command's
// own (run's users or session rate, sweep's user counts).
func (f *scenarioFlags) flags(levels []flagDecl) []flagDecl {
	return append(append([]flagDecl{
		{name: "scenario", to: &f.file, group: "Scenarios", usage: "run sessions of the scenario `FILE` (YAML or JSON, see docs/scenarios.md) instead of single requests"},
	}, levels...), []flagDecl{
		{name: "max-sessions", to: &f.maxSessions, group: "Scenarios", rng: atLeastOne(maxRequests), usage: "with --scenario: stop after N measured sessions (with -d: whichever comes first)"},
		{name: "think-scale", to: &f.thinkScale, def: 1.0, group: "Scenarios", rng: above0(1000), usage: "with --scenario: multiply every think time by `X` (0.5 halves the recorded pauses, 2 doubles them)"},
		{name: "new-connection-per-session", to: &f.newConnection, group: "Scenarios", usage: "with --scenario: open each session on connections of its own, closed at its end (connection churn)"},
	}...)
}

// users declares run's one level of sessions: users or a session rate.
func (f *scenarioFlags) users() []flagDecl {
	return []flagDecl{
		{name: "users", to: &f.userCount, group: "Scenarios", rng: atLeastOne(maxWorkers), usage: "with --scenario, closed loop: N virtual users, each running sessions back to back (default 1)"},
		{name: "session-rate", to: &f.sessionRate, group: "Scenarios", rng: above0(maxRate), usage: "with --scenario, open loop: R new sessions/s on a fixed schedule (--max-in-flight bounds the users)"},
	}
}

// usersLevels declares sweep's levels of users.
func (f *scenarioFlags) usersLevels() []flagDecl {
	return []flagDecl{{name: "users-values", to: &f.usersValues, group: "Scenarios", usage: "with --scenario: the user counts to measure, e.g. 1,2,4,8"}}
}

// scenarioOnly are the flags that mean nothing without --scenario.
var scenarioOnly = []string{"users", "session-rate", "max-sessions", "new-connection-per-session", "users-values", "think-scale"}

// replacedByScenario are the flags whose part a scenario file takes: what
// is sent, and load counted in requests.
var replacedByScenario = []string{"concurrency", "rate", "total", "max-rate", "method", "tool", "args", "mix", "gen-args", "inject-args",
	"concurrency-values", "concurrency-range", "rate-values", "rate-range"}

// check refuses the flags that do not go with --scenario, or with its
// absence, and bad load values.
func (f *scenarioFlags) check(fs *pflag.FlagSet, session string) error {
	if f.file == "" {
		for _, name := range scenarioOnly {
			if fs.Lookup(name) != nil && fs.Changed(name) {
				return usagef("--%s goes with --scenario", name)
			}
		}
		return nil
	}
	for _, name := range replacedByScenario {
		if fs.Lookup(name) != nil && fs.Changed(name) {
			return usagef("--%s does not go with --scenario: the scenario file says what is sent, and the load is --users or --session-rate", name)
		}
	}
	switch {
	case session != string(mcp.SessionPerWorker):
		return usagef("--scenario runs each session on an MCP session of its own: --session must be per-worker")
	case f.userCount > 0 && f.sessionRate > 0:
		return usagef("give --users (closed loop) or --session-rate (open loop), not both")
	}
	return nil
}

// spec reads the scenario file, with the data files its steps name.
func (f *scenarioFlags) spec(w *workloadFlags, c *callFlags) (*workload.ScenarioSpec, error) {
	file, err := workload.ReadScenarioFile(f.file)
	if err != nil {
		return nil, usagef("--scenario %s: %v", f.file, oneLine(err.Error()))
	}
	return &workload.ScenarioSpec{File: file, Seed: w.seed, Cardinality: c.cardinality, NewConnectionPerSession: f.newConnection,
		Select: c.selection(), ThinkScale: f.thinkScale}, nil
}

// runLoad is run's load in sessions: the users or session rate, split
// for a shard, and the bounds. The counts go through w, whose shard split
// and checks they share with request loads.
func (f *scenarioFlags) runLoad(w *workloadFlags, s *shardFlags, usersSet bool) (harness.LevelConfig, error) {
	w.concurrency, w.rate, w.total = max(f.userCount, 1), f.sessionRate, f.maxSessions
	if err := s.parse(); err != nil {
		return harness.LevelConfig{}, err
	}
	if sp := s.spec; sp != nil && (w.rate == 0 || usersSet) && w.concurrency < sp.count {
		return harness.LevelConfig{}, usagef("--users %d cannot be split over %d shards: each shard needs a user", w.concurrency, sp.count)
	}
	if sp := s.spec; sp != nil && w.total > 0 && w.total < int64(sp.count) {
		return harness.LevelConfig{}, usagef("--max-sessions %d cannot be split over %d shards: each shard needs a session", w.total, sp.count)
	}
	if err := s.splitRun(w, usersSet); err != nil {
		return harness.LevelConfig{}, err
	}
	loops, err := w.loops()
	if err != nil {
		return harness.LevelConfig{}, err
	}
	cfg := harness.LevelConfig{Model: harness.ScenarioUsers{Users: w.concurrency, RampUp: w.rampUp}, Total: w.total,
		Duration: w.duration, Warmup: w.warmup, Loops: loops}
	if w.rate > 0 {
		cfg.Model = harness.OpenLoop{Rate: w.rate, MaxInFlight: w.maxInFlight, RampUp: w.rampUp}
	}
	if w.rate == 0 && w.maxInFlight > 0 {
		return cfg, usagef("--max-in-flight goes with --session-rate (a closed loop has --users sessions at once)")
	}
	if cfg.Total == 0 && cfg.Duration == 0 {
		cfg.Duration = 10 * time.Second
	}
	return cfg, nil
}
