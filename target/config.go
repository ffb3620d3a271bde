// Package target is mcpbench's reference MCP server: the official Go SDK
// underneath, with a capacity model whose knee and ceiling are known, a
// tools/list cache, a /health document, the stats log line and fault
// injection, so that every client feature can be tested against a real peer.
package target

import (
	"fmt"
	"io"
	"time"
)

// Defaults of Config fields whose zero value would make no sense.
const (
	DefaultName           = "mcpbench-target"
	DefaultVersion        = "0.1.0"
	DefaultCapacity       = 1024
	DefaultOversizedBytes = 32 << 20
	DefaultStatsInterval  = 60 * time.Second
)

// What carries Config.FixedResponse.
const (
	FixedFastHTTP = "fasthttp"
	FixedNetHTTP  = "net/http"
)

// Service-time distributions. Each has mean Config.ServiceTime.
const (
	DistFixed     = "fixed"
	DistExp       = "exp"
	DistLognormal = "lognormal"
)

// lognormalSigma is the shape of the lognormal service time: p99 is about
// 2.6x the mean, a plausible tail for a real handler.
const lognormalSigma = 0.5

// Fault kinds. HTTP-level kinds replace or damage the HTTP exchange of a
// Streamable HTTP POST; MCP-level kinds shape the JSON-RPC answer.
const (
	FaultHTTP500              = "http-500"
	FaultReset                = "reset"
	FaultHang                 = "hang"
	FaultMalformedJSON        = "malformed-json"
	FaultTruncatedSSE         = "truncated-sse"
	FaultSessionExpired       = "session-expired"
	FaultSlowBody             = "slow-body"
	FaultOversized            = "oversized"
	FaultJSONRPCError         = "jsonrpc-error"
	FaultToolError            = "tool-error"
	FaultBadStructuredContent = "bad-structured-content"
)

// FaultKinds lists every fault kind, HTTP-level first.
func FaultKinds() []string {
	return []string{
		FaultHTTP500, FaultReset, FaultHang, FaultMalformedJSON, FaultTruncatedSSE,
		FaultSessionExpired, FaultSlowBody, FaultOversized,
		FaultJSONRPCError, FaultToolError, FaultBadStructuredContent,
	}
}

func httpLevelFault(kind string) bool {
	switch kind {
	case FaultHTTP500, FaultReset, FaultHang, FaultMalformedJSON, FaultTruncatedSSE,
		FaultSessionExpired, FaultSlowBody, FaultOversized:
		return true
	}
	return false
}

// Config describes a reference server. The zero value is a stateful server
// with the echo and fail tools only, DefaultCapacity slots, no service time,
// no tools/list cache, no faults and no stalls.
type Config struct {
	Name    string // implementation name; DefaultName when empty
	Version string // implementation version; DefaultVersion when empty

	Stateless bool // Streamable HTTP without sessions
	// FixedResponse answers /mcp with canned results and no SDK, modelling
	// nothing: a near-free server for measuring the generator.
	FixedResponse bool
	// FixedEngine carries FixedResponse: FixedFastHTTP (default) or
	// FixedNetHTTP.
	FixedEngine  string
	JSONResponse bool // answer POSTs with application/json instead of SSE

	Tools int // synthetic tools tool_000..; beside them echo and fail always exist
	// ClientTools adds the tools that exercise a client's side of the
	// protocol (client_tools.go): elicit, region_echo, input_once.
	ClientTools bool

	// OAuth makes the server its own OAuth 2.1 authorization server and
	// a protected resource (oauth.go): /mcp and /sse want a bearer token
	// that lives TokenTTL (DefaultTokenTTL when <= 0). OAuthClientID and
	// OAuthClientSecret are a pre-registered confidential client
	// (DefaultOAuthClientID and DefaultOAuthClientSecret when empty).
	OAuth                            bool
	TokenTTL                         time.Duration
	OAuthClientID, OAuthClientSecret string

	Capacity    int           // concurrent handler slots for tools/list and tools/call; DefaultCapacity when <= 0
	ServiceTime time.Duration // mean time a request holds its slot
	ServiceDist string        // DistFixed (default), DistExp or DistLognormal
	// Burn is CPU time each tools/call spends in a busy loop (not a
	// sleep) after its slot's service time, before the tool runs: a known
	// CPU cost per call, beside ServiceTime's latency. It needs the SDK
	// server (not FixedResponse).
	Burn time.Duration

	ListCacheTTL  time.Duration // tools/list cache lifetime; 0 = every list is a miss
	ListBuildTime time.Duration // extra time a cache miss spends building

	Fault          string  // one of FaultKinds, or empty
	FaultRate      float64 // probability in [0, 1] that an eligible request is faulted
	OversizedBytes int     // size of an oversized answer; DefaultOversizedBytes when <= 0

	Stall      time.Duration // length of each whole-server pause
	StallEvery time.Duration // period of the pauses; both must be set to stall

	Seed uint64 // seeds fault choice and service-time draws

	// LeakPerRequest keeps that many bytes for every request answered,
	// and LeakSessions keeps every session a client ends (its DELETE is
	// answered but ignored): leaks on purpose, to rehearse a soak test.
	// Both need the SDK server (not FixedResponse).
	LeakPerRequest int
	LeakSessions   bool

	// StatsLog, when set, receives the "[MCP] tools/list stats" line every
	// StatsInterval (DefaultStatsInterval when <= 0) and once more at Close.
	StatsLog      io.Writer
	StatsInterval time.Duration
}

// withDefaults fills the defaults and checks the values.
func (c Config) withDefaults() (Config, error) {
	if c.Name == "" {
		c.Name = DefaultName
	}
	if c.Version == "" {
		c.Version = DefaultVersion
	}
	if c.Tools < 0 {
		return c, fmt.Errorf("tools must be >= 0, got %d", c.Tools)
	}
	if c.Capacity <= 0 {
		c.Capacity = DefaultCapacity
	}
	if c.ServiceTime < 0 {
		return c, fmt.Errorf("service time must be >= 0, got %s", c.ServiceTime)
	}
	switch c.FixedEngine {
	case "":
		c.FixedEngine = FixedFastHTTP
	case FixedFastHTTP, FixedNetHTTP:
	default:
		return c, fmt.Errorf("fixed-response engine %q: want fasthttp or net/http", c.FixedEngine)
	}
	switch c.ServiceDist {
	case "":
		c.ServiceDist = DistFixed
	case DistFixed, DistExp, DistLognormal:
	default:
		return c, fmt.Errorf("service distribution %q: want fixed, exp or lognormal", c.ServiceDist)
	}
	if c.ListCacheTTL < 0 || c.ListBuildTime < 0 {
		return c, fmt.Errorf("list cache ttl and build time must be >= 0")
	}
	if c.Fault != "" {
		known := false
		for _, k := range FaultKinds() {
			known = known || k == c.Fault
		}
		if !known {
			return c, fmt.Errorf("fault kind %q: want one of %v", c.Fault, FaultKinds())
		}
	}
	if c.FaultRate < 0 || c.FaultRate > 1 || c.FaultRate != c.FaultRate {
		return c, fmt.Errorf("fault rate %v: want a probability in [0, 1]", c.FaultRate)
	}
	if c.OversizedBytes <= 0 {
		c.OversizedBytes = DefaultOversizedBytes
	}
	if c.Stall < 0 || c.StallEvery < 0 {
		return c, fmt.Errorf("stall and stall-every must be >= 0")
	}
	if (c.Stall > 0) != (c.StallEvery > 0) {
		return c, fmt.Errorf("stall and stall-every must be given together")
	}
	if c.Stall > 0 && c.Stall >= c.StallEvery {
		return c, fmt.Errorf("stall %s must be shorter than stall-every %s", c.Stall, c.StallEvery)
	}
	if c.StatsInterval <= 0 {
		c.StatsInterval = DefaultStatsInterval
	}
	if c.TokenTTL <= 0 {
		c.TokenTTL = DefaultTokenTTL
	}
	if c.OAuthClientID == "" {
		c.OAuthClientID = DefaultOAuthClientID
	}
	if c.OAuthClientSecret == "" {
		c.OAuthClientSecret = DefaultOAuthClientSecret
	}
	return c, c.checkOnPurpose()
}

// checkOnPurpose checks the costs and leaks the server takes on purpose
// (Burn, LeakPerRequest, LeakSessions), which all need the SDK server.
func (c Config) checkOnPurpose() error {
	if c.Burn < 0 {
		return fmt.Errorf("burn must be >= 0, got %s", c.Burn)
	}
	if c.Burn > 0 && c.FixedResponse {
		return fmt.Errorf("burn needs the SDK server, not the fixed response")
	}
	if c.LeakPerRequest < 0 {
		return fmt.Errorf("leak per request must be >= 0 bytes, got %d", c.LeakPerRequest)
	}
	if (c.LeakPerRequest > 0 || c.LeakSessions) && c.FixedResponse {
		return fmt.Errorf("the leaks need the SDK server, not fixed responses")
	}
	if c.LeakSessions && c.Stateless {
		return fmt.Errorf("a session leak needs sessions: not with stateless")
	}
	return nil
}
