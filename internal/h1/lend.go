package h1

import (
	"bufio"
	"sync"
)

// A connection holds a read buffer only while something is read off it:
// an answer in flight, the rest of a stream still coming, the check of a
// stale connection. Between requests it goes back to a pool shared by
// every pool and loop of the process, so ten thousand kept connections
// of idle sessions hold none (8 KiB each, the most of what an idle
// session cost), and the buffers in use are as many as the requests in
// flight. A buffer grown to a loop's answers (fit) stays with its
// connection: its growth is bounded by the loops' budget instead.
var readers sync.Pool // *bufio.Reader of ReadBuffer bytes

// reader is c's read buffer, lent from the pool if c holds none.
func (c *Conn) reader() *bufio.Reader {
	if c.br == nil {
		if r, ok := readers.Get().(*bufio.Reader); ok {
			r.Reset(c)
			c.br = r
		} else {
			c.br = bufio.NewReaderSize(c, ReadBuffer)
		}
	}
	return c.br
}

// settle gives c's read buffer back when nothing in it is still to be
// read and nothing else reads it: c carries no request now. A stream's
// rest read in place keeps no hold on the buffer (chunkStream reads
// through c), one read by fasthttp's parser does.
func (c *Conn) settle() {
	if c.rest.stream == &c.events {
		c.events.takeBufferedCRLF()
	}
	if c.br == nil || c.grown || c.br.Buffered() > 0 || c.rest.resp != nil {
		return
	}
	giveBack(c.br)
	c.br = nil
}

// dropReader lets go of c's read buffer as c is closed: back to the pool
// unless another reader (fasthttp's, for a stream's rest) may hold it.
func (c *Conn) dropReader() {
	if c.br != nil && !c.grown && c.rest.resp == nil {
		giveBack(c.br)
	}
	c.br, c.grown = nil, false
}

func giveBack(r *bufio.Reader) {
	if r.Size() != ReadBuffer {
		return // one a test made of another size
	}
	r.Reset(nil) // holds no connection while it waits
	readers.Put(r)
}
