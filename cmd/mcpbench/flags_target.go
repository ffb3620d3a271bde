package main

import (
	"encoding/base64"
	"net/http"
	"net/textproto"
	"net/url"
	"os"
	"strings"
	"time"

	"github.com/mcpbench/mcpbench/harness"
	"github.com/mcpbench/mcpbench/mcp"
)

// targetFlags say where the server is and how to speak to it.
type targetFlags struct {
	url              string
	transport        string
	protocolVersion  string
	session          string
	abandon          float64
	headers          []string
	secretHeaders    []string
	timeout          time.Duration
	timeoutSecs      float64
	insecure         bool
	cacert           string
	maxResponseBytes int64
	healthURL        string
	logFile          string
	logSettle        settleValue
	stdioProcs       int
	engine           string
	command          []string // the stdio server: the arguments after --
	oauth            oauthFlags
	clientRequests   string
	getStream        bool
	secrets          []string // the credentials the flags and environment carry
}

// oauthFlags ask for the bearer token to come from OAuth 2.1.
type oauthFlags struct {
	flow, clientID, secret   string
	keyFile                  string
	idpTokenURL, idpClientID string
	scopes                   []string
}

// flags declares the target's flags, for run, sweep and probe.
func (t *targetFlags) flags() []flagDecl {
	o := &t.oauth
	return []flagDecl{
		{name: "url", to: &t.url, group: "Target and transport", usage: "MCP endpoint, e.g. http://127.0.0.1:3002/mcp (alias --base-url; an empty path means /mcp)"},
		{name: "transport", to: &t.transport, def: "auto", group: "Target and transport", values: []string{"auto", "http", "sse", "stdio"}, usage: "auto|http|sse|stdio (stdio: the server command follows --)"},
		{name: "stdio-procs", to: &t.stdioProcs, def: 1, group: "Target and transport", rng: atLeastOne(maxProcs), usage: "stdio: server processes to spread the workers over"},
		{name: "engine", to: &t.engine, def: string(mcp.EngineAuto), group: "Target and transport", hints: []string{string(mcp.EngineAuto), string(mcp.EngineDirect), string(mcp.EngineNetHTTP)}, usage: "HTTP engine for the measured requests: auto (direct for plain http, else net/http), direct, net/http"},
		{name: "protocol-version", to: &t.protocolVersion, def: "auto", group: "Target and transport", hints: append([]string{"auto"}, mcp.Revisions()...), usage: "auto, or a revision from 2024-11-05 to 2026-07-28"},
		{name: "session", to: &t.session, def: string(mcp.SessionPerWorker), group: "Target and transport", values: []string{string(mcp.SessionPerWorker), string(mcp.SessionShared), string(mcp.SessionPerRequest)}, usage: "per-worker|shared|per-request (stateful revisions)"},
		{name: "abandon-sessions", to: &t.abandon, group: "Target and transport", rng: fraction, usage: "end this `FRACTION` of sessions (of a scenario, or --session per-request) without a DELETE, as clients that go away do; with --server-pid or --server-metrics the report gives the server memory kept per abandoned session"},
		{name: "header", short: "H", to: &t.headers, group: "Target and transport", usage: "extra header 'Name: value', repeatable (MCPBENCH_TOKEN adds Authorization: Bearer)"},
		{name: "secret-header", to: &t.secretHeaders, group: "Authentication", usage: "header NAME whose value is a secret, redacted everywhere (repeatable)"},
		{name: "timeout", to: &t.timeout, def: 30 * time.Second, group: "Target and transport", rng: durationUpTo(maxWait), usage: "per-request timeout"},
		{name: "timeout-secs", to: &t.timeoutSecs, group: "Target and transport", rng: above0(maxWait.Seconds()), usage: "per-request timeout in seconds (seed scripts' form)"},
		{name: "insecure", to: &t.insecure, group: "Target and transport", usage: "skip TLS certificate verification"},
		{name: "cacert", to: &t.cacert, group: "Target and transport", usage: "PEM `FILE` of extra trusted CA certificates"},
		{name: "max-response-bytes", to: &t.maxResponseBytes, def: int64(16 << 20), group: "Target and transport", rng: atLeastOne(maxBytes), usage: "largest answer accepted; larger ones are transport errors"},
		{name: "health-url", to: &t.healthURL, group: "Time series and server", usage: "health endpoint (default /health on the endpoint's origin)"},
		{name: "log-file", to: &t.logFile, group: "Time series and server", usage: "server log `FILE` to scan over the measured window"},
		{name: "oauth", to: &o.flow, group: "Authentication", values: []string{mcp.OAuthClientCredentials, mcp.OAuthAuthorizationCode, mcp.OAuthEnterprise, mcp.OAuthAuto}, usage: "get the bearer token by OAuth 2.1: client-credentials, authorization-code (its redirect followed without a browser), enterprise or auto"},
		{name: "oauth-client-id", to: &o.clientID, group: "Authentication", usage: "OAuth client ID (none: dynamic registration; an https URL: a client ID metadata document)"},
		{name: "oauth-client-secret", to: &o.secret, group: "Authentication", usage: "OAuth client secret (or MCPBENCH_OAUTH_CLIENT_SECRET); never written anywhere"},
		{name: "oauth-client-key", to: &o.keyFile, group: "Authentication", usage: "PEM private key `FILE` the client proves itself with (private_key_jwt) instead of a secret"},
		{name: "oauth-idp-token-endpoint", to: &o.idpTokenURL, group: "Authentication", usage: "--oauth enterprise: the identity provider's token endpoint (the ID token in MCPBENCH_OAUTH_ID_TOKEN)"},
		{name: "oauth-idp-client-id", to: &o.idpClientID, group: "Authentication", usage: "--oauth enterprise: the client's ID at the identity provider"},
		{name: "oauth-scope", to: &o.scopes, group: "Authentication", usage: "OAuth scope to ask for instead of those the server advertises (repeatable)"},
		{name: "client-requests", to: &t.clientRequests, def: "decline", group: "Target and transport", usage: "answers to requests from the server during a call: decline (elicitations declined, -32601 for sampling and roots), error (-32601 for all), or a JSON `FILE` of results by method"},
		{name: "get-stream", to: &t.getStream, group: "Target and transport", usage: "open each stateful session's GET stream too, to answer requests the server sends outside a call's own stream"},
		{name: "log-settle", to: &t.logSettle, def: "auto", group: "Time series and server", usage: "with --log-file: after the load, wait up to this long for the stats line that covers its end (auto: the lines' interval and a half, at most 15s; 0: no wait); before it, as long for a first stats line when the log has none yet (auto: 1s)"},
	}
}

// options turns the flags into client options.
func (t *targetFlags) options(e *env, pool int) (mcp.Options, error) {
	if err := t.checkTransport(); err != nil {
		return mcp.Options{}, err
	}
	if err := t.checkFiles(pool); err != nil {
		return mcp.Options{}, err
	}
	h, err := t.header(e)
	if err != nil {
		return mcp.Options{}, err
	}
	timeout := t.timeout
	if t.timeoutSecs > 0 {
		timeout = time.Duration(t.timeoutSecs * float64(time.Second))
	}
	policy, err := mcp.ParseClientRequests(t.clientRequests)
	if err != nil {
		return mcp.Options{}, usagef("%v", err)
	}
	oauth, err := t.oauth.options(e)
	if err != nil {
		return mcp.Options{}, err
	}
	if oauth != nil { // the server's text must not echo these either
		for _, v := range []string{oauth.ClientSecret, oauth.IDToken} {
			if v != "" {
				t.secrets = append(t.secrets, v)
			}
		}
	}
	return mcp.Options{
		ClientRequests:   policy,
		Listen:           t.getStream,
		OAuth:            oauth,
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
		Secrets:          t.secrets,
	}, nil
}

// checkTransport checks the transport against the endpoint or command
// given, and the session mode against --abandon-sessions.
func (t *targetFlags) checkTransport() error {
	switch t.transport {
	case "stdio":
		if len(t.command) == 0 {
			return usagef("--transport stdio needs the server command after --, e.g. -- npx -y @modelcontextprotocol/server-everything stdio")
		}
	default: // auto, http or sse: the declaration refuses others
		if len(t.command) > 0 {
			return usagef("a server command after -- goes with --transport stdio")
		}
		if t.url == "" {
			return usagef("--url is required (e.g. --url http://127.0.0.1:3002/mcp)")
		}
		if err := checkURL(t.url); err != nil {
			return err
		}
	}
	if t.abandon > 0 && mcp.SessionMode(t.session) == mcp.SessionShared {
		return usagef("--abandon-sessions ends sessions without a DELETE; with --session shared there is one session, never ended")
	}
	return nil
}

// checkURL refuses an endpoint that is not an absolute http(s) URL,
// suggesting the scheme a bare host:port lacks.
func checkURL(raw string) error {
	if !strings.Contains(raw, "://") {
		return usagef("--url %q has no scheme: did you mean --url http://%s ?", mcp.Redact(raw), strings.TrimPrefix(mcp.Redact(raw), "//"))
	}
	if _, err := mcp.ParseURL(raw); err != nil {
		return usagef("--url: %v", err)
	}
	return nil
}

// header is the extra headers, MCPBENCH_TOKEN's authorization among them;
// it makes e scrub every secret they carry from then on.
func (t *targetFlags) header(e *env) (http.Header, error) {
	h := http.Header{}
	for _, raw := range t.headers {
		name, value, ok := strings.Cut(raw, ":")
		name = strings.TrimSpace(name)
		if !ok || name == "" || strings.ContainsAny(name, " \t\r\n") {
			// Never echo the value: it may be a secret. Without a colon, or
			// with a blank inside, the "name" holds it too ("Bearer xyz").
			return nil, usagef("bad --header: want 'Name: value'")
		}
		value = strings.TrimSpace(value)
		if strings.ContainsFunc(value, func(r rune) bool { return r < ' ' && r != '\t' || r == 0x7f }) {
			// net/http would refuse it on every request; say so up front.
			return nil, usagef("bad --header %s: the value holds a control character", name)
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
	t.secrets = secrets
	return h, nil
}

// secretValues lists the values that must never be printed or written: the
// sensitive headers' and --secret-header's values, each credential inside
// them (a bearer token without its scheme), and the token.
func secretValues(h http.Header, extra []string, token string) []string {
	var out []string
	if token = strings.TrimSpace(token); len(token) >= 4 {
		out = append(out, token)
	}
	return append(out, mcp.SecretValues(h, extra...)...)
}

// options turns the OAuth flags into the client's OAuth settings (nil
// without --oauth). The secret, the ID token and each token the client
// obtains are scrubbed from everything e writes.
func (o *oauthFlags) options(e *env) (*mcp.OAuth, error) {
	secret := o.secret
	if secret == "" {
		secret = e.getenv("MCPBENCH_OAUTH_CLIENT_SECRET")
	}
	idToken := e.getenv("MCPBENCH_OAUTH_ID_TOKEN")
	if o.flow == "" {
		if o.clientID != "" || o.secret != "" || o.keyFile != "" || o.idpTokenURL != "" || o.idpClientID != "" || len(o.scopes) > 0 {
			return nil, usagef("the --oauth-* flags go with --oauth")
		}
		return nil, nil
	}
	var key []byte
	if o.keyFile != "" {
		var err error
		if key, err = os.ReadFile(o.keyFile); err != nil {
			return nil, usagef("--oauth-client-key: %v", err)
		}
	}
	switch o.flow {
	case mcp.OAuthClientCredentials:
		if o.clientID == "" || secret == "" && key == nil {
			return nil, usagef("--oauth client-credentials needs --oauth-client-id and --oauth-client-secret (or MCPBENCH_OAUTH_CLIENT_SECRET, or --oauth-client-key)")
		}
	case mcp.OAuthEnterprise:
		if o.clientID == "" || o.idpTokenURL == "" || o.idpClientID == "" || idToken == "" {
			return nil, usagef("--oauth enterprise needs --oauth-client-id, --oauth-idp-token-endpoint, --oauth-idp-client-id and MCPBENCH_OAUTH_ID_TOKEN")
		}
	}
	e.protect([]string{secret, idToken})
	secrets := e.secrets
	return &mcp.OAuth{Flow: o.flow, ClientID: o.clientID, ClientSecret: secret, ClientKey: key, Scopes: o.scopes,
		IdPTokenURL: o.idpTokenURL, IdPClientID: o.idpClientID, IDToken: idToken,
		OnToken: func(tok string) { secrets.add(tok) }}, nil
}

// checkFiles refuses a load whose connections (pool of them, and a GET
// stream per session with --get-stream) pass the open-file limit; a stdio
// server has none.
func (t *targetFlags) checkFiles(pool int) error {
	if len(t.command) > 0 {
		return nil
	}
	conns, what := pool, "the load"
	if t.getStream {
		conns, what = 2*pool, "the load with --get-stream"
	}
	if err := harness.CheckFiles(conns, what); err != nil {
		return usagef("%v", err)
	}
	return nil
}
