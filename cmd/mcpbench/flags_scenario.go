package main

import (
	"math"
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
	users         int
	sessionRate   float64
	maxSessions   int64
	newConnection bool
	thinkScale    float64
	usersValues   string // sweep only
}

func (f *scenarioFlags) register(fs *pflag.FlagSet, sweep bool) {
	fs.StringVar(&f.file, "scenario", "", "run sessions of the scenario `FILE` (YAML or JSON, see docs/scenarios.md) instead of single requests")
	if sweep {
		fs.StringVar(&f.usersValues, "users-values", "", "with --scenario: the user counts to measure, e.g. 1,2,4,8")
	} else {
		fs.IntVar(&f.users, "users", 0, "with --scenario, closed loop: N virtual users, each running sessions back to back (default 1)")
		fs.Float64Var(&f.sessionRate, "session-rate", 0, "with --scenario, open loop: R new sessions/s on a fixed schedule (--max-in-flight bounds the users)")
		limitFlags(fs, atLeastOne(maxWorkers), "users")
		limitFlags(fs, above0(maxRate), "session-rate")
	}
	fs.Int64Var(&f.maxSessions, "max-sessions", 0, "with --scenario: stop after N measured sessions (with -d: whichever comes first)")
	limitFlags(fs, atLeastOne(maxRequests), "max-sessions")
	fs.Float64Var(&f.thinkScale, "think-scale", 1, "with --scenario: multiply every think time by `X` (0.5 halves the recorded pauses, 2 doubles them)")
	limitFlags(fs, above0(1000), "think-scale")
	fs.BoolVar(&f.newConnection, "new-connection-per-session", false, "with --scenario: open each session on connections of its own, closed at its end (connection churn)")
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
	case f.users < 0 || f.maxSessions < 0:
		return usagef("--users and --max-sessions must not be negative")
	case f.sessionRate < 0 || math.IsNaN(f.sessionRate) || math.IsInf(f.sessionRate, 0):
		return usagef("--session-rate must be a positive number")
	case f.users > 0 && f.sessionRate > 0:
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
	if c.cardinality < 1 {
		return nil, usagef("--arg-cardinality must be at least 1")
	}
	return &workload.ScenarioSpec{File: file, Seed: w.seed, Cardinality: c.cardinality, NewConnectionPerSession: f.newConnection,
		Select: c.selection(), ThinkScale: f.thinkScale}, nil
}

// runLoad is run's load in sessions: the users or session rate, split
// for a shard, and the bounds. The counts go through w, whose shard split
// and checks they share with request loads.
func (f *scenarioFlags) runLoad(w *workloadFlags, s *shardFlags, usersSet bool) (harness.LevelConfig, error) {
	w.concurrency, w.rate, w.total = max(f.users, 1), f.sessionRate, f.maxSessions
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
	switch {
	case w.duration < 0 || w.warmup < 0 || w.rampUp < 0 || w.maxInFlight < 0:
		return cfg, usagef("-d, --warmup, --ramp-up and --max-in-flight must not be negative")
	case w.rate == 0 && w.maxInFlight > 0:
		return cfg, usagef("--max-in-flight goes with --session-rate (a closed loop has --users sessions at once)")
	}
	if cfg.Total == 0 && cfg.Duration == 0 {
		cfg.Duration = 10 * time.Second
	}
	return cfg, nil
}
