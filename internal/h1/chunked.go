package h1

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
)

// Chunked answers (what net/http servers send for any answer past their
// 4 KiB write buffer, the Go SDK's tools/list among them) are read here,
// in place, rather than by fasthttp's streaming reader: that one goes
// through a LimitedReader, a bufio.ReadByte per framing byte and a copy
// into a bytes.Buffer, about a third of the client's CPU per request
// against the SDK server. SSE streams, read as they arrive, are read in
// place too (events.go).

// maxChunkSizeDigits bounds a chunk size's hex digits: 15 is past any
// body the engine takes and below what an int holds.
const maxChunkSizeDigits = 15

// BrokenChunk is chunked framing the engine cannot follow.
type BrokenChunk struct{ why string }

func (e BrokenChunk) Error() string { return "broken chunked framing: " + e.why }

// readChunks reads a chunked body (RFC 9112, section 7.1) from br into
// the caller's answer buffer, the trailer section after it read and
// dropped.
func (cl *Caller) readChunks(br *bufio.Reader, a *Answer, limit int) error {
	body := cl.in[:0]
	defer func() { cl.in = body[:0] }() // keep the grown buffer for the next answer
	for {
		line, err := br.ReadSlice('\n')
		if err != nil {
			return cl.chunkError(a, body, err)
		}
		size, err := chunkSize(line)
		if err != nil {
			return cl.chunkError(a, body, err)
		}
		if size == 0 {
			break
		}
		if n := cl.bodyRead(body); size > limit-n {
			return &TooLarge{What: a.Describe(int64(n), -1) + fmt.Sprintf(", then a chunk of %d", size), Limit: limit}
		}
		if body, _, err = cl.readData(br, body, size); err != nil {
			return cl.chunkError(a, body, err)
		}
		if err := readCRLF(br); err != nil {
			return cl.chunkError(a, body, err)
		}
	}
	if err := skipTrailers(br); err != nil {
		return cl.chunkError(a, body, err)
	}
	cl.finishMatch(a, body)
	return nil
}

// chunkError says how a chunked body was cut short or broken, and how
// much of it had come.
func (cl *Caller) chunkError(a *Answer, body []byte, err error) error {
	if errors.Is(err, bufio.ErrBufferFull) {
		err = BrokenChunk{fmt.Sprintf("a chunk-size or trailer line past %d bytes", ReadBuffer)}
	}
	return &Cut{What: a.Describe(int64(cl.bodyRead(body)), -1), Err: err}
}

// chunkSize reads a chunk-size line: hex digits, optional blanks, an
// optional extension after ';' (ignored), CRLF.
func chunkSize(line []byte) (int, error) {
	if len(line) < 2 || line[len(line)-2] != '\r' {
		return 0, BrokenChunk{fmt.Sprintf("chunk-size line %.20q does not end in CRLF", line)}
	}
	line = line[:len(line)-2]
	size, digits := 0, 0
	for ; digits < len(line); digits++ {
		v := unhex(line[digits])
		if v < 0 {
			break
		}
		if digits == maxChunkSizeDigits {
			return 0, BrokenChunk{"a chunk size of more than 15 hex digits"}
		}
		size = size<<4 | v
	}
	if digits == 0 {
		return 0, BrokenChunk{fmt.Sprintf("chunk-size line %.20q has no size", line)}
	}
	rest := bytes.TrimLeft(line[digits:], " \t")
	if len(rest) > 0 && rest[0] != ';' || bytes.IndexByte(rest, '\r') >= 0 {
		return 0, BrokenChunk{fmt.Sprintf("chunk-size line %.20q has %q after the size", line, rest)}
	}
	return size, nil
}

func unhex(c byte) int {
	switch {
	case c >= '0' && c <= '9':
		return int(c - '0')
	case c >= 'a' && c <= 'f':
		return int(c-'a') + 10
	case c >= 'A' && c <= 'F':
		return int(c-'A') + 10
	}
	return -1
}

// readCRLF reads the CRLF that ends a chunk's data.
func readCRLF(br *bufio.Reader) error {
	b, err := br.Peek(2)
	if err != nil {
		return err
	}
	if b[0] != '\r' || b[1] != '\n' {
		return BrokenChunk{fmt.Sprintf("%q where a chunk's data should end in CRLF", b)}
	}
	_, err = br.Discard(2)
	return err
}

// skipTrailers reads the trailer section after the last chunk up to the
// empty line that ends it. The engine uses no trailer field.
func skipTrailers(br *bufio.Reader) error {
	for {
		line, err := br.ReadSlice('\n')
		if err != nil {
			return err
		}
		if len(line) == 1 || len(line) == 2 && line[0] == '\r' {
			return nil
		}
	}
}

// AtoiDigits reads b, one to nine decimal digits and nothing else.
func AtoiDigits(b []byte) (int, bool) {
	if len(b) == 0 || len(b) > 9 {
		return 0, false
	}
	n := 0
	for _, c := range b {
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int(c-'0')
	}
	return n, true
}
