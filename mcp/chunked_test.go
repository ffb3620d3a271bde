package mcp

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/mcpbench/mcpbench/internal/h1"
)

// chunkedAnswer frames body as a chunked JSON answer, in chunks of at most
// size bytes, each size line followed by ext, and the trailer lines after
// the last chunk.
func chunkedAnswer(body string, size int, ext, trailer string) string {
	var b strings.Builder
	b.WriteString("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n")
	for len(body) > 0 {
		n := min(size, len(body))
		fmt.Fprintf(&b, "%X%s\r\n%s\r\n", n, ext, body[:n])
		body = body[n:]
	}
	b.WriteString("0\r\n" + trailer + "\r\n")
	return b.String()
}

// Broken, cut and oversized chunked answers each give one error that says
// what of the body came.
func TestChunkedAnswerFaults(t *testing.T) {
	head := "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n"
	cases := []struct {
		name, ans string
		kind      Kind
		want      string
	}{
		{"no size", head + "zz\r\n{}\r\n0\r\n\r\n", KindTransport, `broken chunked framing: chunk-size line "zz" has no size`},
		{"junk after the size", head + "2 x\r\n{}\r\n0\r\n\r\n", KindTransport, `chunk-size line "2 x" has "x" after the size`},
		{"size line without CR", head + "2\n{}\r\n0\r\n\r\n", KindTransport, "does not end in CRLF"},
		{"data longer than its size", head + "2\r\n{}}\r\n0\r\n\r\n", KindTransport, `"}\r" where a chunk's data should end in CRLF`},
		{"a size of 16 digits", head + "1000000000000000\r\n", KindTransport, "more than 15 hex digits"},
		{"closed inside a chunk", head + "40\r\n{\"jsonrpc\"\x00close", KindTransport, "chunked, 10 bytes of body came"},
		{"closed before the last chunk", head + "2\r\n{}\r\n\x00close", KindTransport, "chunked, 2 bytes of body came"},
		{"past the body limit", head + "400\r\n" + strings.Repeat(" ", 1024) + "\r\n401\r\n", KindTransport, "chunked, 1024 bytes of body came, then a chunk of 1025"},
		{"stalls inside a chunk", head + "40\r\n{\"jsonrpc\"", KindTimeout, "no whole answer in time: HTTP 200 application/json, chunked, 10 bytes of body came"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			url := scriptServer(t, 0, func(int, int, string) string { return c.ans })
			cl := bareClient(t, url, 300*time.Millisecond, 2048, EngineDirect)
			defer cl.Close(context.Background())
			s := cl.newSession()
			p, _ := s.Prepare(Request{Method: "tools/list"})
			r := s.Do(context.Background(), p, "")
			if r.Kind != c.kind || r.Err == nil || !strings.Contains(r.Err.Error(), c.want) {
				t.Fatalf("got %s: %v; want %s with %q", r.Kind, r.Err, c.kind, c.want)
			}
		})
	}
}

// BenchmarkChunkedAnswer reads a 10 KB tools/list answer in 4 KB chunks
// (what the Go SDK's server sends for eight tools) from a read buffer and
// scans it: in place, in place compared with the loop memo's answer
// (wire_match.go), and through fasthttp's streaming reader as before.
func BenchmarkChunkedAnswer(b *testing.B) {
	tool := `{"name":"tool","description":"` + strings.Repeat("d", 1200) + `","inputSchema":{"type":"object"}},`
	body := `{"jsonrpc":"2.0","id":1,"result":{"tools":[` + strings.Repeat(tool, 8) + `{"name":"last","inputSchema":{"type":"object"}}]}}`
	ans := []byte(chunkedAnswer(body, 4096, "", ""))
	for _, path := range []string{"in-place", "matched", "fasthttp"} {
		b.Run(path, func(b *testing.B) {
			d := &directTransport{httpTransport: httpTransport{s: &Session{}}, pool: h1.NewPool(h1.Config{Size: 1, MaxBody: 1 << 20})}
			if path == "matched" { // compared with the loop memo's answer as it is read
				d.memo = memoOf(b, body)
				d.pool = readingPool(1 << 20)
			}
			stream := ans
			if path == "fasthttp" { // a head the in-place parser leaves to fasthttp's
				stream = bytes.Replace(ans, []byte("\r\n\r\n"), []byte("\r\nContent-Encoding: identity\r\n\r\n"), 1)
			}
			rd := bytes.NewReader(stream)
			c := h1.NewConn(readerConn{r: rd})
			var rep reply
			b.SetBytes(int64(len(ans)))
			b.ReportAllocs()
			for b.Loop() {
				rd.Reset(stream)
				c.Reader().Reset(c)
				a, err := d.readAnswer(c, "tools/list", 1)
				if err != nil {
					b.Fatal(err)
				}
				if path == "matched" {
					if !a.Matched || !d.answersID(&a, 1) {
						b.Fatal("not matched")
					}
					d.returnLent()
					continue
				}
				if err := rep.parse(a.Body); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
