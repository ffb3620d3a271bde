// Package harness holds the recipes of the run and sweep commands as
// libraries: connect, mark the server log, wait for the start time, build
// the load, watch health, measure, then scan the log window and finish
// the health watch. It prints nothing: what happens goes to the Outputs
// (output.go), what is sent is a LoadKind (loadkind.go), and failures
// come back as typed errors.
package harness

import (
	"context"
	"time"

	"github.com/mcpbench/mcpbench/bench"
	"github.com/mcpbench/mcpbench/logscan"
	"github.com/mcpbench/mcpbench/mcp"
	"github.com/mcpbench/mcpbench/measure"
	"github.com/mcpbench/mcpbench/probe"
	"github.com/mcpbench/mcpbench/results"
	"github.com/mcpbench/mcpbench/sweep"
)

// Setup is what run and sweep share: the target, what is sent, and what
// is watched beside the load.
type Setup struct {
	// Options are the client options; PoolSize must cover the largest
	// load level.
	Options mcp.Options
	// Load is what is sent, built once connected: Requests, Scenarios
	// (whose levels count users or sessions per second), or a kind
	// harness does not know; nil: Requests of an empty Spec.
	Load LoadKind
	// HealthURL, when set, is polled over the load; LogFile, when set, is
	// the server log whose stats lines are scanned over it.
	HealthURL string
	LogFile   string
	// LogSettle is how long to wait after the load for the stats line that
	// covers its end; negative: as long as the lines' interval suggests.
	// It also bounds the wait before the load for a first stats line when
	// the log has none yet (negative: logscan.AutoBaselineWait).
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
	// Outputs observe the command: its events, every interval of every
	// point, and the final report (output.go).
	Outputs []Output
	// AbandonSessions is the fraction of the sessions that end without a
	// DELETE, as clients that go away do; 0 ends every one (loadtest.go).
	AbandonSessions float64
	// Trace, when set, sends W3C trace context on a share of the
	// requests; the slowest of them are the report's exemplars.
	Trace *mcp.Trace
}

// Phase is a step of the setup before the load (not a load stage).
type Phase int

// The phases, in the order they come.
const (
	PhaseConnecting Phase = iota // dialling and negotiating
	PhaseLogSettle               // marking the server's log once it is quiet (--log-file)
	PhaseStartWait               // holding until StartAt
	PhaseWorkload                // building the workload (listing tools)
	PhaseDone                    // the setup is over: the load begins, or it failed
	// PhaseWarmUp comes after PhaseDone, before each point's measured
	// window when it has a warm-up (Step names the point).
	PhaseWarmUp
)

// prepared is a target made ready for the load: connected, log marked,
// start time passed, load built and health watched.
type prepared struct {
	setup   *Setup
	out     *stream
	client  *mcp.Client
	started time.Time
	watch   *logscan.Watch // follows the log from its mark
	load    BuiltLoad
	health  *probe.HealthWatch
	gauges  bench.GaugeSource // nil without sampling
	dials   int64             // the client's dials when the last point ended
	slowest *exemplars        // nil without Setup.Trace
}

// Dial connects to the target, with the fraction abandon of its sessions
// ending without a DELETE (as Setup.AbandonSessions), and types its
// failure: a *ConfigError for options mcp refuses, an *UnreachableError
// for a server that is not there or not MCP.
func Dial(ctx context.Context, o mcp.Options, abandon float64) (*mcp.Client, error) {
	h, _ := (&Setup{AbandonSessions: abandon}).hooks()
	return dialWith(ctx, o, h)
}

func dialWith(ctx context.Context, o mcp.Options, h mcp.Hooks) (*mcp.Client, error) {
	c, err := mcp.DialWith(ctx, o, h)
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
// that cannot be. The caller closes what it returns.
func prepare(ctx context.Context, s *Setup, out *stream) (*prepared, error) {
	defer out.phase(PhaseDone)
	ss, err := connect(ctx, s, out)
	if err != nil {
		return nil, err
	}
	if err := ss.ready(ctx); err != nil {
		ss.close()
		return nil, err
	}
	return ss, nil
}

// connect dials the target and does nothing else.
func connect(ctx context.Context, s *Setup, out *stream) (*prepared, error) {
	ss := &prepared{setup: s, out: out, started: time.Now()}
	out.phase(PhaseConnecting)
	hooks, slowest := s.hooks()
	ss.slowest = slowest
	var err error
	if ss.client, err = dialWith(ctx, s.Options, hooks); err != nil {
		if ctx.Err() != nil {
			return nil, &InterruptedError{}
		}
		return nil, err
	}
	return ss, nil
}

// ready does the steps after connecting.
func (ss *prepared) ready(ctx context.Context) error {
	s := ss.setup
	if s.LogFile != "" {
		ss.out.phase(PhaseLogSettle)
		m, err := logscan.MarkBaseline(ctx, s.LogFile, s.LogSettle)
		if err != nil {
			return &ConfigError{Setting: SettingLogFile, Err: err}
		}
		ss.watch = logscan.StartWatch(s.LogFile, m, 0)
	}
	var err error
	if ss.gauges, err = openSampling(ctx, s.Sampling, ss.out.warn); err != nil {
		return err
	}
	ss.gauges = withAbandoned(ss.gauges, ss.client, s.AbandonSessions)
	if !s.StartAt.IsZero() {
		ss.out.phase(PhaseStartWait)
		if err := waitUntil(ctx, s.StartAt); err != nil {
			return &InterruptedError{} // nothing measured yet
		}
		ss.started = time.Now()
	}
	ss.out.phase(PhaseWorkload)
	if ss.load, err = s.kind().Build(ctx, ss.client); err != nil {
		return &WorkloadError{err}
	}
	ss.out.event(Event{Kind: EventWorkload, Tools: ss.load.Tools(), Warnings: ss.load.Warnings(), Header: ss.header("")})
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

func (ss *prepared) close() {
	if ss.watch != nil {
		ss.watch.Stop()
	}
	ss.client.Close(context.Background())
}

// header is the report header for the connected target.
func (ss *prepared) header(schema string) results.Header {
	info := ss.client.Info()
	return results.Header{
		Schema: schema, MCPBenchVersion: ss.setup.Version, StartedAt: ss.started.UTC(),
		Target: results.Target{URL: mcp.Redact(ss.client.URL()), Transport: info.Transport, ProtocolVersion: info.ProtocolVersion,
			ServerName: info.Name, ServerVersion: info.Version},
	}
}

// observe returns the log window's scan and the health watch's summary,
// once the load is over; a log that cannot be scanned is a warning.
func (ss *prepared) observe(ctx context.Context) (*logscan.WindowScan, *probe.Health) {
	var scan *logscan.WindowScan
	if ss.watch != nil {
		if res, err := ss.watch.Close(ctx, time.Now(), ss.setup.LogSettle); err == nil {
			scan = &res
		} else {
			ss.out.warn(SettingLogFile, err)
		}
	}
	var health *probe.Health
	if ss.health != nil {
		health = ss.health.Finish(context.WithoutCancel(ctx))
	}
	return scan, health
}

// measure measures one level of the load, point st of a sweep (zero in a
// run), with the client's pool figures added. The outputs observe it.
func (ss *prepared) measure(ctx context.Context, cfg bench.Config, st sweep.Step) (measure.Point, error) {
	cfg.Gauges = ss.gauges
	ss.out.measuring = ss.slowest.reset
	cfg.Observer = ss.out.level(st, cfg.Model)
	if cfg.Warmup > 0 {
		ss.out.event(Event{Kind: EventPhase, Phase: PhaseWarmUp, Step: st})
	}
	p, err := bench.Run(ctx, cfg, ss.load.Generator())
	ss.out.event(Event{Kind: EventMeasureEnd, Step: st})
	if err != nil {
		return p, err
	}
	abandonedCount(&p)
	dials := ss.client.Dials()
	p.Client.Dials, ss.dials = dials-ss.dials, dials
	p.Client.PoolMaxConns = ss.client.PoolSize()
	p.Client.Engine = string(ss.client.Engine())
	return p, nil
}

// workload says what was sent, for the report: the operations (a
// scenario's steps) and the load's shape.
func (ss *prepared) workload(mode string, cfg LevelConfig) *results.Workload {
	w := &results.Workload{Mode: mode, Warmup: cfg.Warmup, DurationS: cfg.Duration.Seconds()}
	w.Operations = ss.load.Operations()
	ss.load.Describe(w, &results.PlannedLoad{})
	w.Tools = ss.load.Tools()
	return w
}
