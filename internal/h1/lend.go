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
//
// The spare buffers are kept on a stack of their own rather than in a
// sync.Pool: a burst (ten thousand sessions opening at once) left that
// many in the pool, and a process whose sessions then idle runs no
// collection to empty it. Here a buffer given back is kept only while
// the spares number fewer than the buffers lent plus spareSlack, and
// each one given back past that drops a spare too, so after a burst the
// spares shrink with the requests in flight.
var readers struct {
	sync.Mutex
	spare []*bufio.Reader // each of ReadBuffer bytes
	lent  int
}

// spareSlack is how many spare buffers are kept beyond those lent.
const spareSlack = 16

// reader is c's read buffer, lent if c holds none.
func (c *Conn) reader() *bufio.Reader {
	if c.br == nil {
		c.br = lendReader()
		c.br.Reset(c)
	}
	return c.br
}

func lendReader() *bufio.Reader {
	readers.Lock()
	readers.lent++
	var r *bufio.Reader
	if n := len(readers.spare); n > 0 {
		r = readers.spare[n-1]
		readers.spare[n-1] = nil
		readers.spare = readers.spare[:n-1]
	}
	readers.Unlock()
	if r == nil {
		r = bufio.NewReaderSize(nil, ReadBuffer)
	}
	return r
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
	switch {
	case c.br == nil || c.grown:
	case c.rest.resp == nil:
		giveBack(c.br)
	case c.br.Size() == ReadBuffer:
		readers.Lock()
		readers.lent-- // lent, and lost with the connection
		readers.Unlock()
	}
	c.br, c.grown = nil, false
}

// giveBack returns a lent buffer, which is kept as a spare or dropped.
func giveBack(r *bufio.Reader) {
	if r.Size() != ReadBuffer {
		return // not lent: one a test made of another size
	}
	r.Reset(nil) // holds no connection while it waits
	readers.Lock()
	readers.lent--
	// Past the bound (the lent fell since the spares were put back) one
	// more is dropped, so the spares follow the lent down.
	if n := len(readers.spare); n > readers.lent+spareSlack {
		readers.spare[n-1] = nil
		readers.spare = readers.spare[:n-1]
	}
	if len(readers.spare) < readers.lent+spareSlack {
		readers.spare = append(readers.spare, r)
	}
	readers.Unlock()
}
