package mcp

import (
	"bufio"
	"sync"
)

// A session on the direct engine holds its SSE reader's 16 KiB read buffer
// only while an answer streams: idle sessions by the ten thousand would
// otherwise keep 160 MB of buffers they are not reading. The rest of the
// reader stays with the session: its reply points into the event's data
// until the session's next request.
var sseBuffers sync.Pool // *bufio.Reader

func newSSEBuffer() *bufio.Reader { return bufio.NewReaderSize(nil, 16<<10) }

// lendSSE gives the session an SSE reader with a read buffer, one given
// back by another session if there is one.
func (s *Session) lendSSE() *sseReader {
	if s.sse == nil {
		// Without a buffer of its own: one made here would go to the
		// pool at the answer's end, one more for every session, and the
		// pool held thousands of them between collections.
		s.sse = &sseReader{max: s.c.maxBody}
	}
	if s.sse.r == nil {
		s.sse.r = lendSSEBuffer()
	}
	return s.sse
}

// lendSSEBuffer is an SSE read buffer, one given back if there is one.
func lendSSEBuffer() *bufio.Reader {
	if r, ok := sseBuffers.Get().(*bufio.Reader); ok {
		return r
	}
	return newSSEBuffer()
}

// returnSSEBuffer gives a lent buffer back, holding no stream.
func returnSSEBuffer(r *bufio.Reader) {
	r.Reset(nil)
	sseBuffers.Put(r)
}

// returnSSE gives the read buffer back once the answer is in and the
// stream's rest is left to the connection: nothing reads it again before
// the next stream, which lends one anew. Lines split off it go with it.
func (s *Session) returnSSE() {
	if s.sse == nil || s.sse.r == nil {
		return
	}
	returnSSEBuffer(s.sse.r) // holding no stream it read
	s.sse.r, s.sse.pending = nil, s.sse.pending[:0]
}
