package mcp

import (
	"bufio"
	"errors"
	"net"
	"net/url"
	"os"
	"strings"
	"sync/atomic"
	"time"

	"github.com/mcpbench/mcpbench/internal/evloop"
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
// one receive, giving it back one send. A loop's pool counts its free
// slots instead (transport_loop.go).
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
	// idle are a loop pool's idle connections, the last used on top, and
	// free its free slots, idle ones among them (transport_loop.go).
	idle []*wireConn
	free int
	// memo is a loop pool's parse memo, one for all the sessions whose
	// requests the loop runs, and pools the client's loop pools, which
	// bound the growth of their read buffers (transport_loop.go).
	memo  *parseMemo
	pools *loopPools
	// head is a loop pool's last head (wire_head.go).
	head headMemo

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
	if p.onLoop != nil {
		c, err := p.getOnLoop(now, deadline) // transport_loop.go
		return c, 0, err
	}
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
	c, err := p.ready(c, now, deadline)
	return c, waited, err
}

// ready makes c, the connection of the slot just taken, fit to send on:
// a stale one is checked and dropped if dead, and nil is dialled. A
// failed dial frees the slot again.
func (p *wirePool) ready(c *wireConn, now, deadline time.Time) (*wireConn, error) {
	if c != nil && now.Sub(c.lastUsed) > wireStaleAfter && !c.alive() {
		c.nc.Close()
		c = nil
	}
	if c != nil {
		return c, nil
	}
	c, err := p.dial(deadline)
	if err != nil {
		p.freeSlot()
		return nil, err
	}
	return c, nil
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
	if p.onLoop != nil {
		p.putOnLoop(c)
		return
	}
	p.slots <- c
}

// lend takes c, whose stream is still being read after its response, out
// of the pool's count: its slot is free for another connection at once, so
// no request waits for a server to close a stream it no longer needs.
func (p *wirePool) lend(*wireConn) { p.freeSlot() }

// freeSlot frees a slot that holds no connection.
func (p *wirePool) freeSlot() {
	if p.onLoop != nil {
		p.free++
		return
	}
	p.slots <- nil
}

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
