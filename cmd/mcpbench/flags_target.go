package main

import (
	"encoding/base64"
	"net/http"
	"net/textproto"
	"net/url"
	"os"
	"strings"
	"time"

	"github.com/spf13/pflag"

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

func (t *targetFlags) register(fs *pflag.FlagSet) {
	fs.StringVar(&t.url, "url", "", "MCP endpoint, e.g. http://127.0.0.1:3002/mcp (alias --base-url; an empty path means /mcp)")
	fs.StringVar(&t.transport, "transport", "auto", "auto|http|sse|stdio (stdio: the server command follows --)")
	fs.IntVar(&t.stdioProcs, "stdio-procs", 1, "stdio: server processes to spread the workers over")
	fs.StringVar(&t.engine, "engine", string(mcp.EngineAuto), "HTTP engine for the measured requests: auto (direct for plain http, else net/http), direct, net/http")
	fs.StringVar(&t.protocolVersion, "protocol-version", "auto", "auto, or a revision from 2024-11-05 to 2026-07-28")
	fs.StringVar(&t.session, "session", string(mcp.SessionPerWorker), "per-worker|shared|per-request (stateful revisions)")
	fs.Float64Var(&t.abandon, "abandon-sessions", 0, "end this `FRACTION` of sessions (of a scenario, or --session per-request) without a DELETE, as clients that go away do; with --server-pid or --server-metrics the report gives the server memory kept per abandoned session")
	fs.StringArrayVarP(&t.headers, "header", "H", nil, "extra header 'Name: value', repeatable (MCPBENCH_TOKEN adds Authorization: Bearer)")
	fs.StringArrayVar(&t.secretHeaders, "secret-header", nil, "header NAME whose value is a secret, redacted everywhere (repeatable)")
	fs.DurationVar(&t.timeout, "timeout", 30*time.Second, "per-request timeout")
	fs.Float64Var(&t.timeoutSecs, "timeout-secs", 0, "per-request timeout in seconds (seed scripts' form)")
	fs.BoolVar(&t.insecure, "insecure", false, "skip TLS certificate verification")
	fs.StringVar(&t.cacert, "cacert", "", "PEM `FILE` of extra trusted CA certificates")
	fs.Int64Var(&t.maxResponseBytes, "max-response-bytes", 16<<20, "largest answer accepted; larger ones are transport errors")
	fs.StringVar(&t.healthURL, "health-url", "", "health endpoint (default /health on the endpoint's origin)")
	fs.StringVar(&t.logFile, "log-file", "", "server log `FILE` to scan over the measured window")
	fs.StringVar(&t.oauth.flow, "oauth", "", "get the bearer token by OAuth 2.1: client-credentials, authorization-code (its redirect followed without a browser), enterprise or auto")
	fs.StringVar(&t.oauth.clientID, "oauth-client-id", "", "OAuth client ID (none: dynamic registration; an https URL: a client ID metadata document)")
	fs.StringVar(&t.oauth.secret, "oauth-client-secret", "", "OAuth client secret (or MCPBENCH_OAUTH_CLIENT_SECRET); never written anywhere")
	fs.StringVar(&t.oauth.keyFile, "oauth-client-key", "", "PEM private key `FILE` the client proves itself with (private_key_jwt) instead of a secret")
	fs.StringVar(&t.oauth.idpTokenURL, "oauth-idp-token-endpoint", "", "--oauth enterprise: the identity provider's token endpoint (the ID token in MCPBENCH_OAUTH_ID_TOKEN)")
	fs.StringVar(&t.oauth.idpClientID, "oauth-idp-client-id", "", "--oauth enterprise: the client's ID at the identity provider")
	fs.StringArrayVar(&t.oauth.scopes, "oauth-scope", nil, "OAuth scope to ask for instead of those the server advertises (repeatable)")
	fs.StringVar(&t.clientRequests, "client-requests", "decline", "answers to requests from the server during a call: decline (elicitations declined, -32601 for sampling and roots), error (-32601 for all), or a JSON `FILE` of results by method")
	fs.BoolVar(&t.getStream, "get-stream", false, "open each stateful session's GET stream too, to answer requests the server sends outside a call's own stream")
	t.logSettle = autoSettle
	fs.Var(&t.logSettle, "log-settle", "with --log-file: after the load, wait up to this long for the stats line that covers its end (auto: the lines' interval and a half, at most 15s; 0: no wait); before it, as long for a first stats line when the log has none yet (auto: 1s)")
	enumFlag(fs, "transport", "auto", "http", "sse", "stdio")
	enumFlag(fs, "engine", string(mcp.EngineAuto), string(mcp.EngineDirect), string(mcp.EngineNetHTTP))
	enumFlag(fs, "protocol-version", append([]string{"auto"}, mcp.Revisions()...)...)
	enumFlag(fs, "session", string(mcp.SessionPerWorker), string(mcp.SessionShared), string(mcp.SessionPerRequest))
	limitFlags(fs, atLeastOne(maxProcs), "stdio-procs")
	limitFlags(fs, zeroOrMore(1), "abandon-sessions")
	limitFlags(fs, durationUpTo(maxWait), "timeout")
	limitFlags(fs, above0(maxWait.Seconds()), "timeout-secs")
	limitFlags(fs, atLeastOne(maxBytes), "max-response-bytes")
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
	if timeout <= 0 {
		return mcp.Options{}, usagef("--timeout must be positive")
	}
	if t.maxResponseBytes <= 0 {
		return mcp.Options{}, usagef("--max-response-bytes must be positive")
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
// given, and the session mode.
func (t *targetFlags) checkTransport() error {
	switch t.transport {
	case "stdio":
		if len(t.command) == 0 {
			return usagef("--transport stdio needs the server command after --, e.g. -- npx -y @modelcontextprotocol/server-everything stdio")
		}
		if t.stdioProcs < 1 {
			return usagef("--stdio-procs must be at least 1")
		}
	case "auto", "http", "sse":
		if len(t.command) > 0 {
			return usagef("a server command after -- goes with --transport stdio")
		}
		if t.url == "" {
			return usagef("--url is required (e.g. --url http://127.0.0.1:3002/mcp)")
		}
		if err := checkURL(t.url); err != nil {
			return err
		}
	default:
		return usagef("--transport must be auto, http, sse or stdio, not %q", t.transport)
	}
	switch mcp.SessionMode(t.session) {
	case mcp.SessionPerWorker, mcp.SessionShared, mcp.SessionPerRequest:
	default:
		return usagef("--session must be per-worker, shared or per-request, not %q", t.session)
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
	case mcp.OAuthAuthorizationCode, mcp.OAuthAuto:
	default:
		return nil, usagef("--oauth must be client-credentials, authorization-code, enterprise or auto, not %q", o.flow)
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
