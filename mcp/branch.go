package mcp

import (
	"encoding/json"
	"errors"

	"github.com/mcpbench/mcpbench/internal/h1"
)

// What a multi-step session (a scenario) needs beyond one request at a
// time: the whole result of the last answer, several requests of one
// session in flight at once, and a session on connections of its own.

// ErrNoBranch is a transport that cannot carry two requests of one session
// at once: HTTP+SSE answers every request of a session on its one stream.
var ErrNoBranch = errors.New("the HTTP+SSE transport cannot send requests of one session in parallel")

// LastResult is the JSON-RPC result of the last request s sent, as the
// server wrote it (nil after an error answer), valid until s sends again.
func (s *Session) LastResult() json.RawMessage { return s.rep.Result }

// Branch returns a session on the same server session as s (its id, its
// stdio process) with buffers of its own, so that a caller can have
// several requests of one session in flight, one per branch. Closing a
// branch does not end the server session; closing s does.
func (s *Session) Branch() (*Session, error) {
	b := &Session{c: s.c, id: s.id, shared: true}
	switch t := s.t.(type) {
	case *legacyTransport:
		return nil, ErrNoBranch
	case *stdioTransport:
		// Ids are the process's, unique on it already.
		b.t = &stdioTransport{s: b, proc: t.proc}
		return b, nil
	}
	b.t = s.c.link.attach(b)
	// Requests in flight on one session must not share an id: each
	// branch numbers its own from a block of 2^32 apart from the
	// session's and the other branches'. Ids stay below 2^53, which a
	// server that reads numbers as doubles still tells apart.
	s.branches = s.branches%(1<<20) + 1
	start := s.branches << 32
	switch t := b.t.(type) {
	case *httpTransport:
		t.ids = start
	case *directTransport:
		t.ids = start
	}
	return b, nil
}

// Detached returns a client that speaks to c's server with c's negotiated
// revision but on poolSize connections of its own, dialled on first use:
// a session opened on it shares no connection with any other (connection
// churn). Close it when its sessions are done. Its dials count on c's
// counter. stdio has no connections to renew.
func (c *Client) Detached(poolSize int) (*Client, error) {
	if _, ok := c.link.(*stdioLink); ok {
		return nil, configErrorf("the stdio transport has no connections to open anew")
	}
	o := c.opts
	o.PoolSize = max(poolSize, 1)
	d := &Client{opts: o, url: c.url, rev: c.rev, meta: c.meta, info: c.info, maxBody: c.maxBody,
		hooks: c.hooks, dials: c.dials, tracer: c.tracer, abandons: c.abandons, inits: c.inits}
	if _, ok := c.link.(legacyLink); ok {
		// Each session holds a stream beside its POSTs, as in useLegacy.
		d.opts.PoolSize = 2 * o.PoolSize
	}
	if pl, ok := c.link.(directLink); ok {
		// On the engine's pools of its own; the loops' parse memos and
		// the bound on dials are the parent's, shared as they are by its
		// own sessions.
		hc, side := lazyHTTPClients(c.http(d.opts))
		cfg := directConfig(c.url, d.opts, c.dials)
		cfg.Gate = pl.pool.Gate()
		pool := h1.NewPool(cfg)
		d.link = directLink{httpLink{hc: hc, side: side}, pool, h1.NewLoopPools(pool), pl.memos, pl.heads}
		return d, nil
	}
	hc, err := c.http(d.opts).client()
	if err != nil {
		return nil, err
	}
	if _, ok := c.link.(legacyLink); ok {
		d.link = legacyLink{httpLink{hc: hc}}
		return d, nil
	}
	if d.link, err = streamableLink(c.url, d.opts, hc, c.dials); err != nil {
		return nil, err
	}
	return d, nil
}
