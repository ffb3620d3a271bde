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

func (f *serveFlags) register(fs *pflag.FlagSet) {
	cfg := &f.cfg
	fs.StringVar(&f.addr, "addr", "127.0.0.1:3002", "listen `HOST:PORT` (port 0 = any free port)")
	fs.BoolVar(&cfg.Stateless, "stateless", false, "Streamable HTTP without sessions")
	fs.BoolVar(&cfg.FixedResponse, "fixed-response", false, "answer /mcp with canned results and no SDK (a near-free server, for measuring the generator)")
	fs.StringVar(&cfg.FixedEngine, "fixed-engine", target.FixedFastHTTP, "what carries --fixed-response: fasthttp or net/http")
	fs.BoolVar(&cfg.JSONResponse, "json-response", false, "answer POSTs with application/json instead of an SSE stream")
	fs.BoolVar(&f.stdio, "stdio", false, "serve MCP over stdin/stdout instead of HTTP")
	fs.IntVar(&cfg.Tools, "tools", 8, "synthetic tools `N` (tool_000...), beside echo and fail")
	fs.IntVar(&cfg.Capacity, "capacity", target.DefaultCapacity, "concurrent handler slots `K` for tools/list and tools/call")
	fs.DurationVar(&cfg.ServiceTime, "service-time", 0, "mean time `D` a request holds its slot")
	fs.DurationVar(&cfg.Burn, "burn", 0, "CPU time `D` each tools/call spends in a busy loop (not a sleep): a known CPU cost per call")
	fs.StringVar(&cfg.ServiceDist, "service-dist", target.DistFixed, "service time distribution `DIST`: fixed, exp or lognormal (sigma 0.5)")
	fs.StringVar(&f.logFile, "log-file", "", "append the \"[MCP] tools/list stats\" line to `FILE`")
	fs.DurationVar(&cfg.StatsInterval, "stats-interval", target.DefaultStatsInterval, "period `D` of the stats line")
	fs.DurationVar(&cfg.ListCacheTTL, "list-cache-ttl", time.Second, "tools/list cache lifetime `D` (0 = no cache)")
	fs.DurationVar(&cfg.ListBuildTime, "list-build-time", 0, "extra time `D` a tools/list cache miss spends building")
	fs.StringVar(&cfg.Fault, "fault", "", "inject fault `KIND` into tools/list and tools/call")
	fs.Float64Var(&cfg.FaultRate, "fault-rate", 0, "probability `P` in [0,1] that a request is faulted (with --fault; default 1 then)")
	fs.IntVar(&cfg.OversizedBytes, "oversized-bytes", target.DefaultOversizedBytes, "size `N` of an oversized answer")
	fs.DurationVar(&cfg.Stall, "stall", 0, "pause the whole server for `D`...")
	fs.DurationVar(&cfg.StallEvery, "stall-every", 0, "...every `D`")
	fs.Uint64Var(&cfg.Seed, "seed", 1, "seed `S` of fault choice and service-time draws")
	fs.BoolVar(&cfg.ClientTools, "client-tools", false, "add the tools that exercise a client: elicit (asks during the call), region_echo (x-mcp-header), input_once (input_required once)")
	fs.BoolVar(&cfg.OAuth, "oauth", false, "be an OAuth 2.1 authorization server too, and want its bearer tokens on /mcp and /sse")
	fs.DurationVar(&cfg.TokenTTL, "token-ttl", target.DefaultTokenTTL, "with --oauth: lifetime `D` of the tokens issued")
	fs.StringVar(&cfg.OAuthClientID, "oauth-client-id", target.DefaultOAuthClientID, "with --oauth: the pre-registered client's ID (others may register)")
	fs.StringVar(&cfg.OAuthClientSecret, "oauth-client-secret", target.DefaultOAuthClientSecret, "with --oauth: the pre-registered client's secret")
	fs.IntVar(&cfg.LeakPerRequest, "leak-per-request", 0, "keep `BYTES` of memory for every request answered: a leak on purpose, to rehearse a soak test")
	fs.BoolVar(&cfg.LeakSessions, "leak-sessions", false, "never release a session a client ends (its DELETE is answered, the session kept): a session leak on purpose")
}

// flagSet is serve's flag set, bound to f.
func (f *serveFlags) flagSet() *pflag.FlagSet {
	fs := newFlagSet("serve")
	f.register(fs)
	enumFlag(fs, "fixed-engine", target.FixedFastHTTP, target.FixedNetHTTP)
	enumFlag(fs, "service-dist", target.DistFixed, target.DistExp, target.DistLognormal)
	enumFlag(fs, "fault", target.FaultKinds()...)
	limitFlags(fs, zeroOrMore(maxTools), "tools")
	limitFlags(fs, atLeastOne(maxWorkers), "capacity")
	limitFlags(fs, pauseUpTo(time.Hour), "service-time", "list-build-time", "stall")
	limitFlags(fs, pauseUpTo(time.Minute), "burn")
	limitFlags(fs, durationUpTo(maxWait), "stats-interval", "token-ttl")
	limitFlags(fs, pauseUpTo(maxWait), "list-cache-ttl", "stall-every")
	limitFlags(fs, fraction, "fault-rate")
	limitFlags(fs, atLeastOne(maxBytes), "oversized-bytes")
	limitFlags(fs, zeroOrMore(maxBytes), "leak-per-request")
	limitFlags(fs, anyValue, "seed")
	return fs
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
