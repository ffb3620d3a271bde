package h1

import (
	"bytes"
	"io"
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

// ReadToEnd drains r (bounded) and reports whether it got to the end.
func ReadToEnd(r io.Reader) bool {
	n, err := io.Copy(io.Discard, io.LimitReader(r, drainLimit))
	return err == nil && n < drainLimit
}

// lastChunk is the end of a chunked body without trailers.
var lastChunk = []byte("0\r\n\r\n")

// Finish gives a streamed answer's connection back to p once the stream
// has ended: at once when it was read to its end, else from beside the
// caller (a goroutine, or a task of the loop) that reads the rest, so
// neither this request nor the next waits for the server to close a
// stream whose response is in. aheadHeld says the caller's own reader
// holds bytes of the stream it did not use; at is when the request went
// out.
func Finish(p Pool, c *Conn, a *Answer, state StreamState, aheadHeld bool, at time.Time) {
	done := func(ended bool) {
		fasthttp.ReleaseResponse(a.resp)
		c.lastUsed = at
		p.Put(c, ended && !a.Close)
	}
	switch {
	case state == StreamEnded:
		done(true)
	case state == StreamLeftOpen && !aheadHeld && endBuffered(c, a):
		done(ReadToEnd(a.Stream)) // reads what is buffered: no wait
	case state == StreamLeftOpen:
		p.lend(c)
		resp, stream, closing := a.resp, a.Stream, a.Close
		p.beside(func() { // the deadline set for the request bounds the read
			ended := ReadToEnd(stream)
			fasthttp.ReleaseResponse(resp)
			c.lastUsed = at
			p.giveBack(c, ended && !closing)
		})
	default:
		done(false)
	}
}

// endBuffered says the rest of a chunked stream left at its response is
// the last chunk, already read from the connection: the server closed the
// stream with the answer, as servers do, and nothing is left to wait for.
func endBuffered(c *Conn, a *Answer) bool {
	if a.resp.Header.ContentLength() != -1 || c.br.Buffered() < len(lastChunk) {
		return false
	}
	b, err := c.br.Peek(len(lastChunk))
	return err == nil && bytes.Equal(b, lastChunk)
}
