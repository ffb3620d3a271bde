package mcp

import (
	"io"
	"strings"
	"testing"
)

// A lone CR ends a line in SSE as LF and CRLF do. A stream whose every
// line ends so comes to the reader as one line; before, only its first CR
// was taken as a line end, and the answer was lost (engine random test,
// seed 1: "0 SSE events").
func TestSSEReaderTakesLoneCRLineEnds(t *testing.T) {
	s := newSSEReader(1 << 20)
	s.reset(strings.NewReader("retry: 10\r\r: note\revent: message\rdata: {\"a\":1}\r\rdata: x\rdata: y\r\n\r"))
	for _, want := range []string{`{"a":1}`, "x\ny"} {
		got, err := s.next()
		if err != nil || string(got) != want {
			t.Fatalf("event %q, %v; want %q", got, err, want)
		}
	}
	if got, err := s.next(); err != io.EOF {
		t.Fatalf("after the events: %q, %v; want EOF", got, err)
	}
	if s.retryMS != 10 {
		t.Errorf("retry %d, want 10", s.retryMS)
	}
}
