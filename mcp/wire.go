package mcp

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"net"
	"net/url"
	"os"
	"strings"
	"sync/atomic"
	"time"

	"github.com/mcpbench/mcpbench/internal/evloop"
	"github.com/valyala/fasthttp"
)

// The direct engine carries the measured POSTs of plain-HTTP Streamable
// HTTP on connections of its own. Its request is a byte string built once
// per prepared request and written with one call; the common answers (a
// status line, a few headers, then a body of a Content-Length or in
// chunks, chunked.go) are parsed in place from the read buffer. Anything
// less common (SSE streams, 1xx answers, folded headers) goes to
// fasthttp's parser on the same buffered reader, since nothing has been
// consumed yet.
//
// Why not fasthttp's client alone: its general request writer, header
// parser and pool bookkeeping cost about 1 µs of CPU per request more than
// this engine (side-by-side runs in the setting of scripts/bench-peers.sh
// on a 2-core machine), CPU the server under test would lose.
const (
	// Per-connection buffers: room for an answer's headers and a typical
	// small body. Small, so ten thousand connections stay affordable.
	wireReadBuffer = 8 << 10
)

// A connection idle this long is checked for a close by the server before
// it carries a request (a variable for tests).
var wireStaleAfter = 2 * time.Second

var errNoFreeConn = errors.New("no free connection in time")

// wireEligible says whether the direct engine can serve u under o.
func wireEligible(u *url.URL) bool {
	if u.Scheme != "http" {
		return false // TLS and HTTP/2 stay with net/http
	}
	for _, k := range []string{"HTTP_PROXY", "http_proxy", "ALL_PROXY", "all_proxy"} {
		if os.Getenv(k) != "" && !noProxyCovers(u.Hostname()) {
			return false // proxies are net/http's
		}
	}
	return true
}

// noProxyCovers reports whether NO_PROXY names host (loopback always is, as
// net/http treats it).
func noProxyCovers(host string) bool {
	if ip := net.ParseIP(host); host == "localhost" || ip != nil && ip.IsLoopback() {
		return true
	}
	for _, k := range []string{"NO_PROXY", "no_proxy"} {
		for _, h := range strings.Split(os.Getenv(k), ",") {
			h = strings.TrimSpace(h)
			if h == "*" || h != "" && strings.HasSuffix(host, strings.TrimPrefix(h, ".")) {
				return true
			}
		}
	}
	return false
}

// wirePool holds at most max connections to one address. Its slots
// channel holds one entry per connection the pool may have: an idle
// connection, or nil for one not dialled. Taking a request's connection is
// one receive, giving it back one send.
type wirePool struct {
	addr    string
	dialer  net.Dialer
	gate    dialGate
	dials   *atomic.Int64
	slots   chan *wireConn
	maxBody int
	// onLoop, when set, is the event loop whose connections these are:
	// adopted from base while it has idle ones, else dialled on the loop.
	onLoop *evloop.Loop
	base   *wirePool
	// idle are a loop pool's idle connections, the last used on top; its
	// slots then hold only nils (transport_loop.go).
	idle []*wireConn
	// memo is a loop pool's parse memo, one for all the sessions whose
	// requests the loop runs (transport_loop.go).
	memo *parseMemo

	closed atomic.Bool
}

// wireConn is one keep-alive connection and its read buffer.
type wireConn struct {
	nc       net.Conn
	br       *bufio.Reader
	lastUsed time.Time
	// received counts the bytes read off the connection, so that an
	// answer cut off can say how much of it came.
	received int64
}

// Read reads from the connection for br, counting.
func (c *wireConn) Read(p []byte) (int, error) {
	n, err := c.nc.Read(p)
	c.received += int64(n)
	return n, err
}

func newWirePool(u *url.URL, o Options, size int, dials *atomic.Int64) *wirePool {
	addr := u.Host
	if u.Port() == "" {
		addr = net.JoinHostPort(u.Hostname(), "80")
	}
	p := &wirePool{
		addr:    addr,
		dialer:  net.Dialer{Timeout: 10 * time.Second, KeepAlive: 30 * time.Second},
		gate:    newDialGate(),
		dials:   dials,
		slots:   make(chan *wireConn, size),
		maxBody: int(o.MaxResponseBytes),
	}
	for range size {
		p.slots <- nil
	}
	return p
}

// get returns a connection, dialling one if a free slot has none, and how
// long it waited for a slot. It gives up at deadline.
func (p *wirePool) get(now, deadline time.Time) (*wireConn, time.Duration, error) {
	var c *wireConn
	var waited time.Duration
	select {
	case c = <-p.slots:
	default:
		asked := now
		t := time.NewTimer(deadline.Sub(now))
		select {
		case c = <-p.slots:
			t.Stop()
			now = time.Now()
			waited = now.Sub(asked)
		case <-t.C:
			return nil, time.Since(asked), errNoFreeConn
		}
	}
	if c == nil && p.onLoop != nil {
		c = p.takeIdle() // transport_loop.go
	}
	if c != nil && now.Sub(c.lastUsed) > wireStaleAfter && !c.alive() {
		c.nc.Close()
		c = nil
	}
	if c == nil {
		var err error
		if c, err = p.dial(deadline); err != nil {
			p.slots <- nil
			return nil, waited, err
		}
	}
	return c, waited, nil
}

func (p *wirePool) dial(deadline time.Time) (*wireConn, error) {
	p.dials.Add(1)
	var nc net.Conn
	var err error
	if p.onLoop != nil {
		nc, err = p.onLoop.Dial(p.addr, deadline) // the loop bounds its dials itself
	} else {
		leave := p.gate.enter()
		d := p.dialer
		d.Deadline = deadline
		nc, err = d.Dial("tcp", p.addr)
		leave()
	}
	if err != nil {
		return nil, err
	}
	c := &wireConn{nc: nc}
	c.br = bufio.NewReaderSize(c, wireReadBuffer)
	return c, nil
}

// put gives c back; a connection that cannot carry another request
// (broken, or closed by the server) frees its slot instead.
func (p *wirePool) put(c *wireConn, reusable bool) {
	if !reusable || p.closed.Load() {
		c.nc.Close()
		c = nil
	}
	if c != nil && p.onLoop != nil {
		p.idle = append(p.idle, c)
		c = nil
	}
	p.slots <- c
}

// lend takes c, whose stream is still being read after its response, out
// of the pool's count: its slot is free for another connection at once, so
// no request waits for a server to close a stream it no longer needs.
func (p *wirePool) lend(*wireConn) { p.slots <- nil }

// giveBack returns a lent connection once its stream has ended: it takes
// the place of a slot that holds no connection, or is closed when every
// free slot has one (or none is free).
func (p *wirePool) giveBack(c *wireConn, reusable bool) {
	if p.onLoop != nil {
		p.keepIdle(c, reusable)
		return
	}
	for i := 0; reusable && !p.closed.Load() && i < cap(p.slots); i++ {
		select {
		case x := <-p.slots:
			if x == nil {
				p.slots <- c // it fills the slot just emptied
				return
			}
			p.slots <- x // an idle connection: back it goes, try the next
		default:
			i = cap(p.slots) // every slot is in use
		}
	}
	c.nc.Close()
}

// close closes the idle connections; ones in use are closed when they come
// back.
func (p *wirePool) close() {
	p.closed.Store(true)
	for _, c := range p.idle {
		c.nc.Close()
	}
	p.idle = nil
	emptied := 0
	defer func() {
		for range emptied {
			p.slots <- nil
		}
	}()
	for {
		select {
		case c := <-p.slots:
			if c != nil {
				c.nc.Close()
			}
			emptied++
		default:
			return
		}
	}
}

// alive reports whether an idle connection is still open: a read that
// times out means it is; EOF or data nobody asked for means it is not.
// (A deadline already past would fail the read before it is tried.)
func (c *wireConn) alive() bool {
	if c.br.Buffered() > 0 {
		return false
	}
	_ = c.nc.SetReadDeadline(time.Now().Add(time.Millisecond))
	_, err := c.br.Peek(1)
	_ = c.nc.SetReadDeadline(time.Time{})
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout()
}

// wireAnswer is what a round trip read; body is the session's buffer. An
// SSE answer is not read whole but handed over as stream, which reads the
// rest of it from the connection as it arrives; resp holds the stream's
// parser until the stream is done with.
type wireAnswer struct {
	answerHead
	body      []byte
	close     bool
	stream    io.Reader
	resp      *fasthttp.Response
	challenge []string // WWW-Authenticate of a 401 or 403
}

// peekHead returns the answer's status line and headers, through the
// blank line, without consuming them.
func peekHead(br *bufio.Reader) ([]byte, error) {
	for searched := 0; ; {
		n := max(br.Buffered(), 1)
		b, err := br.Peek(n)
		if i := bytes.Index(b[max(searched-3, 0):], crlf2); i >= 0 {
			return b[:max(searched-3, 0)+i+4], nil
		}
		if err != nil {
			return nil, err
		}
		searched = len(b)
		if len(b) == br.Size() {
			return nil, errHeadTooLarge
		}
		if _, err := br.Peek(len(b) + 1); err != nil && !errors.Is(err, bufio.ErrBufferFull) {
			return nil, err
		}
	}
}

var (
	crlf2           = []byte("\r\n\r\n")
	lf              = []byte("\n")
	errHeadTooLarge = errors.New("the answer's status line and headers pass 8 KiB, the direct engine's bound (the net/http engine reads up to 64 KiB)")
)

// parseHead reads the status and the headers the client needs from h. It
// returns false, leaving the answer to fasthttp, for anything but a final
// answer with a Content-Length or chunked (and not a stream of events), no
// Content-Encoding and plain header lines.
func parseHead(h []byte, a *wireAnswer, wantSession bool) bool {
	if bytes.Count(h, lf) != bytes.Count(h, crlf) {
		return false // a bare LF ends a line for fasthttp, not for the cuts below
	}
	line, rest, _ := bytes.Cut(h, crlf)
	// "HTTP/1.x NNN reason"
	if len(line) < 12 || string(line[:8]) != "HTTP/1.1" || line[8] != ' ' || len(line) > 12 && line[12] != ' ' {
		return false // HTTP/1.0 among them: its keep-alive rules are fasthttp's
	}
	code := 0
	for _, d := range line[9:12] {
		if d < '0' || d > '9' {
			return false
		}
		code = code*10 + int(d-'0')
	}
	if code < 200 || code == 204 || code == 304 {
		return false
	}
	a.status = code
	length := -1
	for len(rest) > 2 {
		line, rest, _ = bytes.Cut(rest, crlf)
		colon := bytes.IndexByte(line, ':')
		if colon <= 0 || !isToken(line[:colon]) {
			return false // folded or malformed: fasthttp decides
		}
		name, value := line[:colon], bytes.TrimSpace(line[colon+1:])
		switch {
		case bytes.EqualFold(name, hContentLength):
			n, ok := atoiDigits(value) // a length past 9 digits is fasthttp's to refuse
			if !ok || length >= 0 && n != length {
				return false
			}
			length = n
		case bytes.EqualFold(name, hTransferEncoding):
			if a.chunked || !bytes.EqualFold(value, []byte("chunked")) {
				return false // a list of codings, or twice: fasthttp decides
			}
			a.chunked = true
		case bytes.EqualFold(name, hContentEncoding):
			return false
		case bytes.EqualFold(name, hContentType):
			a.contentType = bytesToString(value)
		case bytes.EqualFold(name, hConnection):
			if bytes.EqualFold(value, []byte("close")) {
				a.close = true
			}
		case wantSession && bytes.EqualFold(name, hSessionID):
			a.sessionID = string(value)
		case (code == 401 || code == 403) && bytes.EqualFold(name, hWWWAuthenticate):
			a.challenge = append(a.challenge, string(value))
		case code >= 300 && bytes.EqualFold(name, hLocation):
			a.location = string(value)
		case code >= 300 && bytes.EqualFold(name, hRetryAfter):
			a.retryAfter = string(value)
		}
	}
	if a.chunked {
		// A stream is read as it comes (fasthttp's); with a length as
		// well, the framing is ambiguous, fasthttp's to judge.
		a.length = -1
		return length < 0 && !hasMediaType(a.contentType, "text/event-stream")
	}
	if length < 0 {
		return false
	}
	a.length = length
	return true
}

// isToken reports whether b is an HTTP token, as a header name must be.
func isToken(b []byte) bool {
	for _, c := range b {
		if !tokenByte[c] {
			return false
		}
	}
	return true
}

var tokenByte = func() (t [256]bool) {
	for c := '0'; c <= '9'; c++ {
		t[c] = true
	}
	for c := 'a'; c <= 'z'; c++ {
		t[c], t[c-'a'+'A'] = true, true
	}
	for _, c := range "!#$%&'*+-.^_`|~" {
		t[c] = true
	}
	return t
}()

var (
	crlf              = []byte("\r\n")
	hContentLength    = []byte("Content-Length")
	hTransferEncoding = []byte("Transfer-Encoding")
	hContentEncoding  = []byte("Content-Encoding")
	hLocation         = []byte("Location")
	hRetryAfter       = []byte("Retry-After")
	hContentType      = []byte("Content-Type")
	hConnection       = []byte("Connection")
	hSessionID        = []byte("Mcp-Session-Id")
	hWWWAuthenticate  = []byte("WWW-Authenticate")
)

// bytesToString copies; content types are short.
func bytesToString(b []byte) string {
	if bytes.Equal(b, ctJSON) {
		return "application/json"
	}
	if bytes.Equal(b, ctSSE) {
		return "text/event-stream"
	}
	return string(b)
}

var (
	ctJSON = []byte("application/json")
	ctSSE  = []byte("text/event-stream")
)
