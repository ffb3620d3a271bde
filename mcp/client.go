package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync/atomic"
	"time"

	"github.com/mcpbench/mcpbench/internal/h1"
	"github.com/mcpbench/mcpbench/mcp/oauth"
)

// Options configure a Client. The zero value of each field has a sensible
// meaning; URL is required.
type Options struct {
	URL             string
	Transport       Transport   // auto (default), http, sse or stdio
	ProtocolVersion string      // "", "auto" or a revision
	SessionMode     SessionMode // per-worker (default), shared, per-request
	Header          http.Header
	Timeout         time.Duration // per request; 0 means 30s
	// MaxResponseBytes bounds one answer; beyond it the request is a
	// transport error and its connection is dropped. 0 means 16 MiB.
	MaxResponseBytes int64
	// PoolSize is the number of connections kept open to the server: the
	// concurrency the caller will use, so no request waits for one.
	PoolSize int
	Insecure bool
	CACert   string // PEM file of extra roots
	Client   ClientInfo
	// Engine carries the Streamable HTTP POSTs: auto (direct for plain
	// HTTP without a proxy, else net/http), direct or net/http.
	Engine Engine
	// Command is the server to spawn for the stdio transport, and
	// StdioProcs how many copies of it (sessions are spread over them).
	Command    []string
	StdioProcs int
	// Listen opens each stateful Streamable HTTP session's standing GET
	// stream, to answer what the server sends outside a call
	// (transport_http_listen.go).
	Listen bool
	// OAuth, when set, gets the bearer token by OAuth 2.1 (oauth.go).
	OAuth *OAuth
	// ClientRequests answers the requests the server sends during a call
	// (ParseClientRequests); nil declines elicitations and answers
	// sampling and roots with method-not-found.
	ClientRequests *ClientRequests
	// Secrets are values the server's text must never carry into an
	// error (a token sent in a header not in SensitiveHeaders, say); the
	// sensitive headers' own values are hidden without being listed.
	Secrets []string
}

// ServerInfo is what negotiation learned about the server.
type ServerInfo struct {
	Name            string          `json:"name"`
	Version         string          `json:"version"`
	ProtocolVersion string          `json:"protocol_version"`
	Transport       string          `json:"transport"`
	Capabilities    json.RawMessage `json:"capabilities,omitempty"`
	Instructions    string          `json:"instructions,omitempty"`
	Supported       []string        `json:"supported_versions,omitempty"`
}

// Client holds what every session of one server shares: the HTTP client with
// its connection pool, the transport's link, the negotiated revision and
// the server's identity.
type Client struct {
	opts     Options
	url      *url.URL
	link     link // gives each session its transport
	rev      string
	meta     []byte // modern _meta block, encoded once
	info     ServerInfo
	shared   string // session id shared by all workers in shared mode
	maxBody  int
	counts   clientCounts
	hooks    Hooks         // shared with detached clients
	dials    *atomic.Int64 // connections opened, shared with detached clients
	abandons *abandons     // shared with detached clients
	auth     *oauth.State  // nil without OAuth
	params   toolHeaders   // the x-mcp-header marks of the tools listed
	secrets  []string      // hidden in the server's text (servertext.go)
	tracer   *tracer       // nil without Hooks.Trace (trace.go)
	inits    *initCache    // shared with detached clients (negotiate_initcache.go)
}

// ParseURL checks an endpoint URL. A URL with an empty path or "/" means
// <url>/mcp, as the seed scripts' --base-url did.
func ParseURL(raw string) (*url.URL, error) {
	u, err := url.Parse(raw)
	if err != nil {
		return nil, configErrorf("bad URL %q: %v", Redact(raw), err)
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return nil, configErrorf("bad URL %q: scheme must be http or https", Redact(raw))
	}
	if u.Host == "" {
		return nil, configErrorf("bad URL %q: no host", Redact(raw))
	}
	if u.Path == "" || u.Path == "/" {
		u.Path = "/mcp"
	}
	return u, nil
}

// Redact hides a URL's user info, which may hold a password.
func Redact(raw string) string {
	u, err := url.Parse(raw)
	if err != nil || u.User == nil {
		return raw
	}
	u.User = url.User("***")
	return u.String()
}

// Endpoint names the server o speaks to, for messages: the URL without
// its user info, or "stdio: " and the server command.
func (o Options) Endpoint() string {
	if o.Transport == TransportStdio {
		return "stdio: " + strings.Join(o.Command, " ")
	}
	return Redact(o.URL)
}

// DialWith negotiates with the server at o.URL: server/discover for
// 2026-07-28, else initialize. The probe session it opens for initialize is
// closed again; workers open their own with NewSession. The client carries
// out h on every session.
func DialWith(ctx context.Context, o Options, h Hooks) (*Client, error) {
	if o.Transport == "" {
		o.Transport = TransportAuto
	}
	var u *url.URL
	if o.Transport == TransportStdio {
		u = &url.URL{Scheme: "stdio", Opaque: strings.Join(o.Command, " ")}
	} else {
		var err error
		if u, err = ParseURL(o.URL); err != nil {
			return nil, err
		}
	}
	if o.Timeout <= 0 {
		o.Timeout = 30 * time.Second
	}
	if o.MaxResponseBytes <= 0 {
		o.MaxResponseBytes = 16 << 20
	}
	if o.SessionMode == "" {
		o.SessionMode = SessionPerWorker
	}
	if o.Client.Name == "" {
		o.Client = ClientInfo{Name: "mcpbench", Version: "dev"}
	}
	if o.ProtocolVersion == "auto" {
		o.ProtocolVersion = ""
	}
	if o.ProtocolVersion != "" && !slices.Contains(Revisions(), o.ProtocolVersion) {
		return nil, configErrorf("unsupported protocol version %q (supported: %s)", o.ProtocolVersion, strings.Join(Revisions(), ", "))
	}
	c := &Client{opts: o, url: u, maxBody: int(o.MaxResponseBytes), hooks: h, dials: new(atomic.Int64), tracer: newTracer(h.Trace),
		abandons: &abandons{}, inits: &initCache{}, secrets: append(SecretValues(o.Header), o.Secrets...)}
	hc, err := c.http(o).client()
	if err != nil {
		return nil, err
	}
	if c.link, err = streamableLink(u, o, hc, c.dials); err != nil {
		return nil, err
	}
	if err := c.startOAuth(ctx, hc); err != nil {
		c.Close(ctx)
		return nil, err
	}
	if err := c.negotiate(ctx); err != nil {
		c.Close(ctx)
		return nil, err
	}
	return c, nil
}

// streamableLink picks what carries Streamable HTTP under o.Engine: the
// direct engine's pool, or net/http. (Negotiation may move to HTTP+SSE
// later; stdio has a link of its own.)
func streamableLink(u *url.URL, o Options, hc *http.Client, dials *atomic.Int64) (link, error) {
	stdio := o.Transport == TransportStdio
	direct := false
	switch o.Engine {
	case "", EngineAuto:
		direct = h1.Serves(u)
	case EngineDirect:
		if !stdio && !h1.Serves(u) {
			return nil, optionErrorf("Engine", "the direct engine serves plain http:// without a proxy; the net/http engine serves the rest")
		}
		direct = true
	case EngineNetHTTP:
	default:
		return nil, configErrorf("unknown engine %q (auto, direct or net/http)", o.Engine)
	}
	if !direct || stdio {
		return newHTTPLink(hc), nil
	}
	return newDirectLink(hc, directConfig(u, o, dials)), nil
}

// directConfig is what the direct engine's pools are made with.
func directConfig(u *url.URL, o Options, dials *atomic.Int64) h1.Config {
	return h1.Config{Addr: h1.Addr(u), Size: max(o.PoolSize, 1), MaxBody: int(o.MaxResponseBytes),
		Dials: dials, Gate: h1.NewDialGate(maxConcurrentDials)}
}

// ProtocolVersion is the negotiated revision.
func (c *Client) ProtocolVersion() string { return c.rev }

// Info is what the server said about itself.
func (c *Client) Info() ServerInfo { return c.info }

// URL is the endpoint in use.
func (c *Client) URL() string { return c.url.String() }

// Dials is how many connections the client has opened so far.
func (c *Client) Dials() int64 { return c.dials.Load() }

// Engine names what carries the measured requests: direct or net/http for
// the HTTP transports, stdio for stdio.
func (c *Client) Engine() Engine { return c.link.engine() }

// PoolSize is the number of connections the client keeps.
func (c *Client) PoolSize() int { return max(c.opts.PoolSize, 1) }

// Close ends the shared session, if any, and releases what the sessions
// shared: idle connections, server processes.
func (c *Client) Close(ctx context.Context) {
	if c.shared != "" {
		s := c.newSession()
		s.id = c.shared
		_ = s.t.endSession(ctx)
		c.shared = ""
	}
	c.link.close()
	if c.auth != nil {
		c.auth.Close()
		c.auth = nil
	}
}

// StderrTail returns the last stderr lines of each stdio server process
// (nothing for the other transports).
func (c *Client) StderrTail() []string {
	if l, ok := c.link.(interface{ stderrTail() []string }); ok {
		return l.stderrTail()
	}
	return nil
}

// NewSession opens a session for one worker, with the handshake its
// transport and session mode call for (none on modern revisions).
func (c *Client) NewSession(ctx context.Context) (*Session, error) {
	s := c.newSession()
	if err := s.t.open(ctx); err != nil {
		return nil, err
	}
	return s, nil
}

func (c *Client) newSession() *Session {
	s := &Session{c: c}
	s.t = c.link.attach(s)
	return s
}

// Request sends one request outside the measured path (for probes and
// discovery) and returns a copy of its result.
func (c *Client) Request(ctx context.Context, s *Session, req Request, cursor string) (json.RawMessage, error) {
	p, err := s.Prepare(req)
	if err != nil {
		return nil, err
	}
	res, err := s.exchange(ctx, p, cursor)
	if err != nil {
		return nil, err
	}
	return bytes.Clone(res), nil
}

// ListTools reads every page of tools/list on s and returns the tools as
// raw JSON, with the number of pages.
func (c *Client) ListTools(ctx context.Context, s *Session) ([]json.RawMessage, int, error) {
	tools, pages, err := c.List(ctx, s, "tools/list", "tools")
	if err != nil {
		return nil, pages, err
	}
	return c.learnTools(tools), pages, nil
}

// List reads every page of a listing (tools/list, resources/list,
// resources/templates/list, prompts/list) on s and returns the entries of
// its member key as raw JSON, with the number of pages.
func (c *Client) List(ctx context.Context, s *Session, method, key string) ([]json.RawMessage, int, error) {
	var entries []json.RawMessage
	cursor, pages := "", 0
	for {
		// The session cuts off a listing whose cursors repeat or grow.
		res, err := c.Request(ctx, s, Request{Method: method}, cursor)
		if err != nil {
			return nil, pages, err
		}
		pages++
		var members map[string]json.RawMessage
		var list []json.RawMessage
		var next string
		err = json.Unmarshal(res, &members)
		if err == nil && members[key] != nil {
			err = json.Unmarshal(members[key], &list)
		}
		if err == nil && members["nextCursor"] != nil {
			err = json.Unmarshal(members["nextCursor"], &next)
		}
		if err != nil {
			return nil, pages, &Error{Kind: KindTransport, Msg: method + " result", Err: err}
		}
		entries = append(entries, list...)
		if next == "" {
			return entries, pages, nil
		}
		cursor = next
	}
}
