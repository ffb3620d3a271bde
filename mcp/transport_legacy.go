package mcp

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync/atomic"
	"time"
)

// The 2024-11-05 HTTP+SSE transport: each session holds a GET stream open,
// POSTs its requests to the endpoint the stream names, and reads the
// answers from the stream.

// legacyLink is HTTP+SSE's side of a client: as for Streamable HTTP over
// net/http, the pooled http.Client is all its sessions share.
type legacyLink struct{ httpLink }

func (l legacyLink) attach(s *Session) transport {
	return &legacyTransport{httpTransport: httpTransport{s: s, hc: l.hc, side: l.side}}
}

// legacyTransport is one session's HTTP+SSE: its stream, once open, and
// the Streamable HTTP transport's headers, POSTs and trace.
type legacyTransport struct {
	httpTransport
	stream *legacyStream
}

// open opens the session's stream with the handshake: one stream per
// session, whatever the session mode. Per-request sessions open theirs
// with each request (exchange), as on Streamable HTTP.
func (t *legacyTransport) open(ctx context.Context) error {
	if t.s.c.opts.SessionMode == SessionPerRequest {
		return nil
	}
	return t.s.initialize(ctx, t.s.c.rev)
}

// endSession closes the session's stream: an HTTP+SSE session has no
// DELETE and ends with its stream, so a per-request session's next
// request opens a new one instead of initializing the old one again.
func (t *legacyTransport) endSession(context.Context) error {
	t.close()
	return nil
}

// legacyStream is one session of the 2024-11-05 HTTP+SSE transport: a GET
// stream on which every answer arrives, and the endpoint it named for the
// POSTs. The worker that owns the session reads its own stream after each
// POST, so no goroutine or channel stands between it and the answer.
type legacyStream struct {
	body     io.ReadCloser
	cancel   context.CancelFunc
	endpoint *url.URL
	sse      *sseReader
	// timer closes the stream when an answer takes longer than the
	// timeout: the only way to stop a blocked read on it. A closed
	// stream ends the session; the next request opens a new one.
	timer   *time.Timer
	expired atomic.Bool
}

// openStream GETs the SSE stream and waits for its endpoint event.
func (t *legacyTransport) openStream(ctx context.Context) error {
	c := t.s.c
	sctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	req, err := http.NewRequestWithContext(sctx, http.MethodGet, c.url.String(), nil)
	if err != nil {
		cancel()
		return err
	}
	for k, v := range c.opts.Header {
		req.Header[k] = v
	}
	c.authHeader(req.Header)
	req.Header.Set("Accept", "text/event-stream")
	giveUp := time.AfterFunc(c.opts.Timeout, cancel)
	resp, err := t.hc.Do(req)
	if err != nil {
		giveUp.Stop()
		cancel()
		return wrapNet(err, "GET SSE stream")
	}
	if resp.StatusCode != http.StatusOK || !hasMediaType(resp.Header.Get("Content-Type"), "text/event-stream") {
		giveUp.Stop()
		drain(resp.Body)
		resp.Body.Close()
		cancel()
		return &Error{Kind: KindHTTPStatus, Status: resp.StatusCode, Msg: fmt.Sprintf("GET SSE stream: HTTP %d, %s", resp.StatusCode, resp.Header.Get("Content-Type"))}
	}
	ls := &legacyStream{body: resp.Body, cancel: cancel, sse: newSSEReader(c.maxBody)}
	ls.sse.reset(resp.Body)
	for {
		data, err := ls.sse.next()
		if err != nil {
			giveUp.Stop()
			ls.close()
			return &Error{Kind: KindTransport, Msg: "SSE stream ended before its endpoint event", Err: err}
		}
		if string(ls.sse.event) != "endpoint" {
			continue
		}
		ep, err := c.url.Parse(strings.TrimSpace(string(data)))
		if err != nil {
			giveUp.Stop()
			ls.close()
			return &Error{Kind: KindTransport, Msg: "bad endpoint event", Err: err}
		}
		ls.endpoint = ep
		break
	}
	giveUp.Stop()
	ls.timer = time.AfterFunc(time.Hour, func() { ls.expired.Store(true); ls.body.Close() })
	ls.timer.Stop()
	t.stream = ls
	return nil
}

func (ls *legacyStream) close() {
	if ls.timer != nil {
		ls.timer.Stop()
	}
	ls.cancel()
	ls.body.Close()
}

// exchange POSTs body to the session's endpoint and reads the stream
// until the answer to id.
func (t *legacyTransport) exchange(ctx context.Context, p *Prepared, body []byte, id int64, res *Result) (bool, error) {
	ctx, cancel := context.WithTimeout(t.traced(ctx), t.s.c.opts.Timeout)
	defer cancel()
	t.connWait = 0
	defer func() { res.ConnWait = t.connWait }() // the trace's GotConn measures it
	s := t.s
	if t.stream == nil {
		// A broken stream is a lost session: open a new one, as a
		// client would, and say so once.
		if err := t.openStream(ctx); err != nil {
			return false, err
		}
		if p.req.Method != "initialize" {
			if err := s.initialize(ctx, s.c.rev); err != nil {
				return false, err
			}
		}
	}
	ls := t.stream
	resp, err := t.post(ctx, t.hc, ls.endpoint, t.header(p), body)
	if err != nil {
		return false, &Error{Kind: classifyNetErr(err), Msg: p.req.Method, Err: err}
	}
	if resp.StatusCode == http.StatusNotFound {
		res.Received = drain(resp.Body)
		resp.Body.Close()
		t.close()
		return false, &Error{Kind: KindSessionExpired, Status: resp.StatusCode, Msg: "SSE session is gone"}
	}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		res.Received = drain(resp.Body)
		resp.Body.Close()
		kind := KindHTTPStatus
		if isAuthStatus(resp.StatusCode) {
			kind = KindAuth
		}
		return false, &Error{Kind: kind, Status: resp.StatusCode, Msg: fmt.Sprintf("%s: HTTP %d", p.req.Method, resp.StatusCode)}
	}
	// Some servers answer on the POST itself; most say 202 and answer on
	// the stream.
	if hasMediaType(resp.Header.Get("Content-Type"), "application/json") && resp.ContentLength != 0 {
		found, err := s.readJSON(resp.Body, id, res)
		resp.Body.Close()
		if found || err != nil {
			return found, err
		}
	} else {
		res.Received += drain(resp.Body)
		resp.Body.Close()
	}
	return t.await(ctx, ls, p, id, res)
}

// await reads the session's stream until the answer to id, for no longer
// than the timeout.
func (t *legacyTransport) await(ctx context.Context, ls *legacyStream, p *Prepared, id int64, res *Result) (bool, error) {
	s := t.s
	ls.timer.Reset(s.c.opts.Timeout)
	defer ls.timer.Stop()
	for {
		before := ls.sse.read
		data, err := ls.sse.next()
		res.Received += ls.sse.read - before
		if err != nil {
			t.close()
			if ls.expired.Load() {
				return false, &Error{Kind: KindTimeout, Msg: p.req.Method + ": no answer on the SSE stream in time"}
			}
			return false, &Error{Kind: KindTransport, Msg: "SSE stream broke", Err: err}
		}
		if len(data) == 0 || len(ls.sse.event) > 0 && string(ls.sse.event) != "message" {
			continue
		}
		if err := s.rep.parse(data); err != nil {
			return false, malformed("event on the SSE stream", data, err)
		}
		if s.rep.isNotification() {
			if msg := s.c.serverMessage(&s.rep, data); msg != nil {
				if err := t.respond(ctx, msg); err != nil {
					return false, err
				}
			}
			continue
		}
		if sameID(s.rep.ID, id, s.scratch[:0]) {
			s.resp.Reset()
			s.resp.Write(data)
			_ = s.rep.parse(s.resp.Bytes())
			return true, nil
		}
	}
}

// close closes the session's stream, if it has one.
func (t *legacyTransport) close() {
	if t.stream != nil {
		t.stream.close()
		t.stream = nil
	}
}

// notify POSTs a notification to the session's endpoint (before its
// stream is open, to the URL).
func (t *legacyTransport) notify(ctx context.Context, method string) error {
	if t.stream != nil {
		return t.postMessage(ctx, t.hc, t.stream.endpoint, method, notification(method))
	}
	return t.httpTransport.notify(ctx, method)
}

// cancel POSTs notifications/cancelled for a timed-out request to the
// session's endpoint, if its stream is still open.
func (t *legacyTransport) cancel(id int64) {
	if t.stream != nil {
		t.cancelAt(t.stream.endpoint, id)
	}
}

// respond POSTs an answer to the server's request to the session's
// endpoint, on the side client.
func (t *legacyTransport) respond(ctx context.Context, msg []byte) error {
	if t.stream == nil {
		return &Error{Kind: KindTransport, Msg: "a request from the server with no SSE stream open"}
	}
	return t.postMessage(ctx, t.sideClient(), t.stream.endpoint, "", msg)
}

// isLegacyHint tells from a failed initialize POST whether the URL may
// be a 2024-11-05 SSE endpoint, as the spec's backward-compatibility rules
// describe: a 4xx answer to the POST.
func isLegacyHint(err error) bool {
	e, ok := err.(*Error)
	if !ok {
		return false
	}
	return e.Kind == KindHTTPStatus && e.Status >= 400 && e.Status < 500
}
