package mcp

import (
	"context"
	"fmt"
	"net/http"
	"time"

	"github.com/mcpbench/mcpbench/internal/h1"
)

// A session on an event loop sends everything on the loop's connections:
// its notifications, its answers to the server's requests and its DELETE
// too. Through net/http they would hold the loop, and every other session
// on it, for a round trip. Off a loop they go through net/http as before.

func (t *directTransport) onLoopPool() bool { return t.memo != nil }

func (t *directTransport) notify(ctx context.Context, method string) error {
	if !t.onLoopPool() {
		return t.httpTransport.notify(ctx, method)
	}
	head := t.messageHead(method, func() []byte {
		return wireHead("POST", t.s.c.url, t.buildHeader(&Prepared{req: Request{Method: method}}))
	})
	body := initializedNote
	if method != "notifications/initialized" {
		body = notification(method)
	}
	return t.sendOnLoop(ctx, &t.call, method, head, body, false)
}

// initializedNote is the notification every session sends, framed once.
var initializedNote = notification("notifications/initialized")

func (t *directTransport) respond(ctx context.Context, msg []byte) error {
	if !t.onLoopPool() {
		return t.httpTransport.respond(ctx, msg)
	}
	head := t.messageHead("", func() []byte { return wireHead("POST", t.s.c.url, t.buildHeader(&Prepared{})) })
	// Not the session's caller: the answer goes out mid-exchange.
	return t.sendOnLoop(ctx, new(h1.Caller), "answering the server's request", head, msg, false)
}

func (t *directTransport) endSession(ctx context.Context) error {
	s := t.s
	if !t.onLoopPool() || s.id == "" {
		return t.httpTransport.endSession(ctx)
	}
	head := t.messageHead(http.MethodDelete, func() []byte {
		h := t.buildHeader(&Prepared{})
		h.Del("Content-Type")
		return wireHead(http.MethodDelete, s.c.url, h)
	})
	s.id = ""
	return t.sendOnLoop(ctx, &t.call, "DELETE session", head, nil, true)
}

// sendOnLoop sends one message that is answered with a status alone, on
// the loop's connections, and reads that answer through with call: the
// session's own between its exchanges, whose last answer is then read. A
// DELETE may also be refused (405) or find the session gone (404).
func (t *directTransport) sendOnLoop(ctx context.Context, call *h1.Caller, what string, head, body []byte, deleting bool) error {
	start := time.Now()
	req := h1.Request{Head: head, Body: body, Deadline: start.Add(t.s.c.opts.Timeout)}
	if dl, ok := ctx.Deadline(); ok && dl.Before(req.Deadline) {
		req.Deadline = dl
	}
	c, _, err := t.pool.Get(start, req.Deadline)
	if err != nil {
		return wrapNet(err, what)
	}
	var a h1.Answer
	if err := call.Do(t.pool, c, &req, &a); err != nil {
		t.pool.Put(c, false)
		return wrapNet(err, what)
	}
	if a.Stream != nil {
		h1.Finish(t.pool, c, &a, h1.StreamLeftOpen, false, start)
	} else {
		c.Used(start)
		t.pool.Put(c, !a.Close && c.Buffered() == 0)
	}
	st := a.Status
	refused := deleting && (st == http.StatusMethodNotAllowed || st == http.StatusNotFound)
	if (st < 200 || st > 299) && !refused {
		return &Error{Kind: KindHTTPStatus, Status: st, Msg: fmt.Sprintf("%s: HTTP %d", what, st)}
	}
	return nil
}
