package h1

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"strconv"
	"time"

	"github.com/valyala/fasthttp"
)

// Caller is one caller's side of the engine: its request and answer
// buffers, kept between requests so the hot path allocates nothing, and
// the comparison of a body with its prediction. Not safe for concurrent
// use: each of the client's sessions has one.
type Caller struct {
	out   []byte
	in    []byte
	inBuf bytes.Buffer // an answer fasthttp's parser read
	match bodyMatch
	// Sent is when the last request went out, read just before its write
	// on a connection with receive stamps (zero on others): with the
	// answer's stamp it is the request's latency as the wire sees it.
	Sent time.Time
}

// Request is one POST: Head is its request line and headers up to the
// value of Content-Length ("...Content-Length: "), which the engine
// completes from Body. Keep names a header whose value the answer's
// Head.Kept is to hold (answers to such requests are always parsed in
// full); Predict, when not nil, is the body expected (match.go).
type Request struct {
	Head     []byte
	Body     []byte
	Deadline time.Time
	Keep     []byte
	Predict  *Prediction
}

// Cut is an answer that stopped coming: in time (Err is a time-out) or at
// all (a broken connection). What says how much of it came.
type Cut struct {
	What string
	Err  error
}

func (e *Cut) Error() string { return "the answer was cut short: " + e.What + ": " + e.Err.Error() }
func (e *Cut) Unwrap() error { return e.Err }

// TooLarge is an answer past the largest body the pool takes, Limit.
type TooLarge struct {
	What  string
	Limit int
}

func (e *TooLarge) Error() string {
	return fmt.Sprintf("the answer passes %d bytes: %s", e.Limit, e.What)
}

// Do writes r on c, which p gave, and reads its answer into a (an out
// value, not a result: the answer is large, and copied back up through
// the callers it cost the hot path more than the reading of its head).
func (cl *Caller) Do(p Pool, c *Conn, r *Request, a *Answer) error {
	if err := c.nc.SetDeadline(r.Deadline); err != nil {
		return err
	}
	out := append(cl.out[:0], r.Head...)
	out = strconv.AppendInt(out, int64(len(r.Body)), 10)
	out = append(out, "\r\n\r\n"...)
	out = append(out, r.Body...)
	cl.out = out
	c.stamp = 0 // the answer's own reads set it
	if c.sr != nil || c.lastStamp != nil {
		// The wire's view starts here: the clock read nearest the write.
		cl.Sent = time.Now()
	}
	if _, err := c.nc.Write(out); err != nil {
		return err
	}
	return cl.Read(p, c, r, a)
}

// Read reads one answer to r from c: in place when parseHead takes it,
// else with fasthttp's parser. A failure says what of the answer came.
func (cl *Caller) Read(p Pool, c *Conn, r *Request, a *Answer) error {
	*a = Answer{}
	err := cl.read(p, c, r, a)
	if err != nil && cl.match.on {
		cl.match.stop() // cut short while it still matched
	}
	return err
}

func (cl *Caller) read(p Pool, c *Conn, r *Request, a *Answer) error {
	br, limit := c.reader(), p.limit()
	from := c.received - int64(br.Buffered()) // where this answer's bytes begin
	cl.match.on = false
	h, head, closing := p.recallHead(br, r.Keep)
	if head != nil {
		a.Head, a.Close = *head, closing
	} else {
		var err error
		if h, err = peekHead(br); err != nil {
			if errors.Is(err, ErrHeadTooLarge) {
				return err
			}
			return &Cut{What: fmt.Sprintf("%d bytes came, not yet a whole status line and headers", c.received-from), Err: err}
		}
		if ok := parseHead(h, a, r.Keep); !ok {
			return cl.readUncommon(c, a, r.Keep, limit, from, h)
		}
		p.rememberHead(h, a.Head, a.Close, r.Keep)
	}
	if a.Length > limit {
		return &TooLarge{What: fmt.Sprintf("Content-Length %d", a.Length), Limit: limit}
	}
	if _, err := br.Discard(len(h)); err != nil {
		return err
	}
	if a.Chunked && a.Status >= 200 && a.Status < 300 && HasMediaType(a.ContentType, "text/event-stream") {
		a.Stream = c.events.start(c) // read as it arrives, by the caller
		return nil
	}
	cl.match.start(a, r.Predict)
	var err error
	if a.Chunked {
		err = cl.readChunks(br, a, limit)
	} else {
		err = cl.readLength(br, a)
	}
	if err == nil {
		if !a.Matched {
			a.Size = len(a.Body)
		}
		p.fit(c, int(c.received-from)-br.Buffered())
	}
	return err
}

// readLength reads a body of a Content-Length from br.
func (cl *Caller) readLength(br *bufio.Reader, a *Answer) error {
	body, n, err := cl.readData(br, cl.in[:0], a.Length)
	cl.in = body[:0]
	if err != nil {
		return &Cut{What: a.Describe(int64(n), -1), Err: err}
	}
	cl.finishMatch(a, body)
	return nil
}

// readUncommon hands an answer the in-place parser does not take to
// fasthttp's, which reads it from the same buffer; h is its head as
// peeked, from where its bytes began on the connection. A successful SSE
// answer is left as a stream for the caller to read as it arrives.
func (cl *Caller) readUncommon(c *Conn, a *Answer, keep []byte, limit int, from int64, h []byte) error {
	line, _, _ := bytes.Cut(h, crlf)
	line = bytes.Clone(line[:min(len(line), 60)]) // h is overwritten as reading goes on
	// Pooled, not kept per connection: ten thousand connections would
	// each hold a body buffer as large as their largest answer.
	r := fasthttp.AcquireResponse()
	r.StreamBody = true
	err := r.ReadLimitBody(c.br, limit)
	// The head was read when it is the one peeked, a final one; after an
	// interim 100, or a head fasthttp refused, there is only the line.
	code, _ := AtoiDigits(line[min(len(line), 9):min(len(line), 12)])
	headRead := err == nil || code >= 200 && r.Header.StatusCode() == code
	if headRead {
		fillHead(&a.Head, &r.Header, keep)
	}
	if err != nil {
		fasthttp.ReleaseResponse(r)
		return uncommonError(c, a, err, headRead, limit, from, h, line)
	}
	if a.Status == 401 || a.Status == 403 {
		for _, v := range r.Header.PeekAll("WWW-Authenticate") {
			a.Challenge = append(a.Challenge, string(v))
		}
	}
	// A body that ends with the connection (neither a length nor chunks)
	// leaves nothing to reuse. An answer that has no body (1xx, 204, 304)
	// keeps the -2 of a head without a length: taken as a close, every
	// DELETE's 204 cost its session's connection and the next session a
	// connect.
	a.Close = r.ConnectionClose() || r.Header.ContentLength() == -2 && !bodiless(a.Status)
	body := r.BodyStream()
	if body == nil { // an answer without a body (1xx, 204, 304): nothing to stream
		body = bytes.NewReader(nil)
	}
	if a.Status >= 200 && a.Status < 300 && HasMediaType(a.ContentType, "text/event-stream") {
		a.Stream, a.resp = body, r
		return nil
	}
	defer fasthttp.ReleaseResponse(r)
	cl.inBuf.Reset()
	_, err = cl.inBuf.ReadFrom(io.LimitReader(body, int64(limit)+1))
	if err == nil && cl.inBuf.Len() > limit {
		err = fasthttp.ErrBodyTooLarge
	}
	if err != nil {
		return uncommonError(c, a, err, true, limit, from, h, line)
	}
	a.Body = cl.inBuf.Bytes()
	a.Size = len(a.Body)
	return nil
}

// bodiless says an answer of status code has no body, whatever its
// head says (RFC 9112, section 6.3).
func bodiless(code int) bool { return code < 200 || code == 204 || code == 304 }

// uncommonError says what came of an answer fasthttp's parser read when
// reading it failed: how much of its body, or how it began when its head
// was never read whole.
func uncommonError(c *Conn, a *Answer, err error, headRead bool, limit int, from int64, h, line []byte) error {
	switch {
	case errors.Is(err, fasthttp.ErrBodyTooLarge):
		return &TooLarge{What: a.Describe(c.received-from-int64(len(h)), -1), Limit: limit}
	case headRead:
		return &Cut{What: a.Describe(c.received-from-int64(len(h)), -1), Err: err}
	}
	return &Cut{What: fmt.Sprintf("it began %q; %d bytes came in all", line, c.received-from), Err: err}
}

// fillHead reads what the engine needs of a head fasthttp parsed.
func fillHead(a *Head, h *fasthttp.ResponseHeader, keep []byte) {
	a.Status = h.StatusCode()
	a.ContentType = bytesToString(h.ContentType())
	if keep != nil {
		a.Kept = string(h.PeekBytes(keep))
	}
	a.Encoding = string(h.ContentEncoding())
	a.Location = string(h.Peek("Location"))
	a.RetryAfter = string(h.Peek("Retry-After"))
	a.Length = h.ContentLength() // -1 chunked, -2 up to the close
	a.Chunked = a.Length == -1
	a.Length = max(a.Length, -1)
}
