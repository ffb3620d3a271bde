package h1

import (
	"bufio"
	"io"
	"net"
	"time"

	"github.com/valyala/fasthttp"
)

// A standing stream is a request whose answer is a stream of events that
// stays open for as long as its caller wants (an MCP session's GET
// stream), on a connection of its own rather than a pool's. It is mostly
// idle: on an event loop it is read only when data comes (OnReadable),
// and between its events it holds no read buffer (Idle), so ten thousand
// of them cost the generator their sockets and a few hundred bytes each.

// Standing is a standing stream: its answer's head, and its body to read
// as it comes.
type Standing struct {
	Head
	Close bool // the answer ends with its connection
	c     *Conn
	body  io.Reader
	resp  *fasthttp.Response
}

// Stand writes r on nc, a connection for this stream alone, and reads
// its answer's head. A successful SSE answer's body is left to read
// (Body); any other answer is read whole, bounded by limit, and nc is
// closed. The stream has no deadline once its head is read.
func Stand(nc net.Conn, r *Request, limit int) (*Standing, error) {
	c := NewConn(nc)
	if s, ok := nc.(stampSkipper); ok {
		s.SkipStamps(true) // no latency ends on this stream
	}
	var cl Caller
	var a Answer
	if err := cl.Do(alone{limit}, c, r, &a); err != nil {
		c.discard()
		return nil, err
	}
	st := &Standing{Head: a.Head, Close: a.Close, c: c, body: a.Stream, resp: a.resp}
	if st.body == nil {
		st.Stop()
		return st, nil
	}
	_ = nc.SetDeadline(time.Time{})
	st.Idle()
	return st, nil
}

// Body is the stream's body, read through the connection; nil when the
// answer was no stream.
func (s *Standing) Body() io.Reader { return s.body }

// Idle reports whether nothing of the stream is left to read without
// waiting for the socket: it has given back its read buffer then. Off an
// event loop a connection cannot tell, and is never idle.
func (s *Standing) Idle() bool {
	c := s.c
	if s.body == &c.events {
		c.events.takeBufferedCRLF() // a chunk's end, come with its data
	}
	r, ok := c.nc.(interface{ Readable() bool })
	if !ok || c.Buffered() > 0 || r.Readable() {
		return false
	}
	if c.br != nil && !c.grown && s.resp == nil { // fasthttp's reader holds it
		giveBack(c.br)
		c.br = nil
	}
	return true
}

// OnReadable has fn called, on a task of the connection's event loop,
// whenever data comes (evloop.Conn.OnReadable): fn reads until Idle. It
// reports false for a connection of no event loop.
func (s *Standing) OnReadable(fn func()) bool {
	r, ok := s.c.nc.(interface{ OnReadable(func()) })
	if ok {
		r.OnReadable(fn)
	}
	return ok
}

// Stop closes the stream's connection, from the connection's loop or
// from anywhere once the loop no longer runs.
func (s *Standing) Stop() {
	if r, ok := s.c.nc.(interface{ OnReadable(func()) }); ok {
		r.OnReadable(nil)
	}
	release(s.resp)
	s.resp = nil
	s.c.discard()
}

// Drop closes the stream's connection as Stop does, from the
// connection's loop, while a task of the loop may be suspended in a read
// of the stream: its read buffer (and fasthttp's response, for a stream
// read by fasthttp) stay with that reader, who gets the closed
// connection's error, rather than going back to be lent to another
// connection while the reader still fills and consumes them.
func (s *Standing) Drop() {
	if r, ok := s.c.nc.(interface{ OnReadable(func()) }); ok {
		r.OnReadable(nil)
	}
	s.resp = nil
	c := s.c
	if c.br != nil && !c.grown && c.br.Size() == ReadBuffer {
		readers.Lock()
		readers.lent-- // lent, and lost with the connection
		readers.Unlock()
	}
	c.br, c.grown, c.rest = nil, false, streamRest{}
	c.nc.Close()
}

// Once writes r on nc, a connection for this request alone, reads its
// answer whole (bounded by limit) and closes nc: for a message that must
// go out while every connection of its pool is in use.
func Once(nc net.Conn, r *Request, limit int) (Head, error) {
	c := NewConn(nc)
	defer c.discard()
	var cl Caller
	var a Answer
	if err := cl.Do(alone{limit}, c, r, &a); err != nil {
		return Head{}, err
	}
	release(a.resp)
	return a.Head, nil
}

// alone is the Pool of a connection used alone (Stand, Once): it gives
// none out, takes none back and remembers no head.
type alone struct{ max int }

var _ Pool = alone{}

func (alone) Get(time.Time, time.Time) (*Conn, time.Duration, error) {
	return nil, 0, ErrNoFreeConn
}
func (alone) Put(*Conn, bool)                                        {}
func (alone) Close()                                                 {}
func (a alone) limit() int                                           { return a.max }
func (alone) recallHead(*bufio.Reader, []byte) ([]byte, *Head, bool) { return nil, nil, false }
func (alone) rememberHead([]byte, Head, bool, []byte)                {}
func (alone) fit(*Conn, int)                                         {}
func (alone) ends() *streamEnds                                      { return new(streamEnds) }
