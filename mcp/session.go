package mcp

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/http/httptrace"
	"strconv"
	"strings"
	"sync/atomic"
	"time"
)

// Session is one worker's conversation with the server. It is not safe for
// concurrent use: each worker owns one, with its buffers.
type Session struct {
	c      *Client
	id     string // Mcp-Session-Id of stateful revisions
	shared bool   // id belongs to the client, not to this session
	nextID int64

	prepared    []*Prepared
	body        bodyReader
	resp        bytes.Buffer
	sse         *sseReader
	rep         reply
	scratch     [24]byte
	result      Result
	sendScratch []byte

	// Connection wait of the current request, timed by an HTTP trace.
	trace       *httptrace.ClientTrace
	traceParent context.Context
	traceCtx    context.Context
	getConn     time.Time
	connWait    time.Duration

	// Direct engine: the request bytes, a reader over the answer's body,
	// the connection in flight and the cancellation hook that cuts it off.
	wireOut  []byte
	wireIn   []byte
	wireBody heldBody
	current  atomic.Pointer[wireConn]
	watched  context.Context
	unwatch  func() bool

	legacy *legacyStream // 2024-11-05 HTTP+SSE: this session's stream
	stdio  *stdioProc    // stdio: the server process this session talks to
	waiter chan []byte   // stdio: where this session's answers arrive
}

// bodyReader lets a worker hand the same request body to every request
// without wrapping it anew.
type bodyReader struct{ bytes.Reader }

func (*bodyReader) Close() error { return nil }

// Result is the outcome of one measured request.
type Result struct {
	Kind     Kind
	Err      error // why, when Kind is not OK
	Sent     int64 // request body bytes
	Received int64 // response body bytes
	// NextCursor is set when a tools/list page says more follow.
	NextCursor string
	// Structured is a tools/call's structuredContent, valid until the next
	// Do on the session.
	Structured json.RawMessage
	// ConnWait is how long the request waited for a pooled connection
	// (including a dial, when it needed one).
	ConnWait time.Duration
}

// ID returns the session id ("" for stateless revisions).
func (s *Session) ID() string { return s.id }

// Prepare frames req for this session once.
func (s *Session) Prepare(req Request) (*Prepared, error) {
	params, err := buildParams(req, s.c.meta, "")
	if err != nil {
		return nil, fmt.Errorf("%s params: %w", req.Method, err)
	}
	p := &Prepared{req: req, head: frameHead(req.Method, params)}
	if req.Method == "tools/call" {
		p.nameHeader = headerValue(req.Tool)
	}
	s.prepared = append(s.prepared, p)
	return p, nil
}

// headerValue encodes a value for an Mcp-Name or Mcp-Param header, with the
// base64 sentinel form for anything not plain visible ASCII.
func headerValue(v string) string {
	plain := v != "" && v[0] != ' ' && v[len(v)-1] != ' ' &&
		!(strings.HasPrefix(v, "=?base64?") && strings.HasSuffix(v, "?="))
	for i := 0; plain && i < len(v); i++ {
		if v[i] < 0x20 || v[i] > 0x7e {
			plain = false
		}
	}
	if plain {
		return v
	}
	return "=?base64?" + base64.StdEncoding.EncodeToString([]byte(v)) + "?="
}

// header returns p's request headers, built once per session id and
// revision. A map handed to the transport is never changed afterwards, only
// replaced, since the transport may still be reading it.
func (s *Session) header(p *Prepared) http.Header {
	if p.hdr != nil && p.hdrSession == s.id && p.hdrRev == s.c.rev {
		return p.hdr
	}
	p.hdr, p.hdrSession, p.hdrRev = s.buildHeader(p), s.id, s.c.rev
	return p.hdr
}

func (s *Session) buildHeader(p *Prepared) http.Header {
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
	if s.c.rev != "" && s.c.rev >= Rev20250618 {
		h["Mcp-Protocol-Version"] = []string{s.c.rev}
	}
	if IsModern(s.c.rev) {
		h["Mcp-Method"] = []string{p.req.Method}
		if p.nameHeader != "" {
			h["Mcp-Name"] = []string{p.nameHeader}
		}
	}
	if s.id != "" {
		h["Mcp-Session-Id"] = []string{s.id}
	}
	return h
}

// post sends body and returns the response; the caller closes its body.
func (s *Session) post(ctx context.Context, h http.Header, body []byte) (*http.Response, error) {
	s.body.Reset(body)
	req := &http.Request{
		Method:        http.MethodPost,
		URL:           s.c.url,
		Host:          s.c.url.Host,
		Header:        h,
		Body:          &s.body,
		ContentLength: int64(len(body)),
		Proto:         "HTTP/1.1",
		ProtoMajor:    1,
		ProtoMinor:    1,
	}
	return s.c.hc.Do(req.WithContext(ctx))
}

// exchange sends p (with a cursor, if given) and returns the raw result of
// the matching response, valid until the next exchange.
func (s *Session) exchange(ctx context.Context, p *Prepared, cursor string) (json.RawMessage, error) {
	r := s.Do(ctx, p, cursor)
	if r.Kind != OK && r.Kind != KindToolError {
		return nil, r.Err
	}
	return s.rep.Result, nil
}

// Do sends one request and classifies its answer. It is the hot path.
func (s *Session) Do(ctx context.Context, p *Prepared, cursor string) Result {
	if s.c.opts.SessionMode == SessionPerRequest && !IsModern(s.c.rev) && p.req.Method != "initialize" {
		return s.doPerRequest(ctx, p, cursor)
	}
	return s.do(ctx, p, cursor)
}

func (s *Session) doPerRequest(ctx context.Context, p *Prepared, cursor string) Result {
	if err := s.initialize(ctx, s.c.rev); err != nil {
		return Result{Kind: KindOf(err), Err: err}
	}
	r := s.do(ctx, p, cursor)
	if err := s.deleteSession(ctx); err != nil && r.Kind == OK {
		r.Kind, r.Err = KindOf(err), err
	}
	return r
}

func (s *Session) do(ctx context.Context, p *Prepared, cursor string) Result {
	id := s.newID()
	var body []byte
	if cursor == "" {
		body = append(s.sendBuf(p), p.head...)
	} else {
		params, err := buildParams(p.req, s.c.meta, cursor)
		if err != nil {
			return Result{Kind: KindTransport, Err: err}
		}
		body = append(s.sendBuf(p), frameHead(p.req.Method, params)...)
	}
	body = strconv.AppendInt(body, id, 10)
	body = append(body, '}')
	s.sendScratch = body

	if s.stdio != nil || s.c.legacy || s.c.wire == nil {
		// The direct engine bounds its requests itself; the others need a timer.
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(s.traced(ctx), s.c.opts.Timeout)
		defer cancel()
	}
	s.connWait = 0
	// The result lives in the session: passed by address through
	// interfaces, a local would escape to the heap on every request.
	res := &s.result
	*res = Result{Sent: int64(len(body))}
	var found bool
	var err error
	switch {
	case s.stdio != nil:
		found, err = s.exchangeStdio(ctx, body, id, res)
	case s.c.legacy:
		found, err = s.exchangeLegacy(ctx, p, body, id, res)
	default:
		found, err = s.exchangeStreamable(ctx, p, body, id, res)
	}
	res.ConnWait = s.connWait
	if err != nil {
		res.Kind = KindOf(err)
		if res.Kind == OK {
			res.Kind = KindTransport
		}
		res.Err = err
		return *res
	}
	if !found {
		res.Kind = KindTransport
		res.Err = &Error{Kind: KindTransport, Msg: p.req.Method + ": stream ended without the response"}
		return *res
	}
	s.classify(p, res)
	return *res
}

// traced returns ctx with the session's connection trace, made once per
// parent context so the hot path does not build a trace per request.
func (s *Session) traced(ctx context.Context) context.Context {
	if s.stdio != nil {
		return ctx
	}
	if s.traceCtx != nil && s.traceParent == ctx {
		return s.traceCtx
	}
	if t := httptrace.ContextClientTrace(ctx); t != nil && t == s.trace {
		return ctx // already traced: a request sent on behalf of another
	}
	// A fresh trace each time: WithClientTrace chains the new trace to any
	// in ctx by changing it, so a trace must never be attached twice.
	s.trace = &httptrace.ClientTrace{
		GetConn: func(string) { s.getConn = time.Now() },
		GotConn: func(httptrace.GotConnInfo) { s.connWait = time.Since(s.getConn) },
	}
	s.traceParent, s.traceCtx = ctx, httptrace.WithClientTrace(ctx, s.trace)
	return s.traceCtx
}

// newID numbers a request: per session, or per process on stdio, where
// several sessions share one stream of answers.
func (s *Session) newID() int64 {
	if s.stdio != nil {
		return s.stdio.nextID.Add(1)
	}
	s.nextID++
	return s.nextID
}

// exchangeStreamable POSTs body and reads the answer to id, as JSON or as
// an SSE stream, into s.rep.
func (s *Session) exchangeStreamable(ctx context.Context, p *Prepared, body []byte, id int64, res *Result) (bool, error) {
	if s.c.wire != nil {
		return s.exchangeDirect(ctx, p, body, id, res)
	}
	resp, err := s.post(ctx, s.header(p), body)
	if err != nil {
		k := classifyNetErr(err)
		return false, &Error{Kind: k, Msg: p.req.Method, Err: err}
	}
	defer resp.Body.Close()
	return s.answer(ctx, p, id, res, resp.StatusCode, resp.Header.Get("Content-Type"), resp.Header.Get("Mcp-Session-Id"), resp.Body)
}

// answer reads a Streamable HTTP answer to id, whichever engine fetched it:
// session expiry, HTTP errors, and the JSON or SSE body.
func (s *Session) answer(ctx context.Context, p *Prepared, id int64, res *Result, status int, ct, sid string, body io.Reader) (bool, error) {
	if status == http.StatusNotFound && s.id != "" {
		res.Received = drain(body)
		expired := &Error{Kind: KindSessionExpired, Status: status, Msg: "session " + shortID(s.id) + " is gone"}
		s.renew(ctx)
		return false, expired
	}
	if status < 200 || status > 299 {
		n, rpcErr := s.readErrorBody(body)
		res.Received = n
		e := &Error{Kind: KindHTTPStatus, Status: status, Msg: fmt.Sprintf("%s: HTTP %d", p.req.Method, status)}
		if rpcErr != nil {
			e.Code, e.data = rpcErr.Code, rpcErr.Data
			e.Msg += ": " + rpcErr.Message
			// Modern servers send JSON-RPC errors with a 4xx status that
			// mirrors them; the error object is the server's answer.
			e.Kind = KindJSONRPC
		}
		return false, e
	}
	if sid != "" && p.req.Method == "initialize" {
		s.id = sid
	}
	switch {
	case hasMediaType(ct, "text/event-stream"):
		found, err := s.readSSE(body, id, res)
		if !found && err == nil {
			return s.resumeSSE(ctx, p, id, res)
		}
		return found, err
	case hasMediaType(ct, "application/json"):
		return s.readJSON(body, id, res)
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
func (s *Session) resumeSSE(ctx context.Context, p *Prepared, id int64, res *Result) (bool, error) {
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
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, s.c.url.String(), nil)
		if err != nil {
			return false, err
		}
		for k, v := range s.buildHeader(p) {
			req.Header[k] = v
		}
		req.Header.Del("Content-Type")
		req.Header.Set("Accept", "text/event-stream")
		req.Header.Set("Last-Event-ID", string(s.sse.id))
		resp, err := s.c.hc.Do(req)
		if err != nil {
			return false, &Error{Kind: classifyNetErr(err), Msg: p.req.Method + ": resuming the SSE stream", Err: err}
		}
		if resp.StatusCode != http.StatusOK || !hasMediaType(resp.Header.Get("Content-Type"), "text/event-stream") {
			res.Received += drain(resp.Body)
			resp.Body.Close()
			return false, &Error{Kind: KindHTTPStatus, Status: resp.StatusCode, Msg: fmt.Sprintf("%s: resuming the SSE stream: HTTP %d", p.req.Method, resp.StatusCode)}
		}
		before := res.Received
		lastID, retry := append([]byte(nil), s.sse.id...), s.sse.retryMS
		found, err := s.readSSE(resp.Body, id, res)
		res.Received += before
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

// Sleep waits d, or until ctx ends, and reports whether it waited the whole
// time (a d of zero or less reports whether ctx is still live). Every
// package that waits on a context uses it, bar the reference server, which
// shares no code with the client.
func Sleep(ctx context.Context, d time.Duration) bool {
	if d <= 0 {
		return ctx.Err() == nil
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	}
}

func (s *Session) sendBuf(p *Prepared) []byte {
	if cap(s.sendScratch) < len(p.head)+24 {
		s.sendScratch = make([]byte, 0, len(p.head)+64)
	}
	return s.sendScratch[:0]
}

// renew replaces an expired session with a fresh one, once.
func (s *Session) renew(ctx context.Context) {
	if IsModern(s.c.rev) || s.shared {
		return
	}
	_ = s.initialize(ctx, s.c.rev)
}

// classify turns a matched JSON-RPC response into a kind.
func (s *Session) classify(p *Prepared, res *Result) {
	rep := &s.rep
	if len(rep.Error) > 0 {
		var e rpcError
		_ = json.Unmarshal(rep.Error, &e)
		res.Kind = KindJSONRPC
		res.Err = &Error{Kind: KindJSONRPC, Code: e.Code, Msg: fmt.Sprintf("%s: %s (code %d)", p.req.Method, e.Message, e.Code), data: bytes.Clone(e.Data)}
		return
	}
	if len(rep.Result) == 0 || rep.Result[0] != '{' {
		res.Kind = KindTransport
		res.Err = &Error{Kind: KindTransport, Msg: p.req.Method + ": response has neither result nor error"}
		return
	}
	cursor, isError, structured := rep.inResult[0], rep.inResult[1], rep.inResult[2]
	switch p.req.Method {
	case "tools/list":
		if raw := nonNull(cursor); raw != nil {
			if err := json.Unmarshal(raw, &res.NextCursor); err != nil {
				res.Kind = KindTransport
				res.Err = &Error{Kind: KindTransport, Msg: "tools/list: nextCursor is not a string", Err: err}
				return
			}
		}
	case "tools/call":
		if string(isError) == "true" {
			res.Kind = KindToolError
			res.Err = &Error{Kind: KindToolError, Msg: p.req.Tool + ": isError true"}
			return
		}
		res.Structured = nonNull(structured)
	}
}

// heldBody is an answer body the engine has already read whole into the
// session: readJSON parses it where it is instead of copying it.
type heldBody struct {
	bytes.Reader
	b []byte
}

func (h *heldBody) reset(b []byte) {
	h.b = b
	h.Reader.Reset(b)
}

// readJSON reads a single JSON-RPC response body.
func (s *Session) readJSON(body io.Reader, id int64, res *Result) (bool, error) {
	var data []byte
	if h, ok := body.(*heldBody); ok {
		data = h.b // bounded by --max-response-bytes when it was read
		res.Received = int64(len(data))
	} else {
		s.resp.Reset()
		n, err := readLimited(&s.resp, body, s.c.maxBody)
		res.Received = n
		if err != nil {
			return false, err
		}
		data = s.resp.Bytes()
	}
	if err := s.rep.parse(data); err != nil {
		return false, &Error{Kind: KindTransport, Msg: "malformed JSON answer", Err: err}
	}
	if !sameID(s.rep.ID, id, s.scratch[:0]) {
		return false, &Error{Kind: KindTransport, Msg: fmt.Sprintf("answer id %s does not match request id %d", clip(s.rep.ID), id)}
	}
	return true, nil
}

// readSSE reads events until the response to id arrives, then reads the
// stream to its end so the connection can be reused.
func (s *Session) readSSE(body io.Reader, id int64, res *Result) (bool, error) {
	if s.sse == nil { // made on first use: most sessions never see SSE
		s.sse = newSSEReader(s.c.maxBody)
	}
	s.sse.reset(body)
	found := false
	for {
		data, err := s.sse.next()
		res.Received = s.sse.read
		if err == io.EOF {
			return found, nil
		}
		if err != nil {
			if errors.Is(err, errEventTooLarge) {
				return found, &Error{Kind: KindTransport, Msg: "answer larger than --max-response-bytes"}
			}
			if found {
				return true, nil // the answer is in; a broken tail does not undo it
			}
			if k := classifyNetErr(err); k == KindTimeout {
				return false, &Error{Kind: KindTimeout, Msg: "reading SSE stream", Err: err}
			}
			return false, &Error{Kind: KindTransport, Msg: "SSE stream broke before the response", Err: err}
		}
		// Skip what is not an answer: an empty priming event (2025-11-25
		// streams send one with just an id, for resumption).
		if found || len(data) == 0 {
			continue
		}
		if err := s.rep.parse(data); err != nil {
			return false, &Error{Kind: KindTransport, Msg: "malformed JSON in SSE event", Err: err}
		}
		if s.rep.isNotification() {
			continue // a notification or server request about this call
		}
		if sameID(s.rep.ID, id, s.scratch[:0]) {
			found = true
			// Keep the result: the event buffer is reused by later reads.
			s.resp.Reset()
			s.resp.Write(data)
			_ = s.rep.parse(s.resp.Bytes())
		}
	}
}

// readErrorBody reads a non-2xx body (bounded) and decodes a JSON-RPC error
// from it if there is one.
func (s *Session) readErrorBody(body io.Reader) (int64, *rpcError) {
	s.resp.Reset()
	n, err := readLimited(&s.resp, body, 64<<10)
	if err != nil {
		return n, nil
	}
	var m struct {
		Error *rpcError `json:"error"`
	}
	if json.Unmarshal(s.resp.Bytes(), &m) != nil {
		return n, nil
	}
	return n, m.Error
}

// notify sends a notification; a 2xx answer is success.
func (s *Session) notify(ctx context.Context, method string) error {
	ctx, cancel := context.WithTimeout(ctx, s.c.opts.Timeout)
	defer cancel()
	if s.stdio != nil {
		return s.stdio.write(notification(method))
	}
	h := s.buildHeader(&Prepared{req: Request{Method: method}})
	var resp *http.Response
	var err error
	if s.legacy != nil {
		resp, err = s.postTo(ctx, s.legacy.endpoint, h, notification(method))
	} else {
		resp, err = s.post(ctx, h, notification(method))
	}
	if err != nil {
		return wrapNet(err, method)
	}
	drain(resp.Body)
	resp.Body.Close()
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return &Error{Kind: KindHTTPStatus, Status: resp.StatusCode, Msg: fmt.Sprintf("%s: HTTP %d", method, resp.StatusCode)}
	}
	return nil
}

// Close ends the session: DELETE for stateful revisions, as the spec asks.
func (s *Session) Close(ctx context.Context) error {
	s.dropLegacy()
	if s.unwatch != nil {
		s.unwatch()
		s.unwatch, s.watched = nil, nil
	}
	if s.shared || s.id == "" {
		return nil
	}
	return s.deleteSession(ctx)
}

func (s *Session) deleteSession(ctx context.Context) error {
	if s.id == "" {
		return nil
	}
	ctx, cancel := context.WithTimeout(ctx, s.c.opts.Timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodDelete, s.c.url.String(), nil)
	if err != nil {
		return err
	}
	for k, v := range s.c.opts.Header {
		req.Header[k] = v
	}
	req.Header.Set("Mcp-Session-Id", s.id)
	if s.c.rev >= Rev20250618 {
		req.Header.Set("Mcp-Protocol-Version", s.c.rev)
	}
	s.id = ""
	resp, err := s.c.hc.Do(req)
	if err != nil {
		return wrapNet(err, "DELETE session")
	}
	drain(resp.Body)
	resp.Body.Close()
	// 405 means the server does not let clients end sessions: allowed.
	if resp.StatusCode >= 300 && resp.StatusCode != http.StatusMethodNotAllowed && resp.StatusCode != http.StatusNotFound {
		return &Error{Kind: KindHTTPStatus, Status: resp.StatusCode, Msg: fmt.Sprintf("DELETE session: HTTP %d", resp.StatusCode)}
	}
	return nil
}

// readLimited copies r into buf, failing with a transport error when more
// than limit bytes come.
func readLimited(buf *bytes.Buffer, r io.Reader, limit int) (int64, error) {
	var total int64
	for {
		if buf.Available() < 4096 {
			buf.Grow(4096)
		}
		free := buf.AvailableBuffer()
		free = free[:cap(free)]
		n, err := r.Read(free)
		buf.Write(free[:n])
		total += int64(n)
		if buf.Len() > limit {
			return total, &Error{Kind: KindTransport, Msg: "answer larger than --max-response-bytes"}
		}
		if err == io.EOF {
			return total, nil
		}
		if err != nil {
			if classifyNetErr(err) == KindTimeout {
				return total, &Error{Kind: KindTimeout, Msg: "reading answer", Err: err}
			}
			return total, &Error{Kind: KindTransport, Msg: "answer cut short", Err: err}
		}
	}
}

// drain reads what is left of a body (bounded) so its connection can be
// reused, and returns how many bytes that was.
func drain(r io.Reader) int64 {
	n, _ := io.Copy(io.Discard, io.LimitReader(r, 256<<10))
	return n
}

func hasMediaType(ct, want string) bool {
	if len(ct) < len(want) {
		return false
	}
	return strings.EqualFold(ct[:len(want)], want)
}

func shortID(id string) string {
	if len(id) > 8 {
		return id[:8] + "…"
	}
	return id
}

func clip(b []byte) string {
	if len(b) > 40 {
		return string(b[:40]) + "…"
	}
	return string(b)
}
