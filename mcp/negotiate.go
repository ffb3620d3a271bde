package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
)

// Negotiation: which transport a client speaks, and which revision. The
// order follows the spec: server/discover for 2026-07-28 (unless an older
// revision was asked for), else initialize; on a 4xx to the initialize
// POST under --transport auto, the 2024-11-05 HTTP+SSE transport; on stdio,
// the same on every server process.

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
	if c.opts.Transport == TransportStdio {
		return c.dialStdio(ctx)
	}
	legacy := c.opts.Transport == TransportSSE
	if legacy {
		if IsModern(want) {
			return configErrorf("protocol %s has no HTTP+SSE transport", want)
		}
		if err := c.useLegacy(); err != nil {
			return err
		}
	} else if done, err := c.discoverFirst(ctx, c.newSession()); done || err != nil {
		return err
	}
	s := c.newSession()
	err := s.initialize(ctx, want)
	var auth *AuthError
	if err != nil && c.opts.Transport == TransportAuto && !errors.As(err, &auth) && isLegacyHint(errors.Unwrap(err)) {
		// A 4xx to the POST: perhaps a 2024-11-05 server, whose URL
		// answers GET with an SSE stream (the spec's fallback).
		if lerr := c.useLegacy(); lerr != nil {
			return lerr
		}
		s = c.newSession()
		if lerr := s.initialize(ctx, want); lerr != nil {
			return fmt.Errorf("%w (and as a legacy SSE endpoint: %v)", err, lerr)
		}
		legacy, err = true, nil
	}
	if err != nil {
		return err
	}
	if legacy {
		// Each session opens a stream of its own; this one is done.
		c.info.Transport = string(TransportSSE)
		s.t.close()
		return nil
	}
	if c.opts.SessionMode == SessionShared {
		c.shared = s.id
	} else {
		_ = s.t.endSession(ctx)
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
		if auth := authFailure(err); auth != nil {
			return false, auth
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
	info := ServerInfo{ProtocolVersion: rev, Transport: string(TransportHTTP), Capabilities: dr.Capabilities, Instructions: dr.Instructions, Supported: dr.SupportedVersions}
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
		metaClientCapabilities: c.opts.ClientRequests.capabilities(),
	})
	c.meta = meta
}

// useLegacy switches the client to the 2024-11-05 HTTP+SSE transport,
// whose sessions each hold a stream open beside their POSTs: the pool
// doubles, or the streams would take every connection the POSTs need.
// HTTP+SSE goes through net/http, so the direct engine's connections, if
// any, are of no more use.
func (c *Client) useLegacy() error {
	o := c.opts
	o.PoolSize = 2 * max(o.PoolSize, 1)
	hc, err := c.http(o).client()
	if err != nil {
		return err
	}
	c.link.close()
	c.link, c.opts.PoolSize = legacyLink{newHTTPLink(hc)}, o.PoolSize
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
	s.id = ""
	p, err := s.initRequest(offer)
	if err != nil {
		return err
	}
	res, err := s.exchange(ctx, p, "")
	for try := 0; try < 2 && isStray(err); try++ {
		// An answer to another request came first, on a connection the
		// server had answered on twice; the transport dropped that one.
		res, err = s.exchange(ctx, p, "")
	}
	c.keepInitWire(offer, p)
	if err != nil {
		if auth := authFailure(err); auth != nil {
			return auth
		}
		if KindOf(err) == KindHTTPStatus || KindOf(err) == KindTransport || KindOf(err) == KindJSONRPC || KindOf(err) == KindSessionExpired {
			return &notMCPError{err}
		}
		return err
	}
	ir, err := c.readInit(res)
	if err != nil || ir.ProtocolVersion == "" {
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
	s.renewal.started()
	if c.info.ProtocolVersion != "" {
		return s.t.notify(ctx, "notifications/initialized")
	}
	c.info = ServerInfo{Name: ir.ServerInfo.Name, Version: ir.ServerInfo.Version, ProtocolVersion: c.rev, Transport: string(TransportHTTP), Capabilities: ir.Capabilities, Instructions: ir.Instructions}
	return s.t.notify(ctx, "notifications/initialized")
}

// isStray reports whether err is an answer to another request.
func isStray(err error) bool {
	if err == nil {
		return false // before errors.As, whose target escapes: an allocation a session
	}
	var e *Error
	return errors.As(err, &e) && e.stray
}
