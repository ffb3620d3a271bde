package h1

import (
	"bytes"
	"io"
	"sync/atomic"
	"time"

	"github.com/valyala/fasthttp"
)

// StreamState is how the caller left a streamed answer.
type StreamState uint8

const (
	StreamEnded    StreamState = iota // read to its end
	StreamLeftOpen                    // read up to what the caller needed; the rest is still to come
	StreamBroken                      // failed part-way: its connection is of no more use
)

// drainLimit bounds what is read of a stream's rest: past it, dropping
// the connection costs less than reading on.
const drainLimit = 256 << 10

// RestWait is the least the next request that takes a connection waits
// for the end of the stream left on it before it gives the connection up
// and dials; it waits longer for a slow server, up to four times the time
// the stream's response took (restWait). Servers end a stream just after its
// response (the spec's SHOULD), but a busy one writes the end after its
// other work: against the bundled stateless server at saturation, the
// ends of two answers in three came more than a millisecond after the
// next request wanted the connection, some after a third of a second. A
// client waits for the end as a client of HTTP/1.1 must, and the server
// sees no connects a real client would not make. A server that never ends
// its streams would cost each request this wait and a connect, so after
// heldInARow such streams in a row the client stops waiting (restWait)
// and dials as it did before, until a stream is seen to end again.
var RestWait = 50 * time.Millisecond

// LateEndWait is the wait for a stream's end once the server has been
// seen to end its streams after their responses: its ends come, late only
// when it is busy. With RestWait alone, 16 workers against the bundled
// stateless server on a loaded machine opened up to 28 connections where
// JSON answers took 16: the first ends came past 50 ms.
var LateEndWait = time.Second

// heldInARow is how many streams in a row must miss their wait before the
// client takes the server for one that holds its streams open.
const heldInARow = 3

// streamEnds is what a client has seen of the ends of the server's
// streams: how many in a row missed their wait, and whether any came
// after its response at all.
type streamEnds struct {
	held atomic.Int32
	seen atomic.Bool
}

// ended notes a stream that ended after its response.
func (e *streamEnds) ended() {
	e.held.Store(0)
	if !e.seen.Load() {
		e.seen.Store(true)
	}
}

// restWait is how long to wait for the end of a stream whose response
// took took; none when the server's last streams were all held open past
// their wait, so that such a server is not slowed by a wait per request.
func restWait(took time.Duration, e *streamEnds) time.Duration {
	switch {
	case e.held.Load() >= heldInARow:
		return 0
	case e.seen.Load():
		return max(LateEndWait, 4*took)
	}
	return max(RestWait, 4*took)
}

// ReadToEnd drains r (bounded) and reports whether it got to the end.
func ReadToEnd(r io.Reader) bool {
	if s, ok := r.(*chunkStream); ok {
		return s.drain(drainLimit)
	}
	n, err := io.Copy(io.Discard, io.LimitReader(r, drainLimit))
	return err == nil && n < drainLimit
}

// lastChunk is the end of a chunked body without trailers.
var lastChunk = []byte("0\r\n\r\n")

// streamRest is what is left of a streamed answer on its connection.
type streamRest struct {
	resp    *fasthttp.Response
	stream  io.Reader
	closing bool
	wait    time.Duration // restWait
	ends    *streamEnds   // the client's
}

// Finish gives a streamed answer's connection back to p. A stream read
// up to its response goes back with its rest unread: the next request to
// take the connection reads it off first (takeRest), so the connection
// is reused as a client reuses it, where reading it beside the caller
// freed the slot at once and the next request dialled a new connection
// before the old one came back. aheadHeld says the caller's own reader
// holds bytes of the stream it did not use; at is when the request went
// out.
func Finish(p Pool, c *Conn, a *Answer, state StreamState, aheadHeld bool, at time.Time) {
	c.lastUsed = at
	switch {
	case state == StreamEnded:
		release(a.resp)
		p.Put(c, !a.Close)
	case state == StreamLeftOpen && !aheadHeld && endBuffered(c, a):
		ended := ReadToEnd(a.Stream) // reads what is buffered: no wait
		if ended {
			p.ends().ended()
		}
		release(a.resp)
		p.Put(c, ended && !a.Close)
	case state == StreamLeftOpen:
		// The answer's own time: not the wait for the previous stream's
		// end, or a server that holds its streams would be waited for
		// longer with every request.
		took := time.Since(at) - c.restWaited
		ends := p.ends()
		c.rest = streamRest{resp: a.resp, stream: a.Stream, closing: a.Close, wait: restWait(took, ends), ends: ends}
		p.Put(c, true)
	default:
		release(a.resp)
		p.Put(c, false)
	}
}

// release gives back the response fasthttp's parser read a stream with;
// a stream read in place has none.
func release(r *fasthttp.Response) {
	if r != nil {
		fasthttp.ReleaseResponse(r)
	}
}

// takeRest reads the rest of a stream left on c, waiting up to its wait
// (and not past deadline) for its end, and reports whether c can carry
// another request.
func (c *Conn) takeRest(now, deadline time.Time) bool {
	r := c.rest
	c.rest = streamRest{}
	wait := now.Add(r.wait)
	if deadline.Before(wait) {
		wait = deadline
	}
	_ = c.nc.SetReadDeadline(wait) // the request sets its own after
	skip, _ := c.nc.(stampSkipper)
	if skip != nil {
		skip.SkipStamps(true) // the rest ends no latency: its stamp is never read
	}
	ended := ReadToEnd(r.stream)
	if skip != nil {
		skip.SkipStamps(false)
	}
	release(r.resp)
	if r.ends != nil {
		if ended {
			r.ends.ended()
		} else if r.wait > 0 {
			r.ends.held.Add(1)
		}
	}
	return ended && !r.closing
}

// stampSkipper is a connection whose reads can leave the kernel's receive
// stamp aside (an event loop's: plain read(2) rather than recvmsg).
type stampSkipper interface{ SkipStamps(skip bool) }

// discard closes c and lets go of a stream left on it.
func (c *Conn) discard() {
	c.dropReader()
	release(c.rest.resp)
	c.rest = streamRest{}
	c.nc.Close()
}

// endBuffered says the rest of a chunked stream left at its response is
// the last chunk, already read from the connection: the server closed the
// stream with the answer, as servers do, and nothing is left to wait for.
func endBuffered(c *Conn, a *Answer) bool {
	end := lastChunk
	if a.Stream == &c.events && c.events.crlf {
		end = crlfLastChunk // the end of the response's chunk comes first
	}
	if !a.Chunked || c.Buffered() < len(end) {
		return false
	}
	b, err := c.br.Peek(len(end))
	return err == nil && bytes.Equal(b, end)
}

var crlfLastChunk = []byte("\r\n0\r\n\r\n")
