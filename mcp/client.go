package mcp

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"os"
	"slices"
	"strings"
	"sync/atomic"
	"time"
)

// Session modes of stateful revisions.
const (
	SessionPerWorker  = "per-worker"
	SessionShared     = "shared"
	SessionPerRequest = "per-request"
)

// Options configure a Client. The zero value of each field has a sensible
// meaning; URL is required.
type Options struct {
	URL             string
	Transport       string // auto, http (sse and stdio are separate transports)
	ProtocolVersion string // "", "auto" or a revision
	SessionMode     string // per-worker (default), shared, per-request
	Header          http.Header
	Timeout         time.Duration // per request; 0 means 30s
	// MaxResponseBytes bounds one answer; beyond it the request is a
	// transport error and its connection is dropped. 0 means 16 MiB.
	MaxResponseBytes int64
	// PoolSize is the number of connections kept open to the server: the
	// concurrency the caller will use, so no request waits for one.
	PoolSize  int
	Insecure  bool
	CACert    string // PEM file of extra roots
	Client    ClientInfo
	DialCount *atomic.Int64
	// Engine carries the Streamable HTTP POSTs: auto (direct for plain
	// HTTP without a proxy, else net/http), direct or net/http.
	Engine string
	// Command is the server to spawn for the stdio transport, and
	// StdioProcs how many copies of it (sessions are spread over them).
	Command    []string
	StdioProcs int
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
// its connection pool, the negotiated revision and the server's identity.
type Client struct {
	opts    Options
	url     *url.URL
	hc      *http.Client
	wire    *wirePool // the POST engine's connections when the direct engine carries them
	rev     string
	meta    []byte // modern _meta block, encoded once
	info    ServerInfo
	shared  string // session id shared by all workers in shared mode
	maxBody int
	// legacy is set for the 2024-11-05 HTTP+SSE transport.
	legacy bool
	// procs are the stdio server processes; sessions are spread over them.
	procs    []*stdioProc
	nextProc atomic.Int64
}

// NewHTTPClient builds the pooled HTTP client a load run needs: as many idle
// connections kept as there are workers, no compression (bytes are measured
// as sent), no redirects followed (a load tester must not wander off).
func NewHTTPClient(o Options) (*http.Client, *atomic.Int64, error) {
	pool := o.PoolSize
	if pool < 1 {
		pool = 1
	}
	dials := o.DialCount
	if dials == nil {
		dials = new(atomic.Int64)
	}
	dialer := &net.Dialer{Timeout: 10 * time.Second, KeepAlive: 30 * time.Second}
	gate := newDialGate()
	tr := &http.Transport{
		Proxy: http.ProxyFromEnvironment,
		DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
			dials.Add(1)
			defer gate.enter()()
			return dialer.DialContext(ctx, network, addr)
		},
		MaxIdleConns:        pool,
		MaxIdleConnsPerHost: pool,
		// The pool is the cap: a request that finds every connection busy
		// waits rather than dialling a spare that is thrown away after
		// (which a fast worker would otherwise do while its last
		// connection is still on its way back to the pool). Sessions
		// time such waits, so a pool too small for the load shows.
		MaxConnsPerHost:       pool,
		IdleConnTimeout:       90 * time.Second,
		DisableCompression:    true,
		ForceAttemptHTTP2:     true, // HTTP/2 where TLS offers it
		TLSHandshakeTimeout:   10 * time.Second,
		ExpectContinueTimeout: 0,
		WriteBufferSize:       16 << 10,
		ReadBufferSize:        16 << 10,
	}
	if o.Insecure || o.CACert != "" {
		cfg := &tls.Config{InsecureSkipVerify: o.Insecure} //nolint:gosec // asked for with --insecure
		if o.CACert != "" {
			pem, err := os.ReadFile(o.CACert)
			if err != nil {
				return nil, nil, configErrorf("--cacert: %v", err)
			}
			pool, err := x509.SystemCertPool()
			if err != nil || pool == nil {
				pool = x509.NewCertPool()
			}
			if !pool.AppendCertsFromPEM(pem) {
				return nil, nil, configErrorf("--cacert %s: no PEM certificate found", o.CACert)
			}
			cfg.RootCAs = pool
		}
		tr.TLSClientConfig = cfg
	}
	hc := &http.Client{
		Transport: tr,
		CheckRedirect: func(*http.Request, []*http.Request) error {
			return http.ErrUseLastResponse
		},
	}
	return hc, dials, nil
}

// maxConcurrentDials bounds connection attempts in flight. Ten thousand
// workers starting at once would otherwise send ten thousand SYNs
// together, overflow the server's accept queue and measure the kernel's
// retransmission back-off instead of the server.
const maxConcurrentDials = 128

// dialGate admits at most maxConcurrentDials dials at a time.
type dialGate chan struct{}

func newDialGate() dialGate { return make(dialGate, maxConcurrentDials) }

// enter waits for a place and returns the function that leaves it.
func (g dialGate) enter() func() {
	g <- struct{}{}
	return func() { <-g }
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

// Dial negotiates with the server at o.URL: server/discover for 2026-07-28,
// else initialize. The probe session it opens for initialize is closed again;
// workers open their own with NewSession.
func Dial(ctx context.Context, o Options) (*Client, error) {
	if o.Transport == "" {
		o.Transport = "auto"
	}
	var u *url.URL
	if o.Transport == "stdio" {
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
	hc, dials, err := NewHTTPClient(o)
	if err != nil {
		return nil, err
	}
	c := &Client{opts: o, url: u, hc: hc, maxBody: int(o.MaxResponseBytes)}
	c.opts.DialCount = dials
	switch o.Engine {
	case "", EngineAuto:
		if o.Transport != "stdio" && wireEligible(u) {
			c.wire = newWirePool(u, o, max(o.PoolSize, 1), dials)
		}
	case EngineDirect:
		if o.Transport != "stdio" {
			if !wireEligible(u) {
				return nil, configErrorf("the direct engine serves plain http:// without a proxy; use --engine net/http")
			}
			c.wire = newWirePool(u, o, max(o.PoolSize, 1), dials)
		}
	case EngineNetHTTP:
	default:
		return nil, configErrorf("unknown engine %q (auto, direct or net/http)", o.Engine)
	}
	if err := c.negotiate(ctx); err != nil {
		hc.CloseIdleConnections()
		return nil, err
	}
	return c, nil
}

// ProtocolVersion is the negotiated revision.
func (c *Client) ProtocolVersion() string { return c.rev }

// Info is what the server said about itself.
func (c *Client) Info() ServerInfo { return c.info }

// URL is the endpoint in use.
func (c *Client) URL() string { return c.url.String() }

// Dials is how many connections the client has opened so far.
func (c *Client) Dials() int64 { return c.opts.DialCount.Load() }

// Engine names what carries the measured requests.
func (c *Client) Engine() string {
	switch {
	case len(c.procs) > 0:
		return "stdio"
	case c.wire != nil && !c.legacy:
		return EngineDirect
	}
	return EngineNetHTTP
}

// PoolSize is the number of connections the client keeps.
func (c *Client) PoolSize() int { return max(c.opts.PoolSize, 1) }

// Close drops idle connections (and the shared session, if any).
func (c *Client) Close(ctx context.Context) {
	c.closeProcs()
	if c.wire != nil {
		defer c.wire.close()
	}
	if c.shared != "" {
		s := c.newSession()
		s.id = c.shared
		_ = s.deleteSession(ctx)
		c.shared = ""
	}
	c.hc.CloseIdleConnections()
}

// ErrNotMCP marks a server that answered but not as an MCP server.
var ErrNotMCP = errors.New("the server did not answer as an MCP server")

// notMCPError is a failed initialize; it unwraps to the classified cause.
type notMCPError struct{ cause error }

func (e *notMCPError) Error() string {
	return fmt.Sprintf("%v: initialize failed: %v", ErrNotMCP, e.cause)
}
func (e *notMCPError) Unwrap() error   { return e.cause }
func (e *notMCPError) Is(t error) bool { return t == ErrNotMCP }

func (c *Client) negotiate(ctx context.Context) error {
	want := c.opts.ProtocolVersion
	if c.opts.Transport == "stdio" {
		return c.dialStdio(ctx)
	}
	if c.opts.Transport == "sse" {
		if IsModern(want) {
			return configErrorf("protocol %s has no HTTP+SSE transport", want)
		}
		if err := c.useLegacy(); err != nil {
			return err
		}
	}
	if !c.legacy {
		if done, err := c.discoverFirst(ctx, c.newSession()); done || err != nil {
			return err
		}
	}
	s := c.newSession()
	err := s.initialize(ctx, want)
	if err != nil && c.opts.Transport == "auto" && isLegacyHint(errors.Unwrap(err)) {
		// A 4xx to the POST: perhaps a 2024-11-05 server, whose URL
		// answers GET with an SSE stream (the spec's fallback).
		if lerr := c.useLegacy(); lerr != nil {
			return lerr
		}
		s = c.newSession()
		if lerr := s.initialize(ctx, want); lerr != nil {
			c.legacy = false
			return fmt.Errorf("%w (and as a legacy SSE endpoint: %v)", err, lerr)
		}
		err = nil
	}
	if err != nil {
		return err
	}
	if c.legacy {
		c.info.Transport = "sse"
		s.dropLegacy()
		return nil
	}
	if c.opts.SessionMode == SessionShared {
		c.shared = s.id
	} else {
		_ = s.deleteSession(ctx)
	}
	return nil
}

// discover tries server/discover. It returns false, nil when the server is
// of the initialize era and negotiation should fall back.
func (c *Client) discover(ctx context.Context, want string, s *Session) (bool, error) {
	rev := Rev20260728
	if want != "" {
		rev = want
	}
	c.setModern(rev)
	p, err := s.Prepare(Request{Method: "server/discover"})
	if err != nil {
		return false, err
	}
	res, err := s.exchange(ctx, p, "")
	if err != nil {
		var e *Error
		if errors.As(err, &e) && (e.Kind == KindConnect || e.Kind == KindTimeout) {
			return false, err
		}
		if errors.As(err, &e) && e.Kind == KindJSONRPC && e.Code == codeUnsupportedVersion {
			// A modern server that does not speak our revision: take the
			// newest one it lists that we know.
			var data struct {
				Supported []string `json:"supported"`
			}
			_ = json.Unmarshal(e.data, &data)
			for _, v := range Revisions() {
				if slices.Contains(data.Supported, v) && IsModern(v) && v != rev {
					return c.discover(ctx, v, s)
				}
			}
			return false, nil
		}
		return false, nil // an initialize-era server: fall back
	}
	var dr struct {
		SupportedVersions []string                   `json:"supportedVersions"`
		Capabilities      json.RawMessage            `json:"capabilities"`
		Meta              map[string]json.RawMessage `json:"_meta"`
		Instructions      string                     `json:"instructions"`
		ServerInfo        *ClientInfo                `json:"serverInfo"`
	}
	if err := json.Unmarshal(res, &dr); err != nil || dr.SupportedVersions == nil {
		return false, nil
	}
	if !slices.Contains(dr.SupportedVersions, rev) {
		for _, v := range Revisions() {
			if slices.Contains(dr.SupportedVersions, v) && IsModern(v) {
				c.setModern(v)
				rev = v
				break
			}
		}
		if !IsModern(c.rev) || !slices.Contains(dr.SupportedVersions, rev) {
			return false, nil
		}
	}
	info := ServerInfo{ProtocolVersion: rev, Transport: "http", Capabilities: dr.Capabilities, Instructions: dr.Instructions, Supported: dr.SupportedVersions}
	if raw, ok := dr.Meta[metaServerInfo]; ok {
		var si ClientInfo
		if json.Unmarshal(raw, &si) == nil {
			info.Name, info.Version = si.Name, si.Version
		}
	} else if dr.ServerInfo != nil {
		info.Name, info.Version = dr.ServerInfo.Name, dr.ServerInfo.Version
	}
	c.info = info
	return true, nil
}

func (c *Client) setModern(rev string) {
	c.rev = rev
	meta, _ := json.Marshal(map[string]any{
		metaProtocolVersion:    rev,
		metaClientInfo:         c.opts.Client,
		metaClientCapabilities: map[string]any{},
	})
	c.meta = meta
}

// useLegacy switches the client to the 2024-11-05 HTTP+SSE transport,
// whose sessions each hold a stream open beside their POSTs: the pool
// doubles, or the streams would take every connection the POSTs need.
func (c *Client) useLegacy() error {
	if c.legacy {
		return nil
	}
	c.legacy = true
	o := c.opts
	o.PoolSize = 2 * max(o.PoolSize, 1)
	hc, _, err := NewHTTPClient(o)
	if err != nil {
		return err
	}
	c.hc.CloseIdleConnections()
	c.hc, c.opts.PoolSize = hc, o.PoolSize
	return nil
}

// negotiateOn negotiates on one stdio session (each process is a session
// of its own): server/discover first, else initialize.
func (c *Client) negotiateOn(ctx context.Context, s *Session) error {
	if done, err := c.discoverFirst(ctx, s); done || err != nil {
		return err
	}
	return s.initialize(ctx, c.opts.ProtocolVersion)
}

// discoverFirst tries server/discover on s unless an older revision was
// asked for. done means negotiation is over; a server that refuses the
// revision asked for ends it with an error, one that does not know
// server/discover leaves it to initialize.
func (c *Client) discoverFirst(ctx context.Context, s *Session) (done bool, err error) {
	want := c.opts.ProtocolVersion
	if want != "" && !IsModern(want) {
		return false, nil
	}
	ok, err := c.discover(ctx, want, s)
	switch {
	case err != nil:
		return true, err
	case ok:
		return true, nil
	case want != "":
		return true, fmt.Errorf("%w: server/discover refused protocol %s", ErrNotMCP, want)
	}
	return false, nil
}

// NewSession opens a session for one worker: nothing to do on modern
// revisions, initialize on stateful ones (or join the shared session).
func (c *Client) NewSession(ctx context.Context) (*Session, error) {
	s := c.newSession()
	if len(c.procs) > 0 {
		s.stdio = c.procs[int(c.nextProc.Add(1)-1)%len(c.procs)]
		return s, nil
	}
	if IsModern(c.rev) {
		return s, nil
	}
	if c.legacy {
		// One stream per session: initialize opens it.
		if err := s.initialize(ctx, c.rev); err != nil {
			return nil, err
		}
		return s, nil
	}
	switch c.opts.SessionMode {
	case SessionShared:
		s.id = c.shared
		s.shared = true
		return s, nil
	case SessionPerRequest:
		return s, nil // each Do opens and closes its own
	}
	if err := s.initialize(ctx, c.rev); err != nil {
		return nil, err
	}
	return s, nil
}

func (c *Client) newSession() *Session {
	return &Session{c: c}
}

// initialize runs the initialize handshake on s and records what the server
// said. want "" takes the newest initialize-era revision.
func (s *Session) initialize(ctx context.Context, want string) error {
	c := s.c
	offer := want
	if offer == "" || IsModern(offer) {
		offer = Rev20251125
	}
	// Workers run this handshake concurrently on a negotiated client: the
	// shared fields are written only when negotiation changes them.
	if c.rev != offer {
		c.rev = offer
	}
	if c.meta != nil {
		c.meta = nil
	}
	params, _ := json.Marshal(map[string]any{
		"protocolVersion": offer,
		"capabilities":    map[string]any{},
		"clientInfo":      c.opts.Client,
	})
	s.id = ""
	p, err := s.Prepare(Request{Method: "initialize", Params: params})
	if err != nil {
		return err
	}
	res, err := s.exchange(ctx, p, "")
	if err != nil {
		if KindOf(err) == KindHTTPStatus || KindOf(err) == KindTransport || KindOf(err) == KindJSONRPC || KindOf(err) == KindSessionExpired {
			return &notMCPError{err}
		}
		return err
	}
	var ir struct {
		ProtocolVersion string          `json:"protocolVersion"`
		Capabilities    json.RawMessage `json:"capabilities"`
		ServerInfo      ClientInfo      `json:"serverInfo"`
		Instructions    string          `json:"instructions"`
	}
	if err := json.Unmarshal(res, &ir); err != nil || ir.ProtocolVersion == "" {
		return fmt.Errorf("%w: initialize result has no protocolVersion", ErrNotMCP)
	}
	if !slices.Contains(Revisions(), ir.ProtocolVersion) || IsModern(ir.ProtocolVersion) {
		return fmt.Errorf("server chose protocol version %q, which mcpbench does not speak", ir.ProtocolVersion)
	}
	if want != "" && !IsModern(want) && ir.ProtocolVersion != want {
		return fmt.Errorf("asked for protocol %s, server chose %s", want, ir.ProtocolVersion)
	}
	if c.rev != ir.ProtocolVersion {
		c.rev = ir.ProtocolVersion
	}
	if c.info.ProtocolVersion != "" {
		return s.notify(ctx, "notifications/initialized")
	}
	c.info = ServerInfo{Name: ir.ServerInfo.Name, Version: ir.ServerInfo.Version, ProtocolVersion: c.rev, Transport: "http", Capabilities: ir.Capabilities, Instructions: ir.Instructions}
	return s.notify(ctx, "notifications/initialized")
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
	var tools []json.RawMessage
	cursor, pages := "", 0
	seen := map[string]bool{}
	for {
		res, err := c.Request(ctx, s, Request{Method: "tools/list"}, cursor)
		if err != nil {
			return nil, pages, err
		}
		pages++
		var page struct {
			Tools      []json.RawMessage `json:"tools"`
			NextCursor string            `json:"nextCursor"`
		}
		if err := json.Unmarshal(res, &page); err != nil {
			return nil, pages, &Error{Kind: KindTransport, Msg: "tools/list result", Err: err}
		}
		tools = append(tools, page.Tools...)
		if page.NextCursor == "" {
			return tools, pages, nil
		}
		if seen[page.NextCursor] || pages >= 10000 {
			return nil, pages, &Error{Kind: KindTransport, Msg: "tools/list: nextCursor never ends"}
		}
		seen[page.NextCursor] = true
		cursor = page.NextCursor
	}
}
