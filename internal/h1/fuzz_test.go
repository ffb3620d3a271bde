package h1

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"testing"

	"github.com/valyala/fasthttp"
)

// FuzzWireAnswer: whatever bytes a server sends, the direct engine's
// reading of an answer never panics, and where it takes an answer in place
// that fasthttp's parser also reads, both find the same status, content
// type, body and connection close, and leave the same bytes unread.
func FuzzWireAnswer(f *testing.F) {
	f.Add([]byte("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}"))
	f.Add([]byte("HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\nConnection: close\r\n\r\nHTTP/1.1 200 OK\r\n"))
	f.Add([]byte("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\n{}\r\n0\r\n\r\n"))
	f.Add([]byte("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n2 ;a=b\r\n{}\r\nA\r\n0123456789\r\n0\r\nX-T: y\r\n\r\nHTTP/1.1 200"))
	f.Add([]byte("HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: 1\r\n\r\nx"))
	f.Add([]byte("HTTP/1.1 200\r\ncontent-length:3 \r\nMcp-Session-Id: s\r\n\r\nabcdef"))
	f.Fuzz(func(t *testing.T, data []byte) {
		var cl Caller
		pool := NewPool(Config{Size: 1, MaxBody: 1 << 16})
		c := NewConn(readerConn{r: bytes.NewReader(data)})
		br := c.Reader()
		var a Answer
		err := cl.Read(pool, c, &Request{Keep: hSession}, &a)
		h, herr := peekHead(bufio.NewReaderSize(bytes.NewReader(data), ReadBuffer))
		var probe Answer
		if herr != nil || !parseHead(h, &probe, hSession) {
			return // fasthttp's own reading, or no answer at all
		}
		var r fasthttp.Response
		fr := bufio.NewReaderSize(bytes.NewReader(data), ReadBuffer)
		if r.ReadLimitBody(fr, 1<<16) != nil {
			return // fasthttp is stricter about this one
		}
		if err != nil {
			// fasthttp takes a last chunk that the input ends right after
			// as a whole body; a connection that ends there has cut the
			// answer short, so the in-place reader says so.
			if !probe.Chunked || !errors.Is(err, io.EOF) {
				t.Fatalf("fasthttp reads this answer, the in-place reader refused it: %v", err)
			}
			return
		}
		rest, _ := io.ReadAll(br)
		frest, _ := io.ReadAll(fr)
		switch {
		case a.Status != r.StatusCode():
			t.Fatalf("status %d, fasthttp %d", a.Status, r.StatusCode())
		case a.ContentType != "" && a.ContentType != string(r.Header.ContentType()):
			// (Without one, fasthttp reports its default, text/plain.)
			t.Fatalf("content type %q, fasthttp %q", a.ContentType, r.Header.ContentType())
		case !bytes.Equal(a.Body, r.Body()):
			t.Fatalf("body %q, fasthttp %q", a.Body, r.Body())
		case a.Close != (r.ConnectionClose() || closeInOtherCase(h)):
			t.Fatalf("close %v, fasthttp %v", a.Close, r.ConnectionClose())
		case !bytes.Equal(rest, frest):
			t.Fatalf("left %q unread, fasthttp %q", rest, frest)
		}
	})
}

// closeInOtherCase says head has "Connection: close" with the option in
// another case than lower: fasthttp takes only "close", where RFC 9110
// (section 7.6.1) makes connection options case-insensitive, as the
// in-place parser does.
func closeInOtherCase(head []byte) bool {
	for _, line := range bytes.Split(head, []byte("\r\n")) {
		name, value, ok := bytes.Cut(line, []byte(":"))
		value = bytes.TrimSpace(value)
		if ok && bytes.EqualFold(name, []byte("Connection")) && bytes.EqualFold(value, []byte("close")) && !bytes.Equal(value, []byte("close")) {
			return true
		}
	}
	return false
}
