// Package h1 is the direct engine: HTTP/1.1 POSTs on keep-alive
// connections of its own, with a pool of them per client (goroutines) or
// per event loop, an in-place parser of an answer's head, an in-place
// reader of chunked bodies and a comparison of a body with a predicted
// text as it is read. It speaks in plain values (a request's bytes, an
// answer's head and body, error values of its own) and knows nothing of
// what the bytes mean: mcp's direct transport is its one user.
//
// Its request is a byte string built once by the caller and written with
// one call; the common answers (a status line, a few headers, then a body
// of a Content-Length or in chunks, and chunked SSE streams as they come)
// are parsed in place from the read buffer. Anything less common (1xx
// answers, folded headers, streams up to the close) goes to fasthttp's
// parser on the same buffered reader, since nothing has been consumed yet.
//
// Why not fasthttp's client alone: its general request writer, header
// parser and pool bookkeeping cost about 1 µs of CPU per request more than
// this engine (side-by-side runs in the setting of scripts/bench-peers.sh
// on a 2-core machine), CPU the server under test would lose.
package h1

import (
	"bufio"
	"errors"
	"net"
	"net/url"
	"os"
	"strings"
	"time"
)

// ReadBuffer is the read buffer a connection is lent while it carries a
// request (lend.go): room for an answer's headers and a typical small
// body.
const ReadBuffer = 8 << 10

// StaleAfter is how long a connection may idle before it is checked for a
// close by the server before it carries a request (a variable for tests).
var StaleAfter = 2 * time.Second

// ReceiveStamps says whether connections made from now on read the
// kernel's receive stamps, which end a request's latency where the wire
// does. On by default; tests turn it off to measure as before (when the
// worker noticed the answer).
var ReceiveStamps = true

// Conn is one keep-alive connection and, while it carries a request, its
// read buffer.
type Conn struct {
	nc net.Conn
	// br is the read buffer, nil while the connection is idle (lend.go);
	// grown says it was grown to the answers (loop.go) and is c's own.
	br       *bufio.Reader
	grown    bool
	lastUsed time.Time
	// received counts the bytes read off the connection, so that an
	// answer cut off can say how much of it came.
	received int64
	// stamp is the kernel's receive stamp (Unix ns) of the last read that
	// returned data, 0 when the socket gives none; sr and lastStamp are
	// where it comes from (stamp_linux.go, an event loop's Conn).
	stamp     int64
	sr        *stampReader
	lastStamp func() int64
	// rest is a streamed answer's unread rest (stream.go), and events
	// the reader of a stream read in place (events.go).
	rest       streamRest
	restWaited time.Duration // how long the request now on c waited for it
	events     chunkStream
}

// NewConn wraps nc, a connection made elsewhere (tests read answers from
// any reader this way).
func NewConn(nc net.Conn) *Conn {
	c := &Conn{}
	c.rewire(nc)
	return c
}

// rewire makes nc the connection c reads and writes (an event loop
// adopting it), with the receive stamps nc gives.
func (c *Conn) rewire(nc net.Conn) {
	c.nc, c.sr, c.lastStamp, c.stamp = nc, nil, nil, 0
	if ls, ok := nc.(interface{ LastStamp() int64 }); ok && ReceiveStamps {
		c.lastStamp = ls.LastStamp
	} else if ReceiveStamps {
		c.sr = newStampReader(nc)
	}
}

// Read reads from the connection for br, counting.
func (c *Conn) Read(p []byte) (int, error) {
	var n int
	var err error
	if c.sr != nil {
		var st int64
		if n, st, err = c.sr.read(p); n > 0 && st != 0 {
			c.stamp = st
		}
	} else if n, err = c.nc.Read(p); n > 0 && c.lastStamp != nil {
		if st := c.lastStamp(); st != 0 {
			c.stamp = st
		}
	}
	c.received += int64(n)
	return n, err
}

// Stamp is the kernel's receive stamp of the last data read off c (Unix
// ns, CLOCK_REALTIME; 0 when there is none), cleared as it is taken: read
// once an answer is complete, it is when its last byte arrived.
func (c *Conn) Stamp() int64 {
	s := c.stamp
	c.stamp = 0
	return s
}

// Buffered is how many bytes were read off the connection past the last
// answer: a connection that holds any is out of step with its requests.
func (c *Conn) Buffered() int {
	if c.br == nil {
		return 0
	}
	return c.br.Buffered()
}

// Reader is the connection's buffered reader, lent if it held none
// (tests reset it).
func (c *Conn) Reader() *bufio.Reader { return c.reader() }

// Used marks when the connection last carried a request.
func (c *Conn) Used(at time.Time) { c.lastUsed = at }

// Interrupt cuts off the request in flight on c, from any goroutine: its
// reads and writes fail at once.
func (c *Conn) Interrupt() { _ = c.nc.SetDeadline(time.Unix(1, 0)) }

// alive reports whether an idle connection is still open: a read that
// times out means it is; EOF or data nobody asked for means it is not.
// (A deadline already past would fail the read before it is tried.)
func (c *Conn) alive() bool {
	if c.Buffered() > 0 {
		return false
	}
	_ = c.nc.SetReadDeadline(time.Now().Add(time.Millisecond))
	_, err := c.reader().Peek(1)
	_ = c.nc.SetReadDeadline(time.Time{})
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout()
}

// Serves says whether the engine can carry requests to u: plain http://
// without a proxy in the way.
func Serves(u *url.URL) bool {
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

// Addr is the address a pool for u dials: its host, port 80 by default.
func Addr(u *url.URL) string {
	if u.Port() == "" {
		return net.JoinHostPort(u.Hostname(), "80")
	}
	return u.Host
}

// DialGate admits a bounded number of dials at a time.
type DialGate chan struct{}

// NewDialGate admits n dials at a time.
func NewDialGate(n int) DialGate { return make(DialGate, n) }

// Enter waits for a place and returns the function that leaves it.
func (g DialGate) Enter() func() {
	g <- struct{}{}
	return func() { <-g }
}
