// Package harness holds the recipes of the run and sweep commands as
// libraries: connect, mark the server log, wait for the start time, build
// the workload, watch health, measure, then scan the log window and finish
// the health watch. It prints nothing; progress goes to callbacks and
// failures come back as typed errors.
package harness

import (
	"context"
	"time"

	"github.com/mcpbench/mcpbench/bench"
	"github.com/mcpbench/mcpbench/logscan"
	"github.com/mcpbench/mcpbench/mcp"
	"github.com/mcpbench/mcpbench/probe"
	"github.com/mcpbench/mcpbench/results"
	"github.com/mcpbench/mcpbench/workload"
)

// Setup is what run and sweep share: the target, what is sent, and what
// is watched beside the load.
type Setup struct {
	// Options are the client options; PoolSize must cover the largest
	// load level.
	Options mcp.Options
	// Workload is what is sent; it is built once connected. Scenario,
	// when set, replaces it: sessions of a scenario file are the unit of
	// work, and each load level counts users or sessions per second.
	Workload workload.Spec
	Scenario *workload.ScenarioSpec
	// HealthURL, when set, is polled over the load; LogFile, when set, is
	// the server log whose stats lines are scanned over it.
	HealthURL string
	LogFile   string
	// LogSettle is how long to wait after the load for the stats line that
	// covers its end; negative: as long as the lines' interval suggests.
	LogSettle time.Duration
	// StartAt, when set, holds the load after connecting until that time,
	// so that shards line up; the report's start is then the time sending
	// began.
	StartAt time.Time
	// Sampling names what to read from the server once an interval; its
	// readings become the series' server columns.
	Sampling Sampling
	// Shard goes into the report as it is; nil when not sharded.
	Shard *results.Shard
	// Version is the mcpbench version the report names.
	Version string
	// MeasureDone, if set, is called as each measurement ends, whatever
	// its outcome, before anything else happens: the caller clears its
	// progress line there.
	MeasureDone func()
	// Warn, if set, receives problems that do not stop the command: a log
	// window that could not be scanned.
	Warn func(Setting, error)
	// Announce, if set, receives the tools the workload will call and the
	// warnings about them once it is built, before any is called.
	Announce func(tools []workload.ToolInfo, warnings []string)
	// OnStage, if set, is told each step before the load as it starts, and
	// StageDone once it is over: a server that accepts but never
	// answers would otherwise be a long silence.
	OnStage func(Stage)
}

// Stage is a step before the load.
type Stage int

// The stages, in the order they come.
const (
	StageConnecting Stage = iota // dialling and negotiating
	StageStartWait               // holding until StartAt
	StageWorkload                // building the workload (listing tools)
	StageDone                    // the setup is over: the load begins, or it failed
)

func (s *Setup) stage(st Stage) {
	if s.OnStage != nil {
		s.OnStage(st)
	}
}

// session is a prepared target: connected, log marked, start time passed,
// workload built and health watched.
type session struct {
	setup   *Setup
	client  *mcp.Client
	started time.Time
	watch   *logscan.Watch // follows the log from its mark
	wl      *workload.Workload
	scen    *workload.ScenarioWorkload
	health  *probe.HealthWatch
	gauges  bench.GaugeSource // nil without sampling
}

// Dial connects to the target and types its failure: a *ConfigError for
// options mcp refuses, an *UnreachableError for a server that is not there
// or not MCP.
func Dial(ctx context.Context, o mcp.Options) (*mcp.Client, error) {
	c, err := mcp.Dial(ctx, o)
	if err != nil {
		if ce := OptionError(err); ce != nil {
			return nil, ce
		}
		return nil, unreachable(o, err)
	}
	return c, nil
}

// prepare does everything before the load, in the order whose errors the
// contract fixes: a server that is down is reported before a workload
// that cannot be. The caller closes the session.
func prepare(ctx context.Context, s *Setup) (*session, error) {
	defer s.stage(StageDone)
	ss, err := connect(ctx, s)
	if err != nil {
		return nil, err
	}
	if err := ss.ready(ctx); err != nil {
		ss.close()
		return nil, err
	}
	return ss, nil
}

// connect starts a session with the connection made and nothing else.
func connect(ctx context.Context, s *Setup) (*session, error) {
	ss := &session{setup: s, started: time.Now()}
	s.stage(StageConnecting)
	var err error
	if ss.client, err = Dial(ctx, s.Options); err != nil {
		if ctx.Err() != nil {
			return nil, &InterruptedError{}
		}
		return nil, err
	}
	return ss, nil
}

// ready does the steps after connecting.
func (ss *session) ready(ctx context.Context) error {
	s := ss.setup
	if s.LogFile != "" {
		m, err := logscan.Mark(s.LogFile)
		if err != nil {
			return &ConfigError{Setting: SettingLogFile, Err: err}
		}
		ss.watch = logscan.StartWatch(s.LogFile, m, 0)
	}
	var err error
	if ss.gauges, err = openSampling(ctx, s.Sampling, s.Warn); err != nil {
		return err
	}
	if !s.StartAt.IsZero() {
		s.stage(StageStartWait)
		if err := waitUntil(ctx, s.StartAt); err != nil {
			return &InterruptedError{} // nothing measured yet
		}
		ss.started = time.Now()
	}
	s.stage(StageWorkload)
	if s.Scenario != nil {
		ss.scen, err = workload.BuildScenarios(ctx, ss.client, s.Options.SessionMode, *s.Scenario)
	} else {
		ss.wl, err = workload.Build(ctx, ss.client, s.Workload)
	}
	if err != nil {
		return &WorkloadError{err}
	}
	if s.Announce != nil {
		s.Announce(ss.tools(), ss.warnings())
	}
	if s.HealthURL != "" {
		if ss.health, err = probe.WatchHealth(ctx, s.Options, s.HealthURL); err != nil {
			return &ConfigError{Setting: SettingHealthURL, Err: err}
		}
	}
	return nil
}

// waitUntil sleeps until at, or returns ctx's error when interrupted
// first. A time in the past returns at once.
func waitUntil(ctx context.Context, at time.Time) error {
	if !mcp.Sleep(ctx, time.Until(at)) {
		return ctx.Err()
	}
	return nil
}

func (ss *session) close() {
	if ss.watch != nil {
		ss.watch.Stop()
	}
	ss.client.Close(context.Background())
}

// measured tells the caller a measurement ended.
func (ss *session) measured() {
	if ss.setup.MeasureDone != nil {
		ss.setup.MeasureDone()
	}
}

// header is the report header for the connected target.
func (ss *session) header(schema string) results.Header {
	info := ss.client.Info()
	return results.Header{
		Schema: schema, MCPBenchVersion: ss.setup.Version, StartedAt: ss.started.UTC(),
		Target: results.Target{URL: mcp.Redact(ss.client.URL()), Transport: info.Transport, ProtocolVersion: info.ProtocolVersion,
			ServerName: info.Name, ServerVersion: info.Version},
	}
}

// observe returns the log window's scan and the health watch's summary,
// once the load is over; a log that cannot be scanned is a warning.
func (ss *session) observe(ctx context.Context) (*logscan.WindowScan, *probe.Health) {
	var scan *logscan.WindowScan
	if ss.watch != nil {
		if res, err := ss.watch.Close(ctx, time.Now(), ss.setup.LogSettle); err == nil {
			scan = &res
		} else if ss.setup.Warn != nil {
			ss.setup.Warn(SettingLogFile, err)
		}
	}
	var health *probe.Health
	if ss.health != nil {
		health = ss.health.Finish(context.WithoutCancel(ctx))
	}
	return scan, health
}

// load measures one level of what is sent: sessions of the scenarios, or
// requests, with the client's pool figures added.
func (ss *session) load(ctx context.Context, cfg bench.Config) (bench.Point, error) {
	var p bench.Point
	var err error
	if ss.scen != nil {
		p, err = bench.RunSessions(ctx, cfg, ss.scen)
	} else {
		p, err = bench.Run(ctx, cfg, ss.wl)
	}
	ss.measured()
	if err != nil {
		return p, err
	}
	p.Client.PoolMaxConns = ss.client.PoolSize()
	p.Client.Engine = string(ss.client.Engine())
	return p, nil
}

// workload says what was sent, for the report: the operations (a
// scenario's steps) and the load's shape.
func (ss *session) workload(mode string, cfg bench.Config) *results.Workload {
	w := &results.Workload{Mode: mode, Warmup: cfg.Warmup, DurationS: cfg.Duration.Seconds()}
	if ss.scen != nil {
		w.Operations = results.OperationsOf(ss.scen.Operations())
		w.Scenario = ss.setup.Scenario.File.Name
		w.NewConnectionPerSession = ss.setup.Scenario.NewConnectionPerSession
	} else {
		w.Operations = results.OperationsOf(ss.wl.Operations())
	}
	w.Tools = ss.tools()
	return w
}

// tools are the tools the workload calls, with their annotations.
func (ss *session) tools() []workload.ToolInfo {
	if ss.scen != nil {
		return ss.scen.Tools()
	}
	return ss.wl.Tools()
}

// warnings are the lines to print about those tools before the load.
func (ss *session) warnings() []string {
	if ss.scen != nil {
		return ss.scen.Warnings()
	}
	return ss.wl.Warnings()
}
