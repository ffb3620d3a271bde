package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"sync/atomic"
	"testing"
	"time"
)

// The seam between sessions and their wire: a transport that lives
// entirely in this file, plugged into a client through its link, carries
// negotiation and measured requests through the ordinary Session.Do path.

// fakeLink is an in-memory server. stateful makes it an initialize-era
// server, which does not know server/discover.
type fakeLink struct {
	stateful bool
	closed   atomic.Bool
	notes    atomic.Int64 // notifications received
	answers  atomic.Int64 // answers to requests of its own
}

func (l *fakeLink) attach(s *Session) transport { return &fakeTransport{s: s, link: l} }
func (l *fakeLink) engine() Engine              { return "fake" }
func (l *fakeLink) close()                      { l.closed.Store(true) }

type fakeTransport struct {
	s      *Session
	link   *fakeLink
	ids    int64
	closed bool
}

func (t *fakeTransport) open(context.Context) error { return nil }
func (t *fakeTransport) nextID() int64              { t.ids++; return t.ids }
func (t *fakeTransport) close()                     { t.closed = true }
func (t *fakeTransport) endSession(context.Context) error {
	return nil
}

func (t *fakeTransport) cancel(int64) {}

func (t *fakeTransport) respond(_ context.Context, msg []byte) error {
	t.link.answers.Add(1)
	return nil
}

func (t *fakeTransport) notify(_ context.Context, method string) error {
	if method != "notifications/initialized" {
		return fmt.Errorf("unexpected notification %s", method)
	}
	t.link.notes.Add(1)
	return nil
}

// exchange answers the request in body as a small MCP server would, and
// hands the answer to the session as a JSON body.
func (t *fakeTransport) exchange(_ context.Context, _ *Prepared, body []byte, id int64, res *Result) (bool, error) {
	var req struct {
		Method string `json:"method"`
		Params struct {
			Name      string          `json:"name"`
			Arguments json.RawMessage `json:"arguments"`
			Cursor    string          `json:"cursor"`
		} `json:"params"`
	}
	if err := json.Unmarshal(body, &req); err != nil {
		return false, &Error{Kind: KindTransport, Msg: "fake: bad request", Err: err}
	}
	var result string
	switch {
	case req.Method == "server/discover" && !t.link.stateful:
		result = `{"supportedVersions":["2026-07-28"],"capabilities":{"tools":{}},"serverInfo":{"name":"fake","version":"1"}}`
	case req.Method == "initialize" && t.link.stateful:
		result = `{"protocolVersion":"2025-11-25","capabilities":{"tools":{}},"serverInfo":{"name":"fake-stateful","version":"1"}}`
	case req.Method == "tools/list" && req.Params.Cursor == "":
		result = `{"tools":[{"name":"echo","inputSchema":{"type":"object"}}],"nextCursor":"page-2"}`
	case req.Method == "tools/list" && req.Params.Cursor == "page-2":
		result = `{"tools":[{"name":"fail","inputSchema":{"type":"object"}}]}`
	case req.Method == "prompts/list" && req.Params.Cursor == "":
		result = `{"prompts":[{"name":"a"}],"nextCursor":"p2"}`
	case req.Method == "prompts/list":
		result = `{"prompts":[{"name":"b"}]}`
	case req.Method == "resources/list": // a cursor that never changes
		result = `{"resources":[],"nextCursor":"again"}`
	case req.Method == "tools/call" && req.Params.Name == "echo":
		result = fmt.Sprintf(`{"content":[],"structuredContent":%s}`, req.Params.Arguments)
	case req.Method == "tools/call":
		result = `{"content":[{"type":"text","text":"no"}],"isError":true}`
	default:
		answer := fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"error":{"code":-32601,"message":"no such method"}}`, id)
		return t.s.readJSON(bytes.NewReader([]byte(answer)), id, res)
	}
	answer := fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"result":%s}`, id, result)
	return t.s.readJSON(bytes.NewReader([]byte(answer)), id, res)
}

func fakeClient(t *testing.T, l *fakeLink) *Client {
	t.Helper()
	c := &Client{
		opts:    Options{Transport: TransportHTTP, SessionMode: SessionPerWorker, Timeout: time.Second, Client: ClientInfo{Name: "test", Version: "1"}},
		link:    l,
		maxBody: 1 << 20,
	}
	if err := c.negotiate(context.Background()); err != nil {
		t.Fatal(err)
	}
	return c
}

func TestFakeTransport(t *testing.T) {
	ctx := context.Background()
	for _, l := range []*fakeLink{{}, {stateful: true}} {
		c := fakeClient(t, l)
		want := map[bool]string{false: Rev20260728, true: Rev20251125}[l.stateful]
		if c.ProtocolVersion() != want || c.Engine() != "fake" {
			t.Fatalf("negotiated %s on %s, want %s on fake", c.ProtocolVersion(), c.Engine(), want)
		}
		s, err := c.NewSession(ctx)
		if err != nil {
			t.Fatal(err)
		}
		list, _ := s.Prepare(Request{Method: "tools/list"})
		if r := s.Do(ctx, list, ""); r.Kind != OK || r.NextCursor != "page-2" || r.Sent == 0 || r.Received == 0 {
			t.Fatalf("tools/list: %+v", r)
		}
		tools, pages, err := c.ListTools(ctx, s)
		if err != nil || len(tools) != 2 || pages != 2 {
			t.Fatalf("ListTools: %d tools in %d pages, %v", len(tools), pages, err)
		}
		echo, _ := s.Prepare(Request{Method: "tools/call", Tool: "echo", Arguments: []byte(`{"message": "hi"}`)})
		if r := s.Do(ctx, echo, ""); r.Kind != OK || string(r.Structured) != `{"message":"hi"}` {
			t.Fatalf("tools/call echo: %+v (%s)", r, r.Structured)
		}
		fail, _ := s.Prepare(Request{Method: "tools/call", Tool: "fail"})
		if r := s.Do(ctx, fail, ""); r.Kind != KindToolError {
			t.Fatalf("tools/call fail: %s: %v", r.Kind, r.Err)
		}
		ping, _ := s.Prepare(Request{Method: "ping"})
		if r := s.Do(ctx, ping, ""); r.Kind != KindJSONRPC {
			t.Fatalf("ping: %s: %v", r.Kind, r.Err)
		}
		if err := s.Close(ctx); err != nil || !s.t.(*fakeTransport).closed {
			t.Fatalf("session close: %v", err)
		}
		c.Close(ctx)
		if !l.closed.Load() {
			t.Fatal("the client did not close its link")
		}
		if n := l.notes.Load(); l.stateful && n != 1 {
			t.Fatalf("%d initialized notifications, want 1", n)
		}
	}
}
