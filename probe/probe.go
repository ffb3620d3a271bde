// Package probe is the one-shot observability probe: the server's health
// before and after, what it says about itself, an audit of its tools/list
// payload, a sequential latency profile, two concurrent benchmarks and,
// optionally, the stats lines its log gained meanwhile. It sends requests
// and returns plain values; it prints nothing and reads no flags.
package probe

import (
	"context"
	"fmt"
	"net/http"
	"time"

	"github.com/mcpbench/mcpbench/bench"
	"github.com/mcpbench/mcpbench/logscan"
	"github.com/mcpbench/mcpbench/mcp"
	"github.com/mcpbench/mcpbench/measure"
	"github.com/mcpbench/mcpbench/workload"
)

// Phases, in the order Run goes through them; Progress receives them.
const (
	PhaseLogMark    = "log-mark"
	PhaseHealth     = "health"
	PhaseDial       = "dial"
	PhaseGetInfo    = "get-info"
	PhaseToolsList  = "tools-list"
	PhaseSequential = "sequential"
	PhaseListings   = "listings"
	PhaseBenchSmall = "bench-small"
	PhaseBenchLarge = "bench-large"
	PhaseHealthEnd  = "health-after"
	PhaseLogScan    = "log-scan"
)

// Config is one probe.
type Config struct {
	// Options are the client options; the plain HTTP requests (health, the
	// GET of the endpoint) use the same TLS settings and, on the endpoint's
	// origin, the same headers.
	Options mcp.Options
	// Dial connects to the server. nil means mcp.Dial. The caller may wrap
	// errors so that it can classify them; Run returns them wrapped in a
	// *PhaseError. Run closes the client it gets.
	Dial func(ctx context.Context, o mcp.Options) (*mcp.Client, error)
	// HealthURL is the health endpoint; "" means /health on the endpoint's
	// origin.
	HealthURL string
	// SequentialSamples is how many tools/list listings are sent one after
	// another; the first of them is the audit's. SequentialSleep is the
	// pause between them.
	SequentialSamples int
	SequentialSleep   time.Duration
	// Small and Large are the two concurrent tools/list benchmarks; a
	// Total of 0 skips one.
	Small, Large BenchSpec
	// LogFile, when set, is the server log whose stats lines are scanned
	// over the probe's window. LogSettle is how long to wait, after the last
	// request, for the server to write one more stats line, so that the
	// window's counters cover every request the probe sent; negative: as
	// long as the lines' interval suggests (logscan.Watch.Close).
	LogFile   string
	LogSettle time.Duration
	// Progress, if set, is called at the start of each phase.
	Progress func(phase string)
	// BenchProgress, if set, receives the benchmarks' progress.
	BenchProgress func(bench.Progress)
}

// BenchSpec is one concurrent benchmark: Total tools/list requests from
// Concurrency workers.
type BenchSpec struct {
	Concurrency int   `json:"concurrency"`
	Total       int64 `json:"total"`
}

// Report is everything the probe measured, with the probe report's JSON
// names in its order (results.ProbeReport embeds it).
type Report struct {
	Health            Health     `json:"health"`
	ServerInfo        ServerInfo `json:"server_info"`
	ToolsList         ToolsList  `json:"tools_list"`
	SequentialProfile Sequential `json:"sequential_profile"`
	// Listings audit resources, resource templates and prompts.
	Listings   []Listing           `json:"listings"`
	Benchmarks Benchmarks          `json:"benchmarks"`
	LogScan    *logscan.WindowScan `json:"log_scan"`
	// LogScanError says why LogScan is nil although a log was given.
	LogScanError string `json:"log_scan_error,omitempty"`
	Interrupted  bool   `json:"interrupted,omitempty"`
}

// Benchmarks are the two concurrent runs; a nil one was skipped (or could
// not start, and Errors says why).
type Benchmarks struct {
	Small  *measure.Point    `json:"small"`
	Large  *measure.Point    `json:"large"`
	Errors map[string]string `json:"errors,omitempty"`
}

// PhaseError is a failure that stopped the probe.
type PhaseError struct {
	Phase string
	Err   error
}

func (e *PhaseError) Error() string { return e.Phase + ": " + e.Err.Error() }
func (e *PhaseError) Unwrap() error { return e.Err }

// Run probes the server. It returns what was measured even when ctx is
// cancelled part-way (Report.Interrupted is then set); the error is non-nil
// only when the probe could not start: the log could not be marked, or the
// server could not be reached or did not speak MCP.
func Run(ctx context.Context, cfg Config) (*Report, error) {
	if cfg.Dial == nil {
		cfg.Dial = mcp.Dial
	}
	if cfg.Progress == nil {
		cfg.Progress = func(string) {}
	}
	res := &Report{}
	watch, err := watchLog(cfg)
	if err != nil {
		return res, err
	}
	if watch != nil {
		defer watch.Stop()
	}

	hc, _, err := mcp.NewHTTPClient(withPool(cfg.Options, 1))
	if err != nil {
		return res, &PhaseError{PhaseDial, err}
	}
	defer hc.CloseIdleConnections()
	healthURL, err := resolveHealthURL(cfg.Options.URL, cfg.HealthURL)
	if err != nil {
		return res, &PhaseError{PhaseHealth, err}
	}
	plain := &plainHTTP{hc: hc, opts: cfg.Options}

	cfg.Progress(PhaseHealth)
	res.Health.HealthSnapshot = plain.health(ctx, healthURL)

	cfg.Progress(PhaseDial)
	client, err := cfg.Dial(ctx, cfg.Options)
	if err != nil {
		return res, &PhaseError{PhaseDial, err}
	}
	defer client.Close(context.Background())
	res.ServerInfo = serverInfoOf(client)

	examine(ctx, client, plain, cfg, res)
	closeWindow(ctx, plain, healthURL, watch, cfg, res)
	return res, nil
}

// watchLog opens the log's window before the first byte is sent, so the
// log's counters cover the handshake as well as the measured requests, and
// follows it until the window closes. nil without a log file.
func watchLog(cfg Config) (*logscan.Watch, error) {
	if cfg.LogFile == "" {
		return nil, nil
	}
	cfg.Progress(PhaseLogMark)
	// A log that is not there is a wrong path far more often than a server
	// yet to write its first line: refused, as run and sweep refuse it.
	m, err := logscan.Mark(cfg.LogFile)
	if err != nil {
		return nil, &PhaseError{PhaseLogMark, err}
	}
	return logscan.StartWatch(cfg.LogFile, m, 0), nil
}

// examine runs the phases that talk to the server, in order, until ctx is
// done, and marks res interrupted when it was.
func examine(ctx context.Context, client *mcp.Client, plain *plainHTTP, cfg Config, res *Report) {
	steps := []struct {
		phase string
		do    func()
	}{
		{PhaseGetInfo, func() { res.ServerInfo.GetInfo, res.ServerInfo.GetInfoError = plain.serverInfo(ctx, client) }},
		{PhaseToolsList, func() { res.ToolsList, res.SequentialProfile = listing(ctx, client, cfg) }},
		{PhaseListings, func() { res.Listings = auditListings(ctx, client) }},
		{PhaseBenchSmall, func() { res.Benchmarks.Small = runBench(ctx, client, cfg, cfg.Small, "small", &res.Benchmarks) }},
		{PhaseBenchLarge, func() { res.Benchmarks.Large = runBench(ctx, client, cfg, cfg.Large, "large", &res.Benchmarks) }},
	}
	for _, s := range steps {
		if ctx.Err() != nil {
			break
		}
		cfg.Progress(s.phase)
		s.do()
	}
	res.Interrupted = ctx.Err() != nil
	for _, p := range []*measure.Point{res.Benchmarks.Small, res.Benchmarks.Large} {
		res.Interrupted = res.Interrupted || (p != nil && p.Interrupted)
	}
}

// closeWindow takes the closing figures: the health after and the log's
// stats lines since mark. They are taken even after an interrupt: they
// describe what the part that ran did to the server.
func closeWindow(ctx context.Context, plain *plainHTTP, healthURL string, watch *logscan.Watch, cfg Config, res *Report) {
	endCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), healthTimeout(cfg.Options)+time.Second)
	defer cancel()
	cfg.Progress(PhaseHealthEnd)
	after := plain.health(endCtx, healthURL)
	res.Health.After = &after
	res.Health.Delta = healthDelta(res.Health.HealthSnapshot, after)

	if cfg.LogFile == "" {
		return
	}
	cfg.Progress(PhaseLogScan)
	if r, err := watch.Close(ctx, time.Now(), cfg.LogSettle); err == nil {
		res.LogScan = &r
	} else {
		res.LogScanError = err.Error()
	}
}

// runBench runs one concurrent tools/list benchmark.
func runBench(ctx context.Context, c *mcp.Client, cfg Config, spec BenchSpec, name string, b *Benchmarks) *measure.Point {
	if spec.Total <= 0 {
		return nil
	}
	wl := &workload.Workload{Client: c, Ops: []workload.Op{{Request: mcp.Request{Method: "tools/list"}}}}
	dials := &dialMark{c: c, at: c.Dials()}
	bc := bench.Config{Model: bench.ClosedLoop{Concurrency: max(spec.Concurrency, 1)}, Total: spec.Total, Observer: dials}
	if cfg.BenchProgress != nil {
		bc.Observer = dialProgress{dials, cfg.BenchProgress}
	}
	p, err := bench.Run(ctx, bc, wl)
	if err != nil {
		if b.Errors == nil {
			b.Errors = map[string]string{}
		}
		b.Errors[name] = err.Error()
		return nil
	}
	p.Client.PoolMaxConns = c.PoolSize()
	p.Client.PoolWaits = c.Dials() - dials.at
	p.Client.Engine = "net/http"
	if c.Engine() == mcp.EngineStdio {
		p.Client.Engine = string(mcp.EngineStdio)
	}
	return &p
}

// dialMark notes the client's dials as the measured window opens, so the
// benchmark's pool waits are the dials made while measuring.
type dialMark struct {
	bench.NopObserver
	c  *mcp.Client
	at int64
}

func (d *dialMark) Measuring() { d.at = d.c.Dials() }

// dialProgress is a dialMark that also passes the progress on.
type dialProgress struct {
	*dialMark
	progress func(bench.Progress)
}

func (d dialProgress) Progress(p bench.Progress) { d.progress(p) }

func withPool(o mcp.Options, n int) mcp.Options {
	o.PoolSize = n
	return o
}

// ValidateHealthURL checks a health URL given by the user ("" is valid: the
// default).
func ValidateHealthURL(endpoint, health string) error {
	_, err := resolveHealthURL(endpoint, health)
	return err
}

func healthTimeout(o mcp.Options) time.Duration {
	t := o.Timeout
	if t <= 0 || t > 10*time.Second {
		t = 10 * time.Second
	}
	return t
}

// errStatus is a non-2xx answer to a plain GET.
func errStatus(code int) error { return fmt.Errorf("HTTP %d %s", code, http.StatusText(code)) }
