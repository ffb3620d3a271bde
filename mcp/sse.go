package mcp

import (
	"bufio"
	"bytes"
	"errors"
	"io"

	"github.com/mcpbench/mcpbench/internal/h1"
)

// sseReader parses a text/event-stream incrementally. It keeps its buffers
// between streams so a worker parses every answer without allocating.
type sseReader struct {
	r    *bufio.Reader
	data []byte // the current event's data lines, joined by '\n'
	line []byte // a line longer than the bufio buffer, assembled
	// Event fields of the last dispatched event.
	event   []byte
	id      []byte
	retryMS int
	hasData bool
	max     int      // the most bytes one event may carry
	pending [][]byte // lines split off at a bare CR
	read    int64
	events  int // events with data dispatched on this stream
	// idle, when set, is asked at each line with nothing buffered whether
	// the stream is idle (a standing stream on a loop, transport_direct_listen.go):
	// next then returns errIdle and takes the event up where it was at
	// its next call (partial).
	idle    func() bool
	partial bool
}

var errEventTooLarge = errors.New("SSE event larger than the response limit")

// errIdle is a stream with nothing more to read for now (sseReader.idle).
var errIdle = errors.New("SSE stream idle")

func newSSEReader(max int) *sseReader {
	return &sseReader{r: newSSEBuffer(), max: max}
}

func (s *sseReader) reset(r io.Reader) {
	s.r.Reset(r)
	s.data = s.data[:0]
	s.event = s.event[:0]
	s.id = s.id[:0]
	s.retryMS = -1
	s.hasData = false
	s.read = 0
	s.events = 0
	s.pending = s.pending[:0]
	s.partial = false
}

// readLine returns one line without its terminator (LF, CRLF or CR). The
// slice is valid until the next call.
func (s *sseReader) readLine() ([]byte, error) {
	line, err := s.r.ReadSlice('\n')
	if err == bufio.ErrBufferFull {
		s.line = append(s.line[:0], line...)
		for err == bufio.ErrBufferFull {
			if len(s.line) > s.max {
				return nil, errEventTooLarge
			}
			line, err = s.r.ReadSlice('\n')
			s.line = append(s.line, line...)
		}
		line = s.line
	}
	s.read += int64(len(line))
	if err != nil && !(err == io.EOF && len(line) > 0) {
		return nil, err
	}
	line = bytes.TrimSuffix(line, []byte{'\n'})
	line = bytes.TrimSuffix(line, []byte{'\r'})
	// A lone CR also ends a line in SSE. Rare: every line after the first
	// bare CR is kept, copied, for the calls after this one. (A stream
	// whose every line ends in a lone CR is all one such read.)
	if i := bytes.IndexByte(line, '\r'); i >= 0 {
		for _, rest := range bytes.Split(line[i+1:], []byte{'\r'}) {
			s.pending = append(s.pending, bytes.Clone(rest))
		}
		line = line[:i]
	}
	return line, nil
}

// next reads until one event with data is complete and returns its data. It
// returns io.EOF at the end of the stream; an event cut off by EOF is
// dropped, as the SSE rules say.
func (s *sseReader) next() ([]byte, error) {
	if !s.partial {
		s.data = s.data[:0]
		s.hasData = false
		s.event = s.event[:0]
	}
	s.partial = false
	for {
		var line []byte
		var err error
		if len(s.pending) > 0 {
			line, s.pending = s.pending[0], s.pending[1:]
		} else {
			if s.idle != nil && s.r.Buffered() == 0 && s.idle() {
				s.partial = true
				return nil, errIdle
			}
			line, err = s.readLine()
			if err != nil {
				if err == io.EOF && s.hasData {
					return nil, io.ErrUnexpectedEOF
				}
				return nil, err
			}
		}
		if len(line) == 0 {
			if s.hasData {
				s.events++
				return s.data, nil
			}
			s.event = s.event[:0]
			continue
		}
		if line[0] == ':' {
			continue // a comment, used as a keep-alive
		}
		field, value := line, []byte(nil)
		if i := bytes.IndexByte(line, ':'); i >= 0 {
			field, value = line[:i], line[i+1:]
			if len(value) > 0 && value[0] == ' ' {
				value = value[1:]
			}
		}
		switch string(field) {
		case "data":
			if s.hasData {
				s.data = append(s.data, '\n')
			}
			s.data = append(s.data, value...)
			s.hasData = true
			if len(s.data) > s.max {
				return nil, errEventTooLarge
			}
		case "event":
			s.event = append(s.event[:0], value...)
		case "id":
			if bytes.IndexByte(value, 0) < 0 {
				s.id = append(s.id[:0], value...)
			}
		case "retry":
			if n, ok := h1.AtoiDigits(value); ok {
				s.retryMS = n
			}
		}
	}
}
