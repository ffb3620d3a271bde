package mcp

import (
	"bytes"
	"context"
	"encoding/base64"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/http/httptrace"
	"net/textproto"
	"net/url"
	"strings"
	"sync/atomic"
	"time"

	"github.com/mcpbench/mcpbench/mcp/internal/connbook"
)

// Streamable HTTP over net/http. The direct engine (transport_direct.go)
// and HTTP+SSE (transport_legacy.go) build on this transport: they replace
// how requests go out, and keep its headers, notifications, session ends
// and answer handling.

// httpLink is net/http's side of Streamable HTTP: the pooled http.Client
// (NewHTTPClient) and its side client are all its sessions share.
type httpLink struct {
	hc *http.Client
	// side carries what is sent while a measured request holds its
	// connection (answers to the server's requests, resumed streams):
	// from the pool of measured requests, each session would wait for a
	// connection another one holds.
	side *http.Client
}

// newHTTPLink pairs hc with a side client on a pool of its own.
func newHTTPLink(hc *http.Client) httpLink { return httpLink{hc: hc, side: sideClient(hc)} }

// sideClient is hc's settings on a small pool of its own, without hc's cap
// on connections.
func sideClient(hc *http.Client) *http.Client {
	side := *hc
	uncapped := func(tr *http.Transport) *http.Transport {
		tr = tr.Clone()
		sideSettings(tr)
		return tr
	}
	switch tr := hc.Transport.(type) {
	case *http.Transport:
		side.Transport = uncapped(tr)
	case *connbook.Transport: // its clone dials through the same book
		side.Transport = tr.Over(uncapped(tr.Base()))
	}
	return &side
}

// sideSettings are the side client's: no cap, a few kept.
func sideSettings(tr *http.Transport) { tr.MaxConnsPerHost, tr.MaxIdleConnsPerHost = 0, 4 }

func (l httpLink) attach(s *Session) transport { return &httpTransport{s: s, hc: l.hc, side: l.side} }
func (httpLink) engine() Engine                { return EngineNetHTTP }

func (l httpLink) close() {
	l.hc.CloseIdleConnections()
	if l.side != nil {
		l.side.CloseIdleConnections()
	}
}

// httpTransport is one session's Streamable HTTP over net/http.
type httpTransport struct {
	s    *Session
	hc   *http.Client
	side *http.Client // nil: hc
	ids  int64        // the last request id used
	// listening is the session's standing GET stream (transport_http_listen.go), if open.
	listening *listener

	// Connection wait of the current request, timed by an HTTP trace.
	trace       *httptrace.ClientTrace
	traceParent context.Context
	traceCtx    context.Context
	getConn     time.Time
	connWait    time.Duration // the current request's wait for a connection (GotConn)
	// What of the current request's answer came, as the trace saw it (on
	// net/http's goroutines): for saying what the server did.
	firstByte atomic.Bool
	interim   atomic.Int32
	// sent is the body of the POST in flight, for getBody.
	sent    []byte
	getBody func() (io.ReadCloser, error)
}

// bodyReader is a request body net/http can close. Each request has its
// own: net/http may still hold a request's body after RoundTrip returns,
// so one reader reset for the next request could be read empty (a
// request sent again on a fresh connection went out with no body).
type bodyReader struct{ bytes.Reader }

func (*bodyReader) Close() error { return nil }

// open begins a session as the session mode says: nothing to do on
// modern revisions, initialize on stateful ones (or join the shared
// session).
func (t *httpTransport) open(ctx context.Context) error {
	listen, err := t.begin(ctx)
	if listen {
		t.listen()
	}
	return err
}

// begin is open's handshake; it reports whether the session is one of
// its own that may have a GET stream (transport_http_listen.go).
func (t *httpTransport) begin(ctx context.Context) (bool, error) {
	s := t.s
	if IsModern(s.c.rev) {
		return false, nil
	}
	switch s.c.opts.SessionMode {
	case SessionShared:
		s.id = s.c.shared
		s.shared = true
		return false, nil
	case SessionPerRequest:
		return false, nil // each Do opens and closes its own
	}
	if err := s.initialize(ctx, s.c.rev); err != nil {
		return false, err
	}
	return true, nil
}

func (t *httpTransport) nextID() int64 {
	t.ids++
	return t.ids
}

func (t *httpTransport) close() { t.stopListening() }

// exchange POSTs body and reads the answer to id, as JSON or as an SSE
// stream, into the session's reply.
func (t *httpTransport) exchange(ctx context.Context, p *Prepared, body []byte, id int64, res *Result) (bool, error) {
	ctx, cancel := context.WithTimeout(t.traced(ctx), t.s.c.opts.Timeout)
	t.connWait = 0
	t.firstByte.Store(false)
	t.interim.Store(0)
	resp, err := t.post(ctx, t.hc, t.s.c.url, t.header(p), body)
	if err != nil {
		cancel()
		res.ConnWait = t.connWait
		return false, t.postError(p, err)
	}
	t.s.stream = streamEnded
	head := headOf(resp)
	found, err := t.answer(ctx, p, id, res, &head, resp.Body)
	t.finish(resp.Body, cancel)
	res.ConnWait = t.connWait
	return found, err
}

// finish closes an answer's body. A stream left at its response is read
// to its end from a goroutine, off the clock, so its connection goes back
// to the pool when the server closes it rather than being dropped.
func (t *httpTransport) finish(body io.ReadCloser, cancel context.CancelFunc) {
	if t.s.stream != streamLeftOpen {
		body.Close()
		cancel()
		return
	}
	t.s.stream = streamEnded
	go func() {
		drain(body)
		body.Close()
		cancel()
	}()
}

// traced returns ctx with the session's connection trace, made once per
// parent context so the hot path does not build a trace per request.
func (t *httpTransport) traced(ctx context.Context) context.Context {
	if t.traceCtx != nil && t.traceParent == ctx {
		return t.traceCtx
	}
	if ct := httptrace.ContextClientTrace(ctx); ct != nil && ct == t.trace {
		return ctx // already traced: a request sent on behalf of another
	}
	// A fresh trace each time: WithClientTrace chains the new trace to any
	// in ctx by changing it, so a trace must never be attached twice.
	t.trace = &httptrace.ClientTrace{
		GetConn:              func(string) { t.getConn = time.Now() },
		GotConn:              func(httptrace.GotConnInfo) { t.connWait = time.Since(t.getConn) },
		GotFirstResponseByte: func() { t.firstByte.Store(true) },
		Got1xxResponse: func(code int, _ textproto.MIMEHeader) error {
			t.interim.Store(int32(code))
			return nil
		},
	}
	t.traceParent, t.traceCtx = ctx, httptrace.WithClientTrace(ctx, t.trace)
	return t.traceCtx
}

// header returns p's request headers, built once per session id and
// revision. A map handed to the transport is never changed afterwards, only
// replaced, since the transport may still be reading it.
func (t *httpTransport) header(p *Prepared) http.Header {
	s := t.s
	tok := s.c.authToken()
	if p.hdr != nil && p.hdrSession == s.id && p.hdrRev == s.c.rev && p.hdrAuth == tok {
		return p.hdr
	}
	p.hdr, p.hdrSession, p.hdrRev, p.hdrAuth = t.buildHeader(p), s.id, s.c.rev, tok
	return p.hdr
}

func (t *httpTransport) buildHeader(p *Prepared) http.Header {
	s := t.s
	h := make(http.Header, 8+len(s.c.opts.Header))
	for k, v := range s.c.opts.Header {
		h[k] = v
	}
	h["Content-Type"] = []string{"application/json"}
	h["Accept"] = []string{"application/json, text/event-stream"}
	if u := s.c.url.User; u != nil && h.Get("Authorization") == "" {
		// Credentials in the URL, as net/http's client would send them.
		pw, _ := u.Password()
		h.Set("Authorization", "Basic "+base64.StdEncoding.EncodeToString([]byte(u.Username()+":"+pw)))
	}
	s.c.authHeader(h)
	if s.c.rev != "" && s.c.rev >= Rev20250618 {
		h["Mcp-Protocol-Version"] = []string{s.c.rev}
	}
	if IsModern(s.c.rev) && p.req.Method != "" {
		h["Mcp-Method"] = []string{p.req.Method}
		if p.nameHeader != "" {
			h["Mcp-Name"] = []string{p.nameHeader}
		}
		for _, kv := range p.params {
			h[kv[0]] = []string{kv[1]}
		}
	}
	if s.id != "" {
		h["Mcp-Session-Id"] = []string{s.id}
	}
	if p.traceparent != "" {
		h["Traceparent"] = []string{p.traceparent}
	}
	return h
}

// post sends body to u on hc and returns the response; the caller closes
// its body.
func (t *httpTransport) post(ctx context.Context, hc *http.Client, u *url.URL, h http.Header, body []byte) (*http.Response, error) {
	t.sent = body
	if t.getBody == nil {
		// net/http sends a request again on a fresh connection when the
		// one it chose was closed by the server first; it can only if
		// it can have the body again.
		t.getBody = func() (io.ReadCloser, error) {
			r := &bodyReader{}
			r.Reset(t.sent)
			return r, nil
		}
	}
	return postWith(ctx, hc, u, h, body, t.getBody)
}

// postWith POSTs body, each time through a reader of its own (see
// bodyReader); getBody gives net/http the body again, nil for one made
// here.
func postWith(ctx context.Context, hc *http.Client, u *url.URL, h http.Header, body []byte, getBody func() (io.ReadCloser, error)) (*http.Response, error) {
	r := &bodyReader{}
	r.Reset(body)
	if getBody == nil {
		getBody = func() (io.ReadCloser, error) {
			r := &bodyReader{}
			r.Reset(body)
			return r, nil
		}
	}
	req := &http.Request{
		Method: http.MethodPost, URL: u, Host: u.Host, Header: h,
		Body: r, GetBody: getBody, ContentLength: int64(len(body)),
		Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1,
	}
	return hc.Do(req.WithContext(ctx))
}

// postError says what became of a POST that got no answer: an answer
// nobody asked for broke the connection, an interim answer and then
// nothing, or nothing at all.
func (t *httpTransport) postError(p *Prepared, err error) *Error {
	e := &Error{Kind: classifyNetErr(err), Msg: p.req.Method, Err: err}
	switch msg := err.Error(); {
	case strings.Contains(msg, "readLoopPeekFailLocked") && strings.HasSuffix(msg, "<nil>)"):
		// net/http's words for bytes that came on an idle connection.
		e.Msg += ": the connection broke on an answer nobody asked for (the server answered a request twice, or late)"
	case e.Kind != KindTimeout:
	case t.interim.Load() != 0:
		e.Msg += fmt.Sprintf(": no answer in time, only an interim %d", t.interim.Load())
	case !t.firstByte.Load():
		e.Msg += ": no answer in time: not a byte of it came"
	default:
		e.Msg += ": no whole status line and headers in time"
	}
	return e
}

// answer reads a Streamable HTTP answer to id, whichever engine fetched it:
// session expiry, HTTP errors, and the JSON or SSE body.
func (t *httpTransport) answer(ctx context.Context, p *Prepared, id int64, res *Result, h *answerHead, body io.Reader) (bool, error) {
	s := t.s
	if h.Status == http.StatusNotFound && s.id != "" {
		res.Received = drain(body)
		return false, s.lost(ctx, h.Status)
	}
	if h.Status < 200 || h.Status > 299 {
		n, rpcErr := s.readErrorBody(body)
		res.Received = n
		e := h.statusError(p.req.Method)
		if rpcErr != nil {
			e.Code, e.data = rpcErr.Code, rpcErr.Data
			e.Msg += ": " + s.c.serverText(rpcErr.Message)
			// Modern servers send JSON-RPC errors with a 4xx status that
			// mirrors them; the error object is the server's answer.
			e.Kind = KindJSONRPC
		}
		if isAuthStatus(h.Status) {
			e.Kind, e.challenge = KindAuth, h.Challenge
		}
		return false, e
	}
	if h.Kept != "" && p.req.Method == "initialize" {
		s.id = h.Kept
	}
	if e := h.refuse(p.req.Method, s.c.maxBody); e != nil {
		return false, e // not drained: the connection goes
	}
	switch ct := h.ContentType; {
	case hasMediaType(ct, "text/event-stream"):
		found, err := s.readSSE(ctx, body, id, res)
		if !found && err == nil {
			// The POST stream ended cleanly, whatever the resumed ones do.
			defer func() { s.stream = streamEnded }()
			return t.resumeSSE(ctx, p, id, res)
		}
		return found, h.explainCut(err, res.Received, s.sse.events)
	case hasMediaType(ct, "application/json"):
		found, err := s.readJSON(body, id, res)
		return found, h.explainCut(err, res.Received, -1)
	default:
		res.Received = drain(body)
		mt, _, _ := mime.ParseMediaType(ct)
		if mt == "" {
			mt = "no content type"
		}
		return false, &Error{Kind: KindTransport, Msg: fmt.Sprintf("%s: answer is %s, not JSON or SSE", p.req.Method, mt)}
	}
}

// resumeSSE follows a response stream the server closed before the answer
// (2025-11-25 SSE polling): after the retry delay it GETs the endpoint with
// Last-Event-ID and reads on, a bounded number of times.
func (t *httpTransport) resumeSSE(ctx context.Context, p *Prepared, id int64, res *Result) (bool, error) {
	s := t.s
	ctx, cancel := context.WithTimeout(ctx, s.c.opts.Timeout)
	defer cancel()
	for attempt := 0; attempt < 8 && len(s.sse.id) > 0; attempt++ {
		wait := 0 * time.Millisecond
		if s.sse.retryMS > 0 {
			wait = time.Duration(min(s.sse.retryMS, 5000)) * time.Millisecond
		}
		if !Sleep(ctx, wait) {
			return false, &Error{Kind: KindTimeout, Msg: p.req.Method + ": waiting to resume the SSE stream", Err: ctx.Err()}
		}
		resp, err := t.resumeGet(ctx, p)
		if err != nil {
			return false, err
		}
		if resp.StatusCode != http.StatusOK || !hasMediaType(resp.Header.Get("Content-Type"), "text/event-stream") {
			res.Received += drain(resp.Body)
			resp.Body.Close()
			return false, &Error{Kind: KindHTTPStatus, Status: resp.StatusCode, Msg: fmt.Sprintf("%s: resuming the SSE stream: HTTP %d", p.req.Method, resp.StatusCode)}
		}
		lastID, retry := append([]byte(nil), s.sse.id...), s.sse.retryMS
		found, err := s.readSSE(ctx, resp.Body, id, res)
		// A resumed stream may be the session's standing GET stream,
		// which stays open: the request is done at its response.
		resp.Body.Close()
		if found || err != nil {
			return found, err
		}
		if len(s.sse.id) == 0 { // the new stream named no id: keep the old one
			s.sse.id = append(s.sse.id, lastID...)
		}
		if s.sse.retryMS < 0 {
			s.sse.retryMS = retry
		}
	}
	return false, nil
}

// resumeGet asks for the rest of a response stream from its last event.
func (t *httpTransport) resumeGet(ctx context.Context, p *Prepared) (*http.Response, error) {
	s := t.s
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, s.c.url.String(), nil)
	if err != nil {
		return nil, err
	}
	for k, v := range t.buildHeader(p) {
		req.Header[k] = v
	}
	req.Header.Del("Content-Type")
	req.Header.Set("Accept", "text/event-stream")
	req.Header.Set("Last-Event-ID", string(s.sse.id))
	resp, err := t.sideClient().Do(req)
	if err != nil {
		return nil, &Error{Kind: classifyNetErr(err), Msg: p.req.Method + ": resuming the SSE stream", Err: err}
	}
	return resp, nil
}
