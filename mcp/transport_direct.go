package mcp

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/mcpbench/mcpbench/internal/evloop"
	"github.com/valyala/fasthttp"
)

// Streamable HTTP on the direct engine (wire.go): the session's POSTs go
// out on the engine's connections, everything else (notifications,
// resumed streams, DELETE) through net/http as in transport_http.go.

// directLink is the direct engine's side of a client: its connections for
// the POSTs, and net/http's for the rest.
type directLink struct {
	httpLink
	pool  *wirePool
	loops *loopPools // the pools of the event loops that ran requests
}

func (l directLink) attach(s *Session) transport {
	return &directTransport{httpTransport: httpTransport{s: s, hc: l.hc, side: l.side}, pool: l.pool, base: l.pool, loops: l.loops}
}

func (directLink) engine() Engine { return EngineDirect }

func (l directLink) close() {
	l.httpLink.close()
	l.pool.close()
	l.loops.close()
}

// directTransport is one session's Streamable HTTP on the direct engine:
// the request bytes, a reader over the answer's body, the connection in
// flight and the cancellation hook that cuts it off.
type directTransport struct {
	httpTransport
	// pool is the one the exchange in progress uses: base, the client's,
	// or the pool of the event loop the request runs on (transport_loop.go).
	pool  *wirePool
	base  *wirePool
	loops *loopPools
	// onLoop is the event loop of the last request, loopPool its pool.
	onLoop   *evloop.Loop
	loopPool *wirePool
	// match compares a body with the loop memo's prediction as it is
	// read; lent is the memo text the reply points into, lent from
	// lentOn's memo (wire_match.go).
	match   bodyMatch
	lent    *remembered
	lentOn  *wirePool
	out     []byte
	in      []byte
	held    heldBody
	inBuf   bytes.Buffer // an answer fasthttp's parser read
	current atomic.Pointer[wireConn]
	watched context.Context
	unwatch func() bool
}

func (t *directTransport) close() {
	t.stopListening()
	if t.unwatch != nil {
		t.unwatch()
		t.unwatch, t.watched = nil, nil
	}
}

// exchange is the net/http exchange on the direct engine. A JSON answer
// is read whole (bounded by --max-response-bytes) before it is parsed; an
// SSE answer is read as it arrives, since the server may wait for an
// answer to a request of its own before it sends the response. The
// engine bounds its requests itself, without a context timer.
func (t *directTransport) exchange(ctx context.Context, p *Prepared, body []byte, id int64, res *Result) (bool, error) {
	if err := ctx.Err(); err != nil {
		return false, &Error{Kind: KindOf(err), Msg: p.req.Method, Err: err}
	}
	start := t.s.sentAt // read by send just now
	deadline := start.Add(t.s.c.opts.Timeout)
	if dl, ok := ctx.Deadline(); ok && dl.Before(deadline) {
		deadline = dl
	}
	t.pool = t.poolFor(ctx)
	pool := t.pool
	t.returnLent(pool) // the last answer's reply is done with
	t.s.rep.shared = pool.memo
	c, waited, err := pool.get(start, deadline)
	t.s.connWait = waited
	if err != nil {
		return false, wireError(p, err)
	}
	t.watch(ctx, c)
	a, err := t.roundTrip(c, p, body, id, deadline)
	if err != nil {
		t.current.Store(nil)
		pool.put(c, false)
		if ctx.Err() != nil {
			err = ctx.Err() // cut off by the caller, not by the server
		}
		return false, wireError(p, err)
	}
	if a.stream != nil {
		found, aerr := t.answer(ctx, p, id, res, &a.answerHead, a.stream)
		t.current.Store(nil)
		if aerr != nil && ctx.Err() != nil {
			aerr = wireError(p, ctx.Err())
		}
		t.finishStream(c, a, start)
		return found, aerr
	}
	t.current.Store(nil)
	t.s.refused, t.s.challenge = a.status, a.challenge
	// The connection goes back before the answer is handled: handling a
	// lost session sends an initialize, which needs a connection of its
	// own. One that holds bytes past the answer, or whose answer is to
	// another request, is out of step with its requests (the server
	// answered one twice, or late) and is not used again.
	c.lastUsed = start
	if !a.matched {
		a.size = len(a.body)
	}
	t.held.reset(a.body, a.size)
	// The id first: a matched answer's reply is filled there, in step or
	// not.
	inStep := t.answersID(&a, id) && c.br.Buffered() == 0
	pool.put(c, !a.close && inStep)
	found, aerr := t.answer(ctx, p, id, res, &a.answerHead, &t.held)
	res.Received = int64(a.size)
	t.s.stream = streamEnded // held whole: nothing is left to read
	return found, aerr
}

// finishStream gives a streamed answer's connection back once the stream
// has ended: at once when it was read to its end, else from a goroutine
// that reads the rest, so neither this request nor the next waits for the
// server to close a stream whose response is in.
func (t *directTransport) finishStream(c *wireConn, a wireAnswer, start time.Time) {
	state := t.s.stream
	t.s.stream = streamEnded
	pool := t.pool
	done := func(ended bool) {
		fasthttp.ReleaseResponse(a.resp)
		c.lastUsed = start
		pool.put(c, ended && !a.close)
	}
	switch {
	case state == streamEnded:
		done(true)
	case state == streamLeftOpen && t.endBuffered(c, a):
		done(readToEnd(a.stream)) // reads what is buffered: no wait
	case state == streamLeftOpen:
		pool.lend(c)
		rest := func() { // the deadline set for the request bounds the read
			ended := readToEnd(a.stream)
			fasthttp.ReleaseResponse(a.resp)
			c.lastUsed = start
			pool.giveBack(c, ended && !a.close)
		}
		if pool.onLoop != nil {
			pool.onLoop.Go(rest) // a loop's connection is read on its loop
		} else {
			go rest()
		}
	default:
		done(false)
	}
}

// lastChunk is the end of a chunked body without trailers.
var lastChunk = []byte("0\r\n\r\n")

// endBuffered says the rest of a chunked stream left at its response is
// the last chunk, already read from the connection: the server closed the
// stream with the answer, as servers do, and nothing is left to wait for.
func (t *directTransport) endBuffered(c *wireConn, a wireAnswer) bool {
	if t.s.sse.r.Buffered() > 0 || a.resp.Header.ContentLength() != -1 || c.br.Buffered() < len(lastChunk) {
		return false
	}
	b, err := c.br.Peek(len(lastChunk))
	return err == nil && bytes.Equal(b, lastChunk)
}

// answersID reports whether a JSON answer's id is id, parsing it into the
// session's reply as readJSON would (which then takes it as it is).
// Answers of other kinds are judged later, and count as in step.
func (t *directTransport) answersID(a *wireAnswer, id int64) bool {
	s := t.s
	if a.matched { // the memo's answer with the request's id
		s.rep.fill(t.match.from, t.match.want[1])
		t.held.parsed = true
		return true
	}
	if a.status < 200 || a.status > 299 || a.encoding != "" || !hasMediaType(a.contentType, "application/json") {
		return true
	}
	if s.rep.parse(a.body) != nil {
		return true // malformed: readJSON says so
	}
	if !sameID(s.rep.ID, id, s.scratch[:0]) {
		return false
	}
	t.held.parsed = true
	return true
}

// wireRequest is a prepared request's bytes up to the Content-Length
// value, built again only when the session id or revision changed.
type wireRequest struct {
	head    []byte
	session string
	rev     string
	auth    string
}

func (t *directTransport) headFor(p *Prepared) []byte {
	s := t.s
	tok := s.c.authToken()
	if p.wire != nil && p.wire.session == s.id && p.wire.rev == s.c.rev && p.wire.auth == tok {
		return p.wire.head
	}
	u := s.c.url
	b := []byte("POST " + u.RequestURI() + " HTTP/1.1\r\nHost: " + u.Host + "\r\n")
	for k, vs := range t.buildHeader(p) {
		for _, v := range vs {
			b = append(b, k...)
			b = append(b, ": "...)
			b = append(b, v...)
			b = append(b, "\r\n"...)
		}
	}
	b = append(b, "Content-Length: "...)
	p.wire = &wireRequest{head: b, session: s.id, rev: s.c.rev, auth: tok}
	return b
}

func (t *directTransport) roundTrip(c *wireConn, p *Prepared, body []byte, id int64, deadline time.Time) (wireAnswer, error) {
	var a wireAnswer
	if err := c.nc.SetDeadline(deadline); err != nil {
		return a, err
	}
	out := append(t.out[:0], t.headFor(p)...)
	out = strconv.AppendInt(out, int64(len(body)), 10)
	out = append(out, "\r\n\r\n"...)
	out = append(out, body...)
	t.out = out
	if _, err := c.nc.Write(out); err != nil {
		return a, err
	}
	return t.readAnswer(c, p, id)
}

// readAnswer reads one answer from c: in place when parseHead takes it,
// else with fasthttp's parser. A failure says what of the answer came.
func (t *directTransport) readAnswer(c *wireConn, p *Prepared, id int64) (wireAnswer, error) {
	var a wireAnswer
	br, method := c.br, p.req.Method
	from := c.received - int64(br.Buffered()) // where this answer's bytes begin
	h, known := t.pool.recallHead(br, &a, method)
	if !known {
		var err error
		if h, err = peekHead(br); err != nil {
			if errors.Is(err, errHeadTooLarge) {
				return a, err
			}
			return a, answerCut(method, err, fmt.Sprintf("%d bytes came, not yet a whole status line and headers", c.received-from))
		}
		if ok := parseHead(h, &a, method == "initialize"); !ok {
			return a, t.readUncommon(c, &a, p, from, h)
		}
		t.pool.rememberHead(h, &a, method)
	}
	if a.length > t.pool.maxBody {
		return a, tooLarge(method, fmt.Sprintf("Content-Length %d", a.length), t.pool.maxBody)
	}
	if _, err := br.Discard(len(h)); err != nil {
		return a, err
	}
	t.startMatch(&a, id)
	var err error
	if a.chunked {
		err = t.readChunks(br, &a, method)
	} else {
		err = t.readLength(br, &a, method)
	}
	if err == nil {
		t.pool.fitBuffer(c, int(c.received-from)-br.Buffered())
	}
	return a, err
}

// readLength reads a body of a Content-Length from br.
func (t *directTransport) readLength(br *bufio.Reader, a *wireAnswer, method string) error {
	body, n, err := t.readData(br, t.in[:0], a.length)
	t.in = body[:0]
	if err != nil {
		return answerCut(method, err, a.describe(int64(n), -1))
	}
	t.finishMatch(a, body)
	return nil
}

// readUncommon hands an answer the in-place parser does not take to
// fasthttp's, which reads it from the same buffer; h is its head as
// peeked, from where its bytes began on the connection. A successful SSE
// answer is left as a stream for the session to read as it arrives.
func (t *directTransport) readUncommon(c *wireConn, a *wireAnswer, p *Prepared, from int64, h []byte) error {
	line, _, _ := bytes.Cut(h, crlf)
	line = bytes.Clone(line[:min(len(line), 60)]) // h is overwritten as reading goes on
	// Pooled, not kept per connection: ten thousand connections would
	// each hold a body buffer as large as their largest answer.
	r := fasthttp.AcquireResponse()
	r.StreamBody = true
	err := r.ReadLimitBody(c.br, t.pool.maxBody)
	// The head was read when it is the one peeked, a final one; after an
	// interim 100, or a head fasthttp refused, there is only the line.
	code, _ := atoiDigits(line[min(len(line), 9):min(len(line), 12)])
	headRead := err == nil || code >= 200 && r.Header.StatusCode() == code
	if headRead {
		fillHead(&a.answerHead, &r.Header, p.req.Method == "initialize")
	}
	if err != nil {
		fasthttp.ReleaseResponse(r)
		return t.uncommonError(c, a, p, err, headRead, from, h, line)
	}
	if isAuthStatus(a.status) {
		for _, v := range r.Header.PeekAll("WWW-Authenticate") {
			a.challenge = append(a.challenge, string(v))
		}
	}
	// A body that ends with the connection (neither a length nor chunks)
	// leaves nothing to reuse.
	a.close = r.ConnectionClose() || r.Header.ContentLength() == -2
	body := r.BodyStream()
	if body == nil { // an answer without a body (1xx, 204, 304): nothing to stream
		body = bytes.NewReader(nil)
	}
	if a.status >= 200 && a.status < 300 && hasMediaType(a.contentType, "text/event-stream") {
		a.stream, a.resp = body, r
		return nil
	}
	defer fasthttp.ReleaseResponse(r)
	t.inBuf.Reset()
	_, err = t.inBuf.ReadFrom(io.LimitReader(body, int64(t.pool.maxBody)+1))
	if err == nil && t.inBuf.Len() > t.pool.maxBody {
		err = fasthttp.ErrBodyTooLarge
	}
	if err != nil {
		return t.uncommonError(c, a, p, err, true, from, h, line)
	}
	a.body = t.inBuf.Bytes()
	return nil
}

// uncommonError says what came of an answer fasthttp's parser read when
// reading it failed: how much of its body, or how it began when its head
// was never read whole.
func (t *directTransport) uncommonError(c *wireConn, a *wireAnswer, p *Prepared, err error, headRead bool, from int64, h, line []byte) error {
	switch {
	case errors.Is(err, fasthttp.ErrBodyTooLarge):
		return tooLarge(p.req.Method, a.describe(c.received-from-int64(len(h)), -1), t.pool.maxBody)
	case headRead:
		return answerCut(p.req.Method, err, a.describe(c.received-from-int64(len(h)), -1))
	}
	return answerCut(p.req.Method, err, fmt.Sprintf("it began %q; %d bytes came in all", line, c.received-from))
}

// fillHead reads what the client needs of a head fasthttp parsed.
func fillHead(a *answerHead, h *fasthttp.ResponseHeader, wantSession bool) {
	a.status = h.StatusCode()
	a.contentType = bytesToString(h.ContentType())
	if wantSession {
		a.sessionID = string(h.Peek("Mcp-Session-Id"))
	}
	a.encoding = string(h.ContentEncoding())
	a.location = string(h.Peek("Location"))
	a.retryAfter = string(h.Peek("Retry-After"))
	a.length = h.ContentLength() // -1 chunked, -2 up to the close
	a.chunked = a.length == -1
	a.length = max(a.length, -1)
}

// answerCut is the error for an answer that stopped coming: in time (a
// time-out) or at all (a broken connection); what says how much came.
func answerCut(method string, err error, what string) *Error {
	k := classifyNetErr(err)
	msg := method + ": the answer was cut short: " + what
	if k == KindTimeout {
		msg = method + ": no whole answer in time: " + what
	}
	return &Error{Kind: k, Msg: msg, Err: err}
}

// watch makes a cancellation of ctx cut off the request in flight on c:
// past the grace period after an interrupt, a request is not waited for.
// The hook is registered once per context the session sees.
func (t *directTransport) watch(ctx context.Context, c *wireConn) {
	t.current.Store(c)
	if ctx == t.watched || ctx.Done() == nil {
		return
	}
	if t.unwatch != nil {
		t.unwatch()
	}
	t.watched = ctx
	t.unwatch = context.AfterFunc(ctx, func() {
		if c := t.current.Load(); c != nil {
			_ = c.nc.SetDeadline(time.Unix(1, 0))
		}
	})
}

func wireError(p *Prepared, err error) *Error {
	var e *Error
	switch {
	case errors.As(err, &e):
		return e
	case errors.Is(err, errNoFreeConn):
		return &Error{Kind: KindTimeout, Msg: p.req.Method + ": no free connection in time", Err: err}
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		return &Error{Kind: KindOf(err), Msg: p.req.Method, Err: err}
	}
	var op *net.OpError
	if errors.As(err, &op) && op.Op == "dial" {
		return &Error{Kind: KindConnect, Msg: p.req.Method, Err: err}
	}
	return &Error{Kind: classifyNetErr(err), Msg: p.req.Method, Err: err}
}
