package main

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/textproto"
	"net/url"
	"os"
	"path/filepath"
	"runtime/debug"
	"runtime/pprof"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/mcpbench/mcpbench/bench"
	"github.com/mcpbench/mcpbench/mcp"
	"github.com/mcpbench/mcpbench/results"
)

// version is set at build time with -ldflags "-X main.version=…".
var version = ""

// buildVersion is the version reports carry.
func buildVersion() string {
	if version != "" {
		return version
	}
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" {
		return bi.Main.Version
	}
	return "(devel)"
}

// usageError is a bad flag or configuration: one line, exit 2.
type usageError struct{ msg string }

func (e usageError) Error() string { return e.msg }

func usagef(format string, a ...any) error { return usageError{fmt.Sprintf(format, a...)} }

// newFlagSet makes a flag set that reports errors itself in one line and
// knows the seed scripts' aliases.
func newFlagSet(name string) *pflag.FlagSet {
	fs := pflag.NewFlagSet(name, pflag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.SortFlags = false
	fs.SetNormalizeFunc(func(_ *pflag.FlagSet, n string) pflag.NormalizedName {
		switch n {
		case "base-url":
			n = "url"
		case "markdown-out":
			n = "md-out"
		case "warmup-calls":
			n = "warmup"
		}
		return pflag.NormalizedName(n)
	})
	return fs
}

// parseFlags parses args; it prints help (returning done=true, code 0) or
// one line for a bad flag (done=true, code 2).
func parseFlags(fs *pflag.FlagSet, args []string, usage string, e env) (done bool, code int) {
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, pflag.ErrHelp) {
			fmt.Fprintf(e.stdout, usage, fs.FlagUsages())
			return true, exitOK
		}
		fmt.Fprintf(e.stderr, "mcpbench %s: %v (see --help)\n", fs.Name(), err)
		return true, exitUsage
	}
	return false, 0
}

// targetFlags say where the server is and how to speak to it.
type targetFlags struct {
	url              string
	transport        string
	protocolVersion  string
	session          string
	headers          []string
	secretHeaders    []string
	timeout          time.Duration
	timeoutSecs      float64
	insecure         bool
	cacert           string
	maxResponseBytes int64
	healthURL        string
	logFile          string
	stdioProcs       int
	engine           string
	command          []string // the stdio server: the arguments after --
}

func (t *targetFlags) register(fs *pflag.FlagSet) {
	fs.StringVar(&t.url, "url", "", "MCP endpoint, e.g. http://127.0.0.1:3002/mcp (alias --base-url; an empty path means /mcp)")
	fs.StringVar(&t.transport, "transport", "auto", "auto|http|sse|stdio (stdio: the server command follows --)")
	fs.IntVar(&t.stdioProcs, "stdio-procs", 1, "stdio: server processes to spread the workers over")
	fs.StringVar(&t.engine, "engine", string(mcp.EngineAuto), "HTTP engine for the measured requests: auto (direct for plain http, else net/http), direct, net/http")
	fs.StringVar(&t.protocolVersion, "protocol-version", "auto", "auto, or a revision from 2024-11-05 to 2026-07-28")
	fs.StringVar(&t.session, "session", string(mcp.SessionPerWorker), "per-worker|shared|per-request (stateful revisions)")
	fs.StringArrayVarP(&t.headers, "header", "H", nil, "extra header 'Name: value', repeatable (MCPBENCH_TOKEN adds Authorization: Bearer)")
	fs.StringArrayVar(&t.secretHeaders, "secret-header", nil, "header NAME whose value is a secret, redacted everywhere (repeatable)")
	fs.DurationVar(&t.timeout, "timeout", 30*time.Second, "per-request timeout")
	fs.Float64Var(&t.timeoutSecs, "timeout-secs", 0, "per-request timeout in seconds (seed scripts' form)")
	fs.BoolVar(&t.insecure, "insecure", false, "skip TLS certificate verification")
	fs.StringVar(&t.cacert, "cacert", "", "PEM `FILE` of extra trusted CA certificates")
	fs.Int64Var(&t.maxResponseBytes, "max-response-bytes", 16<<20, "largest answer accepted; larger ones are transport errors")
	fs.StringVar(&t.healthURL, "health-url", "", "health endpoint (default /health on the endpoint's origin)")
	fs.StringVar(&t.logFile, "log-file", "", "server log `FILE` to scan over the measured window")
}

// options turns the flags into client options.
func (t *targetFlags) options(e *env, pool int) (mcp.Options, error) {
	switch t.transport {
	case "stdio":
		if len(t.command) == 0 {
			return mcp.Options{}, usagef("--transport stdio needs the server command after --, e.g. -- npx @modelcontextprotocol/server-everything")
		}
		if t.stdioProcs < 1 {
			return mcp.Options{}, usagef("--stdio-procs must be at least 1")
		}
	case "auto", "http", "sse":
		if len(t.command) > 0 {
			return mcp.Options{}, usagef("a server command after -- goes with --transport stdio")
		}
		if t.url == "" {
			return mcp.Options{}, usagef("--url is required (e.g. --url http://127.0.0.1:3002/mcp)")
		}
		if _, err := mcp.ParseURL(t.url); err != nil {
			return mcp.Options{}, usagef("%v", err)
		}
	default:
		return mcp.Options{}, usagef("--transport must be auto, http, sse or stdio, not %q", t.transport)
	}
	switch mcp.SessionMode(t.session) {
	case mcp.SessionPerWorker, mcp.SessionShared, mcp.SessionPerRequest:
	default:
		return mcp.Options{}, usagef("--session must be per-worker, shared or per-request, not %q", t.session)
	}
	h := http.Header{}
	for _, raw := range t.headers {
		name, value, ok := strings.Cut(raw, ":")
		name = strings.TrimSpace(name)
		if !ok || name == "" || strings.ContainsAny(name, " \t\r\n") {
			// Never echo the value: it may be a secret. Without a colon, or
			// with a blank inside, the "name" holds it too ("Bearer xyz").
			return mcp.Options{}, usagef("bad --header: want 'Name: value'")
		}
		value = strings.TrimSpace(value)
		if strings.ContainsFunc(value, func(r rune) bool { return r < ' ' && r != '\t' || r == 0x7f }) {
			// net/http would refuse it on every request; say so up front.
			return mcp.Options{}, usagef("bad --header %s: the value holds a control character", name)
		}
		h.Add(textproto.CanonicalMIMEHeaderKey(name), value)
	}
	if tok := e.getenv("MCPBENCH_TOKEN"); tok != "" && h.Get("Authorization") == "" {
		h.Set("Authorization", "Bearer "+tok)
	}
	secrets := secretValues(h, t.secretHeaders, e.getenv("MCPBENCH_TOKEN"))
	if u, err := url.Parse(t.url); err == nil && u.User != nil {
		// Credentials in the URL go out as Basic authorization.
		if pw, ok := u.User.Password(); ok && len(pw) >= 4 {
			secrets = append(secrets, pw, base64.StdEncoding.EncodeToString([]byte(u.User.Username()+":"+pw)))
		}
	}
	e.protect(secrets)
	timeout := t.timeout
	if t.timeoutSecs > 0 {
		timeout = time.Duration(t.timeoutSecs * float64(time.Second))
	}
	if timeout <= 0 {
		return mcp.Options{}, usagef("--timeout must be positive")
	}
	if t.maxResponseBytes <= 0 {
		return mcp.Options{}, usagef("--max-response-bytes must be positive")
	}
	return mcp.Options{
		URL:              t.url,
		Transport:        mcp.Transport(t.transport),
		ProtocolVersion:  t.protocolVersion,
		SessionMode:      mcp.SessionMode(t.session),
		Header:           h,
		Timeout:          timeout,
		MaxResponseBytes: t.maxResponseBytes,
		PoolSize:         pool,
		Insecure:         t.insecure,
		CACert:           t.cacert,
		Client:           mcp.ClientInfo{Name: "mcpbench", Version: buildVersion()},
		Engine:           mcp.Engine(t.engine),
		Command:          t.command,
		StdioProcs:       t.stdioProcs,
	}, nil
}

// sensitiveHeaders carry credentials whatever the user says.
var sensitiveHeaders = []string{"Authorization", "Cookie", "Proxy-Authorization", "X-Api-Key"}

// secretValues lists the values that must never be printed or written: the
// sensitive headers' and --secret-header's values, each credential inside
// them (a bearer token without its scheme), and the token.
func secretValues(h http.Header, extra []string, token string) []string {
	var out []string
	add := func(v string) {
		if v = strings.TrimSpace(v); len(v) >= 4 {
			out = append(out, v)
		}
	}
	add(token)
	names := append(append([]string(nil), sensitiveHeaders...), extra...)
	for _, n := range names {
		for _, v := range h.Values(textproto.CanonicalMIMEHeaderKey(n)) {
			add(v)
			if _, cred, ok := strings.Cut(v, " "); ok {
				add(cred)
			}
		}
	}
	return out
}

// workloadFlags say what to send and how much.
type workloadFlags struct {
	method      string
	tool        string
	args        string
	concurrency int
	rate        float64
	maxInFlight int
	total       int64
	duration    time.Duration
	warmup      int64
	rampUp      time.Duration
	maxRate     float64
	seed        uint64
}

func (w *workloadFlags) register(fs *pflag.FlagSet, sweep bool) {
	fs.StringVar(&w.method, "method", "tools/list", "tools/list|tools/call|ping|server/discover")
	fs.StringVar(&w.tool, "tool", "", "tool NAME for tools/call")
	fs.StringVar(&w.args, "args", "", "tools/call arguments: JSON, or @FILE")
	if !sweep {
		fs.IntVarP(&w.concurrency, "concurrency", "c", 1, "closed loop: N workers, each waits for its answer")
		fs.Float64Var(&w.rate, "rate", 0, "open loop: R requests/s on a fixed schedule")
	}
	fs.IntVar(&w.maxInFlight, "max-in-flight", 0, "open loop: most requests outstanding at once")
	fs.Int64VarP(&w.total, "total", "n", 0, "stop after N measured requests")
	fs.DurationVarP(&w.duration, "duration", "d", 0, "stop after D (default 10s when -n is not given)")
	fs.Int64Var(&w.warmup, "warmup", 0, "requests sent and discarded before measuring (alias --warmup-calls)")
	fs.DurationVar(&w.rampUp, "ramp-up", 0, "add workers (or raise the rate) evenly over D, not measured")
	fs.Float64Var(&w.maxRate, "max-rate", 0, "cap a closed loop at R requests/s")
	fs.Uint64Var(&w.seed, "seed", 1, "seed for mixes and generated arguments")
}

// readJSONArg reads a JSON object given inline or as @FILE.
func readJSONArg(flag, v string) (json.RawMessage, error) {
	if v == "" {
		return nil, nil
	}
	b := []byte(v)
	if strings.HasPrefix(v, "@") {
		var err error
		if b, err = os.ReadFile(v[1:]); err != nil {
			return nil, usagef("%s: %v", flag, err)
		}
	}
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(b, &obj); err != nil {
		return nil, usagef("%s: not a JSON object: %v", flag, err)
	}
	return json.RawMessage(b), nil
}

// outputFlags say where reports go.
type outputFlags struct {
	jsonOut    string
	mdOut      string
	outDir     string
	quiet      bool
	noProgress bool
	cpuProfile string
	memProfile string
}

func (o *outputFlags) register(fs *pflag.FlagSet) {
	fs.StringVar(&o.jsonOut, "json-out", "", "write the JSON report to `FILE` (- = stdout, and nothing else there)")
	fs.StringVar(&o.mdOut, "md-out", "", "write the Markdown report to `FILE` (alias --markdown-out)")
	fs.StringVar(&o.outDir, "out-dir", ".run/reports", "directory for reports written under default names")
	fs.BoolVarP(&o.quiet, "quiet", "q", false, "no human summary on stdout")
	fs.BoolVar(&o.noProgress, "no-progress", false, "no progress line on stderr")
	fs.StringVar(&o.cpuProfile, "cpuprofile", "", "write a Go CPU profile of mcpbench itself to `FILE`")
	fs.StringVar(&o.memProfile, "memprofile", "", "write a Go heap profile of mcpbench, taken at the end of the load, to `FILE`")
}

// writeHeapProfile records what the generator holds in memory.
func writeHeapProfile(path string) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	defer f.Close()
	return pprof.Lookup("heap").WriteTo(f, 0)
}

// startCPUProfile profiles the generator, for finding its own cost.
func startCPUProfile(path string) (func(), error) {
	f, err := os.Create(path)
	if err != nil {
		return nil, err
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		return nil, err
	}
	return func() { pprof.StopCPUProfile(); f.Close() }, nil
}

// summaryOut is where the human summary goes: nowhere when quiet or when
// stdout carries the JSON.
func (o *outputFlags) summaryOut(e env) io.Writer {
	if o.quiet || o.jsonOut == "-" || o.mdOut == "-" {
		return io.Discard
	}
	return e.stdout
}

// summaryErr is where gate verdicts go: stderr, unless quiet.
func (o *outputFlags) summaryErr() io.Writer {
	if o.quiet {
		return io.Discard
	}
	return os.Stderr
}

// writeFile writes one report through fn to path ("-" = stdout), creating
// the directory.
func writeFile(path string, e env, fn func(io.Writer) error) error {
	if path == "" {
		return nil
	}
	if path == "-" {
		return fn(e.stdout)
	}
	if dir := filepath.Dir(path); dir != "." {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return err
		}
	}
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := fn(e.scrubbed(f)); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// gateFlags define the SLO.
type gateFlags struct {
	p95SLO       float64
	p99SLO       float64
	maxErrorRate float64
	allowErrors  bool
	failOnSLO    bool
}

func (g *gateFlags) register(fs *pflag.FlagSet) {
	fs.Float64Var(&g.p95SLO, "p95-slo-ms", 0, "p95 latency target in ms (0 = none)")
	fs.Float64Var(&g.p99SLO, "p99-slo-ms", 0, "p99 latency target in ms (0 = none)")
	fs.Float64Var(&g.maxErrorRate, "max-error-rate", 0, "highest acceptable error rate, 0..1")
	fs.BoolVar(&g.allowErrors, "allow-request-errors", false, "any error rate is acceptable")
	fs.BoolVar(&g.failOnSLO, "fail-on-slo", false, "exit 1 when the p95/p99 targets are missed")
}

func (g *gateFlags) validate() error {
	if g.p95SLO < 0 || g.p99SLO < 0 {
		return usagef("SLO targets must not be negative")
	}
	if g.maxErrorRate < 0 || g.maxErrorRate > 1 {
		return usagef("--max-error-rate must be between 0 and 1")
	}
	if g.allowErrors {
		g.maxErrorRate = 1
	}
	return nil
}

// splitCommand separates the stdio server command (after --) from the
// other positional arguments.
func splitCommand(fs *pflag.FlagSet) (rest, command []string) {
	if at := fs.ArgsLenAtDash(); at >= 0 {
		return fs.Args()[:at], fs.Args()[at:]
	}
	return fs.Args(), nil
}

// dial connects to the target, mapping failures to the contract's exit
// codes: 2 for configuration, 3 for a server that is not there or not MCP.
func dial(ctx context.Context, o mcp.Options) (*mcp.Client, error) {
	c, err := mcp.Dial(ctx, o)
	if err != nil {
		var ce *mcp.ConfigError
		if errors.As(err, &ce) {
			return nil, usagef("%v", err)
		}
		return nil, unreachableError{fmt.Sprintf("%s: %v", mcp.Redact(o.URL), err)}
	}
	return c, nil
}

// unreachableError: the target could not be reached or did not speak MCP.
type unreachableError struct{ msg string }

func (e unreachableError) Error() string { return e.msg }

// exitFor maps an error to one line on stderr and an exit code.
func exitFor(e env, cmd string, err error) int {
	fmt.Fprintf(e.stderr, "mcpbench %s: %s\n", cmd, oneLine(err.Error()))
	var u usageError
	var un unreachableError
	switch {
	case errors.As(err, &u):
		return exitUsage
	case errors.As(err, &un):
		return exitUnreachable
	default:
		return exitUnreachable
	}
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// isTerminal reports whether w is a character device (a terminal).
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

// progressPrinter draws the progress line on stderr when it is a terminal.
func progressPrinter(e env, off bool) func(bench.Progress) {
	if off || !isTerminal(e.stderr) {
		return nil
	}
	return func(p bench.Progress) {
		done := fmt.Sprintf("%d", p.Done)
		if p.Total > 0 {
			done = fmt.Sprintf("%d/%d", p.Done, p.Total)
		}
		left := ""
		if p.Remaining >= 0 {
			left = fmt.Sprintf("  %s left", p.Remaining.Round(time.Second))
		}
		fmt.Fprintf(e.stderr, "\r\033[K%s done  %.0f rps  p99≈%.1f ms  %d errors%s", done, p.RPS, p.P99MS, p.Errors, left)
	}
}

func clearProgress(e env, pr func(bench.Progress)) {
	if pr != nil {
		fmt.Fprint(e.stderr, "\r\033[K")
	}
}

// header fills the common report header.
func header(schema string, started time.Time, c *mcp.Client, url string) results.Header {
	h := results.Header{Schema: schema, MCPBenchVersion: buildVersion(), StartedAt: started.UTC(), Target: results.Target{URL: mcp.Redact(url)}}
	if c != nil {
		info := c.Info()
		h.Target = results.Target{URL: mcp.Redact(c.URL()), Transport: info.Transport, ProtocolVersion: info.ProtocolVersion, ServerName: info.Name, ServerVersion: info.Version}
	}
	return h
}
