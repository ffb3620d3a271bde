package mcp

import (
	"bytes"
	"encoding/json"
	"sync/atomic"
)

// A scenario opens a session per user and per run of its steps, each with
// an initialize whose request is the same bytes every time (but for its
// id) and whose answer, from one server, is most often the same bytes too.
// Marshalling the params, reading them back to frame them, and decoding
// the answer with encoding/json took most of a session's allocations (95
// of 130) and a quarter of its opening's CPU. So a client frames its
// initialize once, and takes the last answer's reading when the same bytes
// come again. Both are immutable values behind atomic pointers: sessions
// open on many goroutines at once.

// initCache is what a client (and its detached clients) keep of
// initialize.
type initCache struct {
	frame  atomic.Pointer[initFrame]
	answer atomic.Pointer[initAnswer]
}

// initFrame is the initialize request framed for an offered revision,
// and its head on the direct engine once one was sent (headFor checks it
// is still good).
type initFrame struct {
	offer  string
	params json.RawMessage
	head   []byte // frameHead's: never written once made
	wire   *wireRequest
}

// initAnswer is an initialize result as it came and what it said.
type initAnswer struct {
	raw []byte
	ir  initResult
}

// initResult is what the client reads of an initialize result.
type initResult struct {
	ProtocolVersion string          `json:"protocolVersion"`
	Capabilities    json.RawMessage `json:"capabilities"`
	ServerInfo      ClientInfo      `json:"serverInfo"`
	Instructions    string          `json:"instructions"`
}

// initRequest is the initialize request offering offer, framed once per
// client; a Prepared of its own for the session (it keeps per-session
// state), on the shared bytes.
func (s *Session) initRequest(offer string) (*Prepared, error) {
	cache := s.c.inits
	if cache != nil {
		if f := cache.frame.Load(); f != nil && f.offer == offer {
			return &Prepared{req: Request{Method: "initialize", Params: f.params}, head: f.head, wire: f.wire}, nil
		}
	}
	params, _ := json.Marshal(map[string]any{
		"protocolVersion": offer,
		"capabilities":    s.c.opts.ClientRequests.capabilities(),
		"clientInfo":      s.c.opts.Client,
	})
	p, err := s.Prepare(Request{Method: "initialize", Params: params})
	if err == nil && cache != nil {
		cache.frame.Store(&initFrame{offer: offer, params: params, head: p.head})
	}
	return p, err
}

// keepInitWire keeps the head p, the initialize offering offer, was sent
// with, for the client's next sessions.
func (c *Client) keepInitWire(offer string, p *Prepared) {
	cache := c.inits
	if cache == nil || p.wire == nil {
		return
	}
	if f := cache.frame.Load(); f != nil && f.offer == offer && f.wire != p.wire {
		cache.frame.Store(&initFrame{offer: offer, params: f.params, head: f.head, wire: p.wire})
	}
}

// readInit reads an initialize result: the last one's reading when res is
// the same bytes.
func (c *Client) readInit(res []byte) (initResult, error) {
	cache := c.inits
	if cache != nil {
		if a := cache.answer.Load(); a != nil && bytes.Equal(a.raw, res) {
			return a.ir, nil
		}
	}
	var ir initResult
	if err := json.Unmarshal(res, &ir); err != nil {
		return ir, err
	}
	if cache != nil {
		cache.answer.Store(&initAnswer{raw: bytes.Clone(res), ir: ir})
	}
	return ir, nil
}
