package bench_test

import (
	"context"
	"testing"
	"time"

	"github.com/mcpbench/mcpbench/bench"
	"github.com/mcpbench/mcpbench/mcp"
	"github.com/mcpbench/mcpbench/measure"
	"github.com/mcpbench/mcpbench/target"
	"github.com/mcpbench/mcpbench/workload"
)

// What production servers ask of a client, against the bundled server's
// client tools: requests from the server during a call, 2026-07-28
// headers and multi round-trip calls, OAuth.

// clientToolsServer starts the bundled server with the client tools and a
// fixed service time: stateful, or stateless, the mode in which the SDK
// speaks 2026-07-28.
func clientToolsServer(t *testing.T, service time.Duration, stateless bool) *target.Running {
	t.Helper()
	srv, err := target.Start(context.Background(), target.Config{ClientTools: true, ServiceTime: service, Stateless: stateless})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	return srv
}

// runTool runs n calls of tool at concurrency 4 with a generous timeout
// and returns the point and the client's counters over the run.
func runTool(t *testing.T, o mcp.Options, tool string, args string, n int64) (measure.Point, map[string]int64) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	o.PoolSize, o.Timeout = 4, 10*time.Second
	client, err := mcp.Dial(ctx, o)
	if err != nil {
		t.Fatalf("dial: %v", err)
	}
	defer client.Close(ctx)
	wl := &workload.Workload{Client: client, Ops: []workload.Op{{Request: mcp.Request{Method: "tools/call", Tool: tool, Arguments: []byte(args)}}}}
	p, err := bench.Run(ctx, bench.Config{Model: bench.ClosedLoop{Concurrency: 4}, Total: n}, wl)
	if err != nil {
		t.Fatalf("run: %v", err)
	}
	return p, client.Counters()
}

// TestElicitingToolAnswered: every call of a tool that elicits is
// answered by the policy and completes within a few milliseconds of the
// server's own service time, whichever engine and revision carries it: no
// call waits for the timeout.
func TestElicitingToolAnswered(t *testing.T) {
	const service = 20 * time.Millisecond
	stateful, stateless := clientToolsServer(t, service, false), clientToolsServer(t, service, true)
	for _, c := range []struct {
		rev    string
		engine mcp.Engine
		rounds int // service times a call spends on the server
	}{
		{mcp.Rev20251125, mcp.EngineDirect, 1},
		{mcp.Rev20251125, mcp.EngineNetHTTP, 1},
		// 2026-07-28: input_required, and the call again with the answer.
		{mcp.Rev20260728, mcp.EngineDirect, 2},
		{mcp.Rev20260728, mcp.EngineNetHTTP, 2},
	} {
		t.Run(c.rev+"/"+string(c.engine), func(t *testing.T) {
			srv := stateful
			if c.rev == mcp.Rev20260728 {
				srv = stateless
			}
			p, counts := runTool(t, mcp.Options{URL: srv.MCPURL(), ProtocolVersion: c.rev, Engine: c.engine}, target.ToolElicit, `{}`, 100)
			if p.Requests != 100 || p.OK != 100 {
				t.Fatalf("requests %d ok %d, errors %v (%v)", p.Requests, p.OK, p.ErrorsByKind, p.ErrorExamples)
			}
			if n := p.Counters["client_requests/elicitation/create"]; n != 100 || counts["client_requests/elicitation/create"] != 100 {
				t.Fatalf("%d elicitations counted for 100 calls: point %v, client %v", n, p.Counters, counts)
			}
			if n := p.Counters["round_trips"]; n != int64(100*(c.rounds-1)) {
				t.Fatalf("%d extra round trips for 100 calls of %d rounds", n, c.rounds)
			}
			// The stateful server streams its answers: each call's first
			// event is timed apart from the full answer.
			if c.rev == mcp.Rev20251125 && (p.FirstEvent == nil || p.FirstEvent.Count != 100 || p.FirstEvent.MaxMS > p.MaxMS) {
				t.Fatalf("first events %+v for 100 streamed answers (max latency %.1f ms)", p.FirstEvent, p.MaxMS)
			}
			// The median is the service time and a few ms of client and
			// loopback work; no call comes near the 10 s timeout (the
			// ceiling leaves room for a shared machine's scheduling).
			t.Logf("p50 %.1f ms, p99 %.1f, max %.1f ms for a %v service time", p.P50MS, p.P99MS, p.MaxMS, service)
			want := time.Duration(c.rounds) * service
			if got := ms(p.P50MS); got > want+10*time.Millisecond {
				t.Fatalf("median call %v, more than a few ms over %v", got, want)
			}
			if got := ms(p.MaxMS); got > want+time.Second {
				t.Fatalf("slowest call %v: it waited for something other than the server", got)
			}
		})
	}
}

func ms(v float64) time.Duration { return time.Duration(v * float64(time.Millisecond)) }

// oauthServer starts the bundled server in its OAuth mode with tokens that
// live ttl.
func oauthServer(t *testing.T, ttl time.Duration) *target.Running {
	t.Helper()
	// 20 ms a call holds four workers near 200 calls/s: the four OAuth
	// runs side by side come to what one did at 5 ms, a fifth of a core,
	// so TestCoordinatedOmission keeps its bounds beside them.
	srv, err := target.Start(context.Background(), target.Config{OAuth: true, TokenTTL: ttl, ServiceTime: 20 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	return srv
}

// runOAuth measures echo calls for d against an OAuth-protected server and
// returns the point, the time the client held its first token, and the
// tokens it was told of.
func runOAuth(t *testing.T, srv *target.Running, o mcp.OAuth, engine mcp.Engine, d time.Duration) (measure.Point, time.Duration, []string) {
	t.Helper()
	ctx := context.Background()
	var tokens []string
	o.OnToken = func(tok string) { tokens = append(tokens, tok) }
	start := time.Now()
	client, err := mcp.Dial(ctx, mcp.Options{URL: srv.MCPURL(), OAuth: &o, Engine: engine, PoolSize: 4, Timeout: 10 * time.Second})
	if err != nil {
		t.Fatalf("dial: %v", err)
	}
	defer client.Close(ctx)
	wl := &workload.Workload{Client: client, Ops: []workload.Op{{Request: echo}}}
	p, err := bench.Run(ctx, bench.Config{Model: bench.ClosedLoop{Concurrency: 4}, Duration: d}, wl)
	if err != nil {
		t.Fatalf("run: %v", err)
	}
	return p, time.Since(start), tokens
}

// TestOAuthFlows: both flows get a token from the bundled server (client
// credentials pre-registered; authorization code with dynamic
// registration, PKCE and the redirect followed without a browser) and
// renew it before it expires, on both engines: no request is refused. The
// three clients run side by side, each with its own tokens, against one
// server: 5 s in all, not 15.
func TestOAuthFlows(t *testing.T) {
	t.Parallel()
	const ttl = 2 * time.Second
	srv := oauthServer(t, ttl)
	for _, c := range []struct {
		o      mcp.OAuth
		engine mcp.Engine
	}{
		{mcp.OAuth{Flow: mcp.OAuthClientCredentials, ClientID: target.DefaultOAuthClientID, ClientSecret: target.DefaultOAuthClientSecret}, mcp.EngineDirect},
		{mcp.OAuth{Flow: mcp.OAuthAuthorizationCode}, mcp.EngineNetHTTP},
		{mcp.OAuth{Flow: mcp.OAuthAuto, ClientID: target.DefaultOAuthClientID, ClientSecret: target.DefaultOAuthClientSecret}, mcp.EngineNetHTTP},
	} {
		t.Run(string(c.o.Flow)+"/"+string(c.engine), func(t *testing.T) {
			t.Parallel()
			p, held, tokens := runOAuth(t, srv, c.o, c.engine, 5*time.Second)
			if p.Errors != 0 || p.OK == 0 {
				t.Fatalf("%s on %s: %d ok, errors %v (%v)", c.o.Flow, c.engine, p.OK, p.ErrorsByKind, p.ErrorExamples)
			}
			// A renewal every 0.8 ttl from the first token.
			want := int64(held / (ttl * 8 / 10))
			if got := p.Counters["token_refreshes"]; got < want-2 || got > want+1 {
				t.Errorf("%s on %s: %d renewals in %v of %v tokens, want about %d", c.o.Flow, c.engine, got, held, ttl, want)
			}
			if len(tokens) < 2 || tokens[0] == tokens[len(tokens)-1] {
				t.Errorf("%s: tokens %d, the token never changed", c.o.Flow, len(tokens))
			}
		})
	}
}

// TestOAuthTokensExpireEverySecond: a 5 s run against a server whose
// tokens live 1 s, five lifetimes. The token is renewed in the background
// before each expiry (at four fifths of its life), so no request is
// refused, and the renewals are exactly the schedule's: one per 0.8 s from
// the first token, each one token issued by the server. (It ran 60 s with
// 10 s tokens, then 15 s with 3 s tokens; the server states lifetimes in
// whole seconds, and five of the shortest check the same schedule.)
func TestOAuthTokensExpireEverySecond(t *testing.T) {
	if testing.Short() {
		t.Skip("a 5 s run")
	}
	t.Parallel()
	const ttl = time.Second
	srv := oauthServer(t, ttl)
	before := srv.TokensIssued()
	o := mcp.OAuth{Flow: mcp.OAuthClientCredentials, ClientID: target.DefaultOAuthClientID, ClientSecret: target.DefaultOAuthClientSecret}
	p, held, _ := runOAuth(t, srv, o, mcp.EngineDirect, 5*time.Second)
	if p.Errors != 0 || p.ErrorsByKind["auth"] != 0 {
		t.Fatalf("%d ok, errors %v (%v)", p.OK, p.ErrorsByKind, p.ErrorExamples)
	}
	renewals := p.Counters["token_refreshes"]
	if want := int64(held / (ttl * 8 / 10)); renewals != want && renewals != want-1 {
		t.Fatalf("%d renewals while holding tokens for %v, want %d (one per %v)", renewals, held, want, ttl*8/10)
	}
	// Dialling took the first token (the SDK's handler and the token
	// source each fetch one); every renewal after it is one more.
	if issued := srv.TokensIssued() - before; issued < renewals+1 || issued > renewals+2 {
		t.Fatalf("the server issued %d tokens for %d renewals", issued, renewals)
	}
	t.Logf("%d requests, %d renewals in %v", p.Requests, renewals, held)
}

// Test2026ClientTools: the 2026-07-28 tools of the bundled server, run as
// the CLI would: every request ok, and the extra round trips counted. The
// x-mcp-header tool is called without the tools listed first: the
// server's HeaderMismatch to each worker's first call makes the client list
// them (once) and call again, with the header from then on.
func Test2026ClientTools(t *testing.T) {
	srv := clientToolsServer(t, time.Millisecond, true)
	for _, c := range []struct {
		tool, args string
		rounds     int64 // extra round trips for 100 calls
	}{
		{target.ToolRegion, `{"region":"eu-west4","message":"hi"}`, 4}, // one per worker
		{target.ToolInputOnce, `{}`, 100},
	} {
		for _, engine := range []mcp.Engine{mcp.EngineDirect, mcp.EngineNetHTTP} {
			p, _ := runTool(t, mcp.Options{URL: srv.MCPURL(), Engine: engine}, c.tool, c.args, 100)
			if p.Requests != 100 || p.OK != 100 {
				t.Fatalf("%s on %s: requests %d ok %d, errors %v (%v)", c.tool, engine, p.Requests, p.OK, p.ErrorsByKind, p.ErrorExamples)
			}
			if n := p.Counters["round_trips"]; n != c.rounds {
				t.Fatalf("%s on %s: %d extra round trips, want %d", c.tool, engine, n, c.rounds)
			}
		}
	}
}
