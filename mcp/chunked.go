package mcp

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
)

// Chunked answers of JSON (what net/http servers send for any answer past
// their 4 KiB write buffer, the Go SDK's tools/list among them) are read
// here, in place, rather than by fasthttp's streaming reader: that one
// goes through a LimitedReader, a bufio.ReadByte per framing byte and a
// copy into a bytes.Buffer, about a third of the client's CPU per request
// against the SDK server. SSE streams, which are read as they arrive, stay
// with fasthttp.

// maxChunkSizeDigits bounds a chunk size's hex digits: 15 is past any
// body the client takes and below what an int holds.
const maxChunkSizeDigits = 15

// errBrokenChunk is chunked framing the client cannot follow.
type errBrokenChunk struct{ why string }

func (e errBrokenChunk) Error() string { return "broken chunked framing: " + e.why }

// readChunks reads a chunked body (RFC 9112, section 7.1) from br into
// the session's answer buffer, the trailer section after it read and
// dropped. a is the answer's head, for the errors.
func (t *directTransport) readChunks(br *bufio.Reader, a *wireAnswer, method string) error {
	body := t.in[:0]
	defer func() { t.in = body[:0] }() // keep the grown buffer for the next answer
	for {
		line, err := br.ReadSlice('\n')
		if err != nil {
			return t.chunkError(method, a, t.bodyRead(body), err)
		}
		size, err := chunkSize(line)
		if err != nil {
			return t.chunkError(method, a, t.bodyRead(body), err)
		}
		if size == 0 {
			break
		}
		if n := t.bodyRead(body); size > t.pool.maxBody-n {
			return tooLarge(method, a.describe(int64(n), -1)+fmt.Sprintf(", then a chunk of %d", size), t.pool.maxBody)
		}
		if body, _, err = t.readData(br, body, size); err != nil {
			return t.chunkError(method, a, t.bodyRead(body), err)
		}
		if err := readCRLF(br); err != nil {
			return t.chunkError(method, a, t.bodyRead(body), err)
		}
	}
	if err := skipTrailers(br); err != nil {
		return t.chunkError(method, a, t.bodyRead(body), err)
	}
	t.finishMatch(a, body)
	return nil
}

// chunkError says how a chunked body was cut short or broken, and how
// much of it had come.
func (t *directTransport) chunkError(method string, a *wireAnswer, got int, err error) error {
	if errors.Is(err, bufio.ErrBufferFull) {
		err = errBrokenChunk{fmt.Sprintf("a chunk-size or trailer line past %d bytes", wireReadBuffer)}
	}
	return answerCut(method, err, a.describe(int64(got), -1))
}

// chunkSize reads a chunk-size line: hex digits, optional blanks, an
// optional extension after ';' (ignored), CRLF.
func chunkSize(line []byte) (int, error) {
	if len(line) < 2 || line[len(line)-2] != '\r' {
		return 0, errBrokenChunk{fmt.Sprintf("chunk-size line %.20q does not end in CRLF", line)}
	}
	line = line[:len(line)-2]
	size, digits := 0, 0
	for ; digits < len(line); digits++ {
		v := unhex(line[digits])
		if v < 0 {
			break
		}
		if digits == maxChunkSizeDigits {
			return 0, errBrokenChunk{"a chunk size of more than 15 hex digits"}
		}
		size = size<<4 | v
	}
	if digits == 0 {
		return 0, errBrokenChunk{fmt.Sprintf("chunk-size line %.20q has no size", line)}
	}
	rest := bytes.TrimLeft(line[digits:], " \t")
	if len(rest) > 0 && rest[0] != ';' || bytes.IndexByte(rest, '\r') >= 0 {
		return 0, errBrokenChunk{fmt.Sprintf("chunk-size line %.20q has %q after the size", line, rest)}
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
		return errBrokenChunk{fmt.Sprintf("%q where a chunk's data should end in CRLF", b)}
	}
	_, err = br.Discard(2)
	return err
}

// skipTrailers reads the trailer section after the last chunk up to the
// empty line that ends it. The client uses no trailer field.
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
