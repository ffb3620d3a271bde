package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/spf13/pflag"

	"github.com/mcpbench/mcpbench/target"
)

const serveUsage = `Usage: mcpbench serve [flags]

Run the bundled reference MCP server (official Go SDK): Streamable HTTP at
/mcp, legacy HTTP+SSE at /sse, /health, Prometheus metrics at /metrics, or
MCP over stdin/stdout with --stdio.
Its capacity is modelled: --capacity K handler slots, each tools/list and
tools/call holding one for --service-time, so the knee is at K concurrent
requests and the throughput ceiling is K / service time. The first line on
stdout is the listening URL. Stops on Ctrl-C or SIGTERM.

Fault kinds: {faults}.

Flags:
%s
Examples:
  mcpbench serve --addr 127.0.0.1:3002 --capacity 8 --service-time 20ms
  mcpbench serve --addr 127.0.0.1:3002 --stateless --burn 200us    # a known CPU cost per tools/call
  mcpbench serve --addr 127.0.0.1:3002 --log-file .run/logs/mcp.log --stats-interval 5s --list-cache-ttl 2s
  mcpbench serve --addr 127.0.0.1:3002 --fault http-500 --fault-rate 0.01 --stall 500ms --stall-every 10s
  mcpbench serve --addr 127.0.0.1:3002 --leak-per-request 20000    # then: mcpbench run ... --server-metrics http://127.0.0.1:3002/metrics
`

// serveFlags are the flags of `mcpbench serve`: the server's configuration
// and where it listens and logs.
type serveFlags struct {
	cfg     target.Config
	addr    string
	stdio   bool
	logFile string
}

// flagSet is serve's flag set, bound to f.
func (f *serveFlags) flagSet() *pflag.FlagSet {
	cfg := &f.cfg
	return declare("serve", append([]flagDecl{
		{name: "addr", to: &f.addr, def: "127.0.0.1:3002", group: "Server", usage: "listen `HOST:PORT` (port 0 = any free port)"},
		{name: "stateless", to: &cfg.Stateless, group: "Server", usage: "Streamable HTTP without sessions"},
		{name: "fixed-response", to: &cfg.FixedResponse, group: "Server", usage: "answer /mcp with canned results and no SDK (a near-free server, for measuring the generator)"},
		{name: "fixed-engine", to: &cfg.FixedEngine, def: target.FixedFastHTTP, group: "Server", hints: []string{target.FixedFastHTTP, target.FixedNetHTTP}, usage: "what carries --fixed-response: fasthttp or net/http"},
		{name: "json-response", to: &cfg.JSONResponse, group: "Server", usage: "answer POSTs with application/json instead of an SSE stream"},
		{name: "stdio", to: &f.stdio, group: "Server", usage: "serve MCP over stdin/stdout instead of HTTP"},
		{name: "tools", to: &cfg.Tools, def: 8, group: "Served tools", rng: zeroOrMore(maxTools), usage: "synthetic tools `N` (tool_000...), beside echo and fail"},
		{name: "capacity", to: &cfg.Capacity, def: target.DefaultCapacity, group: "Served tools", rng: atLeastOne(maxWorkers), usage: "concurrent handler slots `K` for tools/list and tools/call"},
		{name: "service-time", to: &cfg.ServiceTime, group: "Served tools", rng: pauseUpTo(time.Hour), usage: "mean time `D` a request holds its slot"},
		{name: "burn", to: &cfg.Burn, group: "Served tools", rng: pauseUpTo(time.Minute), usage: "CPU time `D` each tools/call spends in a busy loop (not a sleep): a known CPU cost per call"},
		{name: "service-dist", to: &cfg.ServiceDist, def: target.DistFixed, group: "Served tools", hints: []string{target.DistFixed, target.DistExp, target.DistLognormal}, usage: "service time distribution `DIST`: fixed, exp or lognormal (sigma 0.5)"},
		{name: "log-file", to: &f.logFile, group: "Stats log", usage: "append the \"[MCP] tools/list stats\" line to `FILE`"},
		{name: "stats-interval", to: &cfg.StatsInterval, def: target.DefaultStatsInterval, group: "Stats log", rng: durationUpTo(maxWait), usage: "period `D` of the stats line"},
		{name: "list-cache-ttl", to: &cfg.ListCacheTTL, def: time.Second, group: "Stats log", rng: pauseUpTo(maxWait), usage: "tools/list cache lifetime `D` (0 = no cache)"},
		{name: "list-build-time", to: &cfg.ListBuildTime, group: "Stats log", rng: pauseUpTo(time.Hour), usage: "extra time `D` a tools/list cache miss spends building"},
	}, f.faultFlags()...)...)
}

// faultFlags declares serve's faults, OAuth and leaks.
func (f *serveFlags) faultFlags() []flagDecl {
	cfg := &f.cfg
	return []flagDecl{
		{name: "fault", to: &cfg.Fault, group: "Faults", hints: target.FaultKinds(), usage: "inject fault `KIND` into tools/list and tools/call"},
		{name: "fault-rate", to: &cfg.FaultRate, group: "Faults", rng: fraction, usage: "probability `P` in [0,1] that a request is faulted (with --fault; default 1 then)"},
		{name: "oversized-bytes", to: &cfg.OversizedBytes, def: target.DefaultOversizedBytes, group: "Faults", rng: atLeastOne(maxBytes), usage: "size `N` of an oversized answer"},
		{name: "stall", to: &cfg.Stall, group: "Faults", rng: pauseUpTo(time.Hour), usage: "pause the whole server for `D`..."},
		{name: "stall-every", to: &cfg.StallEvery, group: "Faults", rng: pauseUpTo(maxWait), usage: "...every `D`"},
		{name: "seed", to: &cfg.Seed, def: uint64(1), group: "Served tools", rng: anyValue, usage: "seed `S` of fault choice and service-time draws"},
		{name: "client-tools", to: &cfg.ClientTools, group: "Served tools", usage: "add the tools that exercise a client: elicit (asks during the call), region_echo (x-mcp-header), input_once (input_required once)"},
		{name: "oauth", to: &cfg.OAuth, group: "Authentication", usage: "be an OAuth 2.1 authorization server too, and want its bearer tokens on /mcp and /sse"},
		{name: "token-ttl", to: &cfg.TokenTTL, def: target.DefaultTokenTTL, group: "Authentication", rng: durationUpTo(maxWait), usage: "with --oauth: lifetime `D` of the tokens issued"},
		{name: "oauth-client-id", to: &cfg.OAuthClientID, def: target.DefaultOAuthClientID, group: "Authentication", usage: "with --oauth: the pre-registered client's ID (others may register)"},
		{name: "oauth-client-secret", to: &cfg.OAuthClientSecret, def: target.DefaultOAuthClientSecret, group: "Authentication", usage: "with --oauth: the pre-registered client's secret"},
		{name: "leak-per-request", to: &cfg.LeakPerRequest, group: "Faults", rng: zeroOrMore(maxBytes), usage: "keep `BYTES` of memory for every request answered: a leak on purpose, to rehearse a soak test"},
		{name: "leak-sessions", to: &cfg.LeakSessions, group: "Faults", usage: "never release a session a client ends (its DELETE is answered, the session kept): a session leak on purpose"},
	}
}

// maxTools bounds --tools: a listing of more is a typo, not a server.
const maxTools = 100_000

// serveMain implements `mcpbench serve`.
func serveMain(ctx context.Context, args []string, e env) int {
	fail := func(format string, a ...any) int { return exitFor(e, "serve", usagef(format, a...)) }
	var f serveFlags
	fs := f.flagSet()
	usage := strings.Replace(serveUsage, "{faults}", strings.Join(target.FaultKinds(), ", "), 1)
	if done, code := parseFlags(fs, args, usage, e); done {
		return code
	}
	if fs.NArg() != 0 {
		return fail("unexpected argument %q (see --help)", fs.Arg(0))
	}
	cfg := f.cfg
	if cfg.Fault != "" && !fs.Changed("fault-rate") {
		cfg.FaultRate = 1
	}
	if cfg.Fault == "" && cfg.FaultRate > 0 {
		return fail("--fault-rate needs --fault KIND")
	}
	if f.logFile != "" {
		lf, err := openLog(f.logFile)
		if err != nil {
			return fail("--log-file %s: %v", f.logFile, err)
		}
		defer lf.Close()
		cfg.StatsLog = lf
	}

	if f.stdio {
		return serveStdio(ctx, cfg, e, fail)
	}
	return serveHTTP(ctx, f.addr, cfg, e, fail)
}

// serveHTTP listens on addr, prints the URL first on stdout, and serves
// until ctx ends.
func serveHTTP(ctx context.Context, addr string, cfg target.Config, e env, fail func(string, ...any) int) int {
	r, err := target.Listen(ctx, addr, cfg)
	if err != nil {
		return fail("%v", err)
	}
	fmt.Fprintf(e.stdout, "mcpbench serve: listening on %s (mcp at /mcp)\n", r.URL)
	c := r.Config()
	mode := "stateful"
	if c.Stateless {
		mode = "stateless"
	}
	metrics := ", metrics at /metrics"
	if c.FixedResponse {
		metrics = "" // the canned answers have no SDK server, nor its metrics
	}
	burn := ""
	if c.Burn > 0 {
		burn = fmt.Sprintf(", burn %s CPU per call", c.Burn)
	}
	fmt.Fprintf(e.stderr, "mcpbench serve: %s, %d tools, capacity %d, service %s %s%s, sse at /sse, health at /health%s\n",
		mode, r.ToolCount(), c.Capacity, c.ServiceTime, c.ServiceDist, burn, metrics)
	if c.OAuth {
		fmt.Fprintf(e.stderr, "mcpbench serve: OAuth: tokens live %s; client %s pre-registered, others register at /register\n", c.TokenTTL, c.OAuthClientID)
	}
	<-ctx.Done()
	if err := r.Shutdown(context.Background()); err != nil {
		fmt.Fprintf(e.stderr, "mcpbench serve: %v\n", err)
	}
	return exitOK
}

// serveStdio runs the server over the command's stdin and stdout until the
// client hangs up or ctx ends.
func serveStdio(ctx context.Context, cfg target.Config, e env, fail func(string, ...any) int) int {
	s, err := target.New(cfg)
	if err != nil {
		return fail("%v", err)
	}
	defer s.Close()
	tr := &mcp.IOTransport{Reader: io.NopCloser(e.stdin), Writer: nopWriteCloser{e.stdout}}
	if err := s.MCP().Run(ctx, tr); err != nil && ctx.Err() == nil && !errors.Is(err, io.EOF) {
		fmt.Fprintf(e.stderr, "mcpbench serve: %v\n", err)
	}
	return exitOK
}

// openLog opens the stats log for appending, creating it and its
// directory.
func openLog(path string) (*os.File, error) {
	if dir := filepath.Dir(path); dir != "." {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return nil, err
		}
	}
	return os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644)
}

type nopWriteCloser struct{ io.Writer }

func (nopWriteCloser) Close() error { return nil }
