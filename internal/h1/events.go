package h1

import (
	"errors"
	"io"
)

// chunkStream reads a chunked body in place, from its connection's read
// buffer, as it arrives: how an SSE answer of a common head is handed to
// the caller. fasthttp's stream reader, which read SSE answers before,
// went through a pooled response, its header parser, a LimitedReader and
// a ReadByte per framing byte. Each connection has one: it carries one
// answer at a time, and the rest of a stream may be read by the next
// request to take the connection, whoever sends it. It reads through the
// connection, not a buffer of its own: the connection may give its buffer
// back between the stream's response and its rest (lend.go).
type chunkStream struct {
	c    *Conn
	left int  // bytes of the current chunk not yet read
	crlf bool // the CRLF after a chunk's data is still to read
	err  error
}

// start makes s read the body that begins at the next byte of c.
func (s *chunkStream) start(c *Conn) io.Reader {
	*s = chunkStream{c: c}
	return s
}

// Read reads the body's data; io.EOF once its last chunk and trailers
// are read. A broken or cut stream fails for good.
func (s *chunkStream) Read(p []byte) (int, error) {
	if s.err != nil {
		return 0, s.err
	}
	if s.left == 0 {
		if err := s.next(); err != nil {
			s.err = cutShort(err)
			return 0, s.err
		}
	}
	n, err := s.c.reader().Read(p[:min(len(p), s.left)])
	s.left -= n
	if err != nil {
		s.err = cutShort(err)
	}
	return n, s.err
}

// drain reads the rest of the body off the connection without copying
// it anywhere: the rest of a stream is read for its end, not its bytes
// (io.Copy to io.Discard took a pooled buffer, a LimitedReader and a copy
// of each chunk per request). It reports whether the body ended with at
// most limit bytes of data left.
func (s *chunkStream) drain(limit int) bool {
	for s.err == nil {
		if s.left == 0 {
			if err := s.next(); err != nil {
				s.err = cutShort(err)
				break
			}
		}
		if s.left > limit {
			return false
		}
		n, err := s.c.reader().Discard(s.left)
		s.left -= n
		limit -= n
		if err != nil {
			s.err = cutShort(err)
		}
	}
	return s.err == io.EOF
}

// cutShort is err, except that the connection's end before the body's is
// no end of the body.
func cutShort(err error) error {
	switch err {
	case errLastChunk:
		return io.EOF
	case io.EOF:
		return io.ErrUnexpectedEOF
	}
	return err
}

// errLastChunk is the body's end, which Read says as io.EOF.
var errLastChunk = errors.New("last chunk")

// next reads up to the next chunk's data: errLastChunk at the last chunk,
// once the trailer section after it is read.
func (s *chunkStream) next() error {
	br := s.c.reader()
	if s.crlf {
		if err := readCRLF(br); err != nil {
			return err
		}
		s.crlf = false
	}
	line, err := br.ReadSlice('\n')
	if err != nil {
		return err
	}
	size, err := chunkSize(line)
	if err != nil {
		return err
	}
	if size == 0 {
		if err := skipTrailers(br); err != nil {
			return err
		}
		return errLastChunk
	}
	s.left, s.crlf = size, true
	return nil
}

// takeBufferedCRLF reads the CRLF that ends the chunk last read, when it
// has come: a stream left at its response most often has nothing else
// buffered, and its connection can then give its buffer back (lend.go).
func (s *chunkStream) takeBufferedCRLF() {
	if !s.crlf || s.err != nil || s.c.Buffered() < 2 {
		return
	}
	if err := readCRLF(s.c.br); err != nil {
		s.err = cutShort(err)
		return
	}
	s.crlf = false
}
