package h1

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"reflect"
	"strings"
	"testing"
)

var hSession = []byte("Mcp-Session-Id")

// readerConn is a connection that only reads, from r.
type readerConn struct {
	net.Conn
	r io.Reader
}

func (c readerConn) Read(p []byte) (int, error) { return c.r.Read(p) }

// trickle reads at most step bytes at a time, as a socket may give them.
type trickle struct {
	r    io.Reader
	step int
}

func (t *trickle) Read(p []byte) (int, error) { return t.r.Read(p[:min(len(p), t.step)]) }

// loopConn is a loop pool (no loop: it only reads) and a connection on
// which stream comes, step bytes per read.
func loopConn(stream string, step int) (*LoopPool, *Conn) {
	pool := NewLoopPools(NewPool(Config{Size: 1, MaxBody: 1 << 20})).For(nil)
	return pool, NewConn(readerConn{r: &trickle{strings.NewReader(stream), step}})
}

// sameHead compares two heads, challenges by value.
func sameHead(a, b Head) bool { return reflect.DeepEqual(a, b) }

func withLength(body string) string {
	return fmt.Sprintf("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s", len(body), body)
}

// chunkedAnswer frames body as a chunked JSON answer, in chunks of at most
// size bytes.
func chunkedAnswer(body string, size int) string {
	var b strings.Builder
	b.WriteString("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n")
	for len(body) > 0 {
		n := min(size, len(body))
		fmt.Fprintf(&b, "%X\r\n%s\r\n", n, body[:n])
		body = body[n:]
	}
	b.WriteString("0\r\n\r\n")
	return b.String()
}

func TestParseHead(t *testing.T) {
	cases := []struct {
		name, head  string
		ok          bool
		status, n   int
		ct, session string
		close       bool
	}{
		{"common", "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 12\r\nMcp-Session-Id: abc\r\n\r\n", true, 200, 12, "application/json", "abc", false},
		{"no reason phrase", "HTTP/1.1 202\r\nContent-Length: 0\r\n\r\n", true, 202, 0, "", "", false},
		{"names in any case", "HTTP/1.1 404 Not Found\r\ncontent-length:  3 \r\nCONNECTION: Close\r\ncontent-type: text/plain\r\n\r\n", true, 404, 3, "text/plain", "", true},
		{"same length twice", "HTTP/1.1 200 OK\r\nContent-Length: 5\r\nContent-Length: 5\r\n\r\n", true, 200, 5, "", "", false},
		{"lengths disagree", "HTTP/1.1 200 OK\r\nContent-Length: 5\r\nContent-Length: 6\r\n\r\n", false, 0, 0, "", "", false},
		{"chunked stream (read in place as it comes)", "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nContent-Type: text/event-stream\r\n\r\n", true, 200, -1, "text/event-stream", "", false},
		{"chunked JSON", "HTTP/1.1 200 OK\r\nTransfer-Encoding: Chunked\r\nContent-Type: application/json\r\n\r\n", true, 200, -1, "application/json", "", false},
		{"chunked and a length", "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nContent-Length: 2\r\n\r\n", false, 0, 0, "", "", false},
		{"chunked twice", "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nTransfer-Encoding: chunked\r\n\r\n", false, 0, 0, "", "", false},
		{"codings", "HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip, chunked\r\n\r\n", false, 0, 0, "", "", false},
		{"no length", "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n\r\n", false, 0, 0, "", "", false},
		{"bad length", "HTTP/1.1 200 OK\r\nContent-Length: -1\r\n\r\n", false, 0, 0, "", "", false},
		{"HTTP/1.0", "HTTP/1.0 200 OK\r\nContent-Length: 2\r\n\r\n", false, 0, 0, "", "", false},
		{"interim", "HTTP/1.1 100 Continue\r\n\r\n", false, 0, 0, "", "", false},
		{"no content", "HTTP/1.1 204 No Content\r\nContent-Length: 0\r\n\r\n", true, 204, 0, "", "", false},
		{"no content, no length", "HTTP/1.1 204 No Content\r\nDate: Thu, 26 Nov 2026 03:43:50 GMT\r\n\r\n", true, 204, 0, "", "", false},
		{"not modified, chunked", "HTTP/1.1 304 Not Modified\r\nTransfer-Encoding: chunked\r\n\r\n", true, 304, 0, "", "", false},
		{"folded header", "HTTP/1.1 200 OK\r\nContent-Length: 2\r\nX-A: b\r\n c\r\n\r\n", false, 0, 0, "", "", false},
		{"space in a name", "HTTP/1.1 200 OK\r\nContent-Length: 2\r\nX A: b\r\n\r\n", false, 0, 0, "", "", false},
		{"bad status", "HTTP/1.1 2x0 OK\r\nContent-Length: 2\r\n\r\n", false, 0, 0, "", "", false},
		{"not HTTP", "SSH-2.0-OpenSSH\r\n\r\n", false, 0, 0, "", "", false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var a Answer
			ok := parseHead([]byte(c.head), &a, hSession)
			if ok != c.ok {
				t.Fatalf("parsed %v, want %v", ok, c.ok)
			}
			if !ok {
				return
			}
			if a.Status != c.status || a.Length != c.n || a.ContentType != c.ct || a.Kept != c.session || a.Close != c.close {
				t.Fatalf("got %+v", a)
			}
		})
	}
	var a Answer
	parseHead([]byte("HTTP/1.1 200 OK\r\nContent-Length: 0\r\nMcp-Session-Id: abc\r\n\r\n"), &a, nil)
	if a.Kept != "" {
		t.Fatal("a header was kept for a request that does not ask for one")
	}
}

// An answer whose head is byte for byte the pool's last plain one takes
// that head's reading; any other head is parsed.
func TestLoopPoolRecallsItsLastHead(t *testing.T) {
	body := `{"jsonrpc":"2.0","id":1,"result":{}}`
	plain := withLength(body)
	heads := []string{
		plain,
		plain,
		strings.Replace(plain, "200 OK", "201 Created", 1),
		strings.Replace(plain, "Content-Type: application/json", "Content-Type: application/json\r\nConnection: close", 1),
		"HTTP/1.1 503 Service Unavailable\r\nRetry-After: 7\r\nContent-Length: 2\r\n\r\n{}",
		"HTTP/1.1 503 Service Unavailable\r\nRetry-After: 7\r\nContent-Length: 2\r\n\r\n{}",
	}
	var cl Caller
	pool, c := loopConn(strings.Join(heads, ""), ReadBuffer)
	req := &Request{}
	for i, ans := range heads {
		var want Answer
		h, _ := peekHead(bufio.NewReader(strings.NewReader(ans)))
		if !parseHead(h, &want, nil) {
			t.Fatalf("answer %d: not a plain head", i)
		}
		var a Answer
		err := cl.Read(pool, c, req, &a)
		if err != nil {
			t.Fatalf("answer %d: %v", i, err)
		}
		if !sameHead(a.Head, want.Head) || a.Close != want.Close {
			t.Errorf("answer %d: head %+v close %v, parsed %+v %v", i, a.Head, a.Close, want.Head, want.Close)
		}
		if remembered := string(pool.head.text); i < 2 && remembered != string(h) {
			t.Errorf("answer %d: the pool remembers %q", i, remembered)
		}
	}
	// The second of two same heads was not parsed again: a mark put on
	// the pool's reading comes back.
	pool, c = loopConn(plain+plain, ReadBuffer)
	if err := cl.Read(pool, c, req, new(Answer)); err != nil {
		t.Fatal(err)
	}
	pool.head.parsed.ContentType = "marked"
	a := new(Answer)
	if err := cl.Read(pool, c, req, a); err != nil || a.ContentType != "marked" {
		t.Errorf("the same head again read as %q (%v), not recalled", a.ContentType, err)
	}
	if string(pool.head.text) == "" || strings.Contains(string(pool.head.text), "503") {
		t.Errorf("the pool remembers %q, want the last plain success's head", pool.head.text)
	}
	// Empty answers between (a notification's 202, a DELETE's 204) leave
	// the calls' head remembered.
	empty := "HTTP/1.1 202 Accepted\r\nContent-Length: 0\r\n\r\nHTTP/1.1 204 No Content\r\n\r\n"
	pool, c = loopConn(plain+empty, ReadBuffer)
	for range 3 {
		if err := cl.Read(pool, c, req, new(Answer)); err != nil {
			t.Fatal(err)
		}
	}
	if h, _ := peekHead(bufio.NewReader(strings.NewReader(plain))); string(pool.head.text) != string(h) {
		t.Errorf("after empty answers the pool remembers %q, want the call's head", pool.head.text)
	}
}

// A media type matches in any case, with or without parameters.
func TestHasMediaType(t *testing.T) {
	for _, tc := range []struct {
		ct   string
		want bool
	}{
		{"text/event-stream", true},
		{"text/event-stream; charset=utf-8", true},
		{"Text/Event-Stream", true},
		{"text/event", false},
		{"text/event-streamx", false},
		{"text/event-stream ;charset=utf-8", true},
		{"application/json", false},
		{"", false},
	} {
		if got := HasMediaType(tc.ct, "text/event-stream"); got != tc.want {
			t.Errorf("HasMediaType(%q) = %v, want %v", tc.ct, got, tc.want)
		}
	}
}
