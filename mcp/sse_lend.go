package mcp

import "sync"

// A session on the direct engine holds an SSE reader (16 KiB of read
// buffer) only while an answer streams: idle sessions by the ten thousand
// would otherwise keep 160 MB of buffers they are not reading.
var sseReaders sync.Pool

// lendSSE gives the session an SSE reader, from those given back if one is.
func (s *Session) lendSSE() *sseReader {
	if s.sse == nil {
		if r, ok := sseReaders.Get().(*sseReader); ok {
			r.max = s.c.maxBody
			s.sse = r
		} else {
			s.sse = newSSEReader(s.c.maxBody)
		}
	}
	return s.sse
}

// returnSSE gives the session's SSE reader back once its answer is done
// with: nothing of it is read again before the next stream resets it.
func (s *Session) returnSSE() {
	if s.sse == nil {
		return
	}
	s.sse.r.Reset(nil) // let go of the stream it read
	sseReaders.Put(s.sse)
	s.sse = nil
}
