package mcp

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"net"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpbench/mcpbench/internal/h1"
	"go.uber.org/goleak"
)

// scriptServer answers each request on a connection with the next of the
// answers script gives for it, written in pieces of step bytes (all at once
// when step is 0), with "#" replaced by the request's JSON-RPC id (which
// must be one digit, to keep lengths right). An answer ending in
// "\x00close" is followed by a close of the connection.
func scriptServer(t *testing.T, step int, script func(conn, n int, req string) string) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	t.Cleanup(func() { l.Close(); wg.Wait() })
	wg.Add(1)
	go func() {
		defer wg.Done()
		for n := 0; ; n++ {
			c, err := l.Accept()
			if err != nil {
				return
			}
			wg.Add(1)
			go func() {
				defer wg.Done()
				defer c.Close()
				r := bufio.NewReader(c)
				for req := 0; ; req++ {
					id, body, ok := readRequest(r)
					if !ok {
						return
					}
					out, closeAfter := strings.CutSuffix(strings.ReplaceAll(script(n, req, body), "#", id), "\x00close")
					for b := []byte(out); len(b) > 0; {
						k := len(b)
						if step > 0 {
							k = min(k, step)
						}
						if _, err := c.Write(b[:k]); err != nil {
							return
						}
						b = b[k:]
					}
					if closeAfter {
						return
					}
				}
			}()
		}
	}()
	return "http://" + l.Addr().String() + "/mcp"
}

// readRequest reads one request and returns it whole and the id its body
// ends with.
func readRequest(r *bufio.Reader) (id, req string, ok bool) {
	length := 0
	var head strings.Builder
	for {
		line, err := r.ReadString('\n')
		if err != nil {
			return "", "", false
		}
		head.WriteString(line)
		if line == "\r\n" {
			break
		}
		if k, v, ok := strings.Cut(line, ":"); ok && strings.EqualFold(k, "Content-Length") {
			length, _ = strconv.Atoi(strings.TrimSpace(v))
		}
	}
	b := make([]byte, length)
	if _, err := readFull(r, b); err != nil {
		return "", "", false
	}
	digits := bytes.TrimSuffix(b, []byte("}"))
	i := len(digits)
	for i > 0 && digits[i-1] >= '0' && digits[i-1] <= '9' {
		i--
	}
	return string(digits[i:]), head.String() + string(b), true
}

func jsonAnswer(extra, body string) string {
	return "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n" + extra + "Content-Length: " + strconv.Itoa(len(body)) + "\r\n\r\n" + body
}

const toolsResult = `{"jsonrpc":"2.0","id":#,"result":{"tools":[]}}`

// TestDirectEngineAnswers: every shape of answer a server may send comes
// out as the same result, whether the in-place parser or fasthttp's reads
// it, and connections are reused exactly when the answer allows.
func TestDirectEngineAnswers(t *testing.T) {
	leaks := goleak.IgnoreCurrent()
	big := `{"jsonrpc":"2.0","id":#,"result":{"tools":[{"name":"` + strings.Repeat("x", 20<<10) + `","inputSchema":{"type":"object"}}]}}`
	event := "event: message\ndata: " + toolsResult + "\n\n"
	sse := fmt.Sprintf("HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n%x\r\n%s\r\n0\r\n\r\n", len(event), event)
	cases := []struct {
		name  string
		step  int
		ans   string
		dials int64 // for three requests
	}{
		{"content-length", 0, jsonAnswer("", toolsResult), 1},
		{"one byte at a time", 1, jsonAnswer("", toolsResult), 1},
		{"larger than the read buffer", 1000, jsonAnswer("", big), 1},
		{"chunked", 7, chunkedAnswer(toolsResult, 1<<20, "", ""), 1},
		// Chunked answers are read in place (chunked.go), whatever the
		// chunking, extensions and trailers, however the bytes arrive.
		{"small chunks, a byte at a time", 1, chunkedAnswer(toolsResult, 5, "", ""), 1},
		{"chunk extensions and trailers", 3, chunkedAnswer(toolsResult, 9, " ;name=value", "X-Trailer: 1\r\nX-Other: 2\r\n"), 1},
		{"chunks larger than the read buffer", 1000, chunkedAnswer(big, 4096, "", ""), 1},
		{"one chunk larger than the read buffer", 0, chunkedAnswer(big, 1<<20, "", ""), 1},
		{"interim answer first", 0, "HTTP/1.1 100 Continue\r\n\r\n" + jsonAnswer("", toolsResult), 1},
		{"connection close", 0, jsonAnswer("Connection: close\r\n", toolsResult) + "\x00close", 3},
		{"HTTP/1.0", 0, strings.Replace(jsonAnswer("", toolsResult), "HTTP/1.1", "HTTP/1.0", 1) + "\x00close", 3},
		{"SSE", 5, sse, 1},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			url := scriptServer(t, c.step, func(int, int, string) string { return c.ans })
			cl := bareClient(t, url, 5*time.Second, 1<<20, EngineDirect)
			defer cl.Close(context.Background())
			s := cl.newSession()
			p, _ := s.Prepare(Request{Method: "tools/list"})
			for i := range 3 {
				r := s.Do(context.Background(), p, "")
				if r.Kind != OK {
					t.Fatalf("request %d: %s: %v", i, r.Kind, r.Err)
				}
				if r.Received == 0 {
					t.Fatalf("request %d: no bytes received", i)
				}
			}
			d := cl.Dials()
			// A stream left open after its answer is drained off the clock,
			// so the next request may not wait for its connection: at most
			// one dial a request there, exactly the count elsewhere.
			if d != c.dials && !(c.name == "SSE" && d >= c.dials && d <= 3) {
				t.Fatalf("%d dials for 3 requests, want %d", d, c.dials)
			}
		})
	}
	if err := goleak.Find(leaks); err != nil {
		t.Fatal(err)
	}
}

// TestDirectPool: with one connection for two sessions, the second waits
// for it (and says how long), gives up with a time-out when the wait
// outlasts the request timeout, and a request cancelled by its caller ends
// at once instead of at the timeout.
func TestDirectPool(t *testing.T) {
	const hold = 300 * time.Millisecond
	arrived := make(chan struct{}, 16)
	url := scriptServer(t, 0, func(int, int, string) string {
		arrived <- struct{}{}
		time.Sleep(hold)
		return jsonAnswer("", toolsResult)
	})
	leaks := goleak.IgnoreCurrent() // all but the server's listener, which stops at cleanup
	// The second session's request is bounded by wait, the first by 5 s.
	run := func(wait time.Duration) (first, second Result) {
		cl := bareClient(t, url, 5*time.Second, 1<<20, EngineDirect)
		defer cl.Close(context.Background())
		a, b := cl.newSession(), cl.newSession()
		pa, _ := a.Prepare(Request{Method: "tools/list"})
		pb, _ := b.Prepare(Request{Method: "tools/list"})
		done := make(chan Result)
		go func() { done <- a.Do(context.Background(), pa, "") }()
		<-arrived // a has the connection, and the server holds it
		ctx, cancel := context.WithTimeout(context.Background(), wait)
		defer cancel()
		second = b.Do(ctx, pb, "")
		if second.Kind == OK {
			<-arrived
		}
		return <-done, second
	}
	first, second := run(5 * time.Second)
	if first.Kind != OK || second.Kind != OK {
		t.Fatalf("%s, %s: %v %v", first.Kind, second.Kind, first.Err, second.Err)
	}
	if second.ConnWait < hold/2 || first.ConnWait > hold/2 {
		t.Fatalf("connection waits %s and %s: the second should have waited about %s", first.ConnWait, second.ConnWait, hold)
	}
	_, second = run(hold / 3)
	if second.Kind != KindTimeout || !strings.Contains(second.Err.Error(), "no free connection") {
		t.Fatalf("%s: %v, want a time-out waiting for a connection", second.Kind, second.Err)
	}
	if err := goleak.Find(leaks); err != nil {
		t.Fatal(err)
	}
}

// TestDirectCancelInFlight: a request whose context is cancelled while it
// waits for its answer ends then, not at the answer or the timeout.
func TestDirectCancelInFlight(t *testing.T) {
	const hold = 2 * time.Second
	arrived := make(chan struct{}, 1)
	url := scriptServer(t, 0, func(int, int, string) string {
		arrived <- struct{}{}
		time.Sleep(hold)
		return jsonAnswer("", toolsResult)
	})
	cl := bareClient(t, url, 10*time.Second, 1<<20, EngineDirect)
	defer cl.Close(context.Background())
	s := cl.newSession()
	defer s.Close(context.Background())
	p, _ := s.Prepare(Request{Method: "tools/list"})
	ctx, cancel := context.WithCancel(context.Background())
	go func() { <-arrived; cancel() }()
	start := time.Now()
	if r := s.Do(ctx, p, ""); r.Kind == OK {
		t.Fatal("a cancelled request succeeded")
	}
	if took := time.Since(start); took > hold/2 {
		t.Fatalf("the cancelled request took %s; the server answers after %s", took, hold)
	}
}

// TestDirectStaleConnection: a connection the server closed while it sat
// idle is noticed before use and replaced, so no request fails for it.
func TestDirectStaleConnection(t *testing.T) {
	defer func(d time.Duration) { h1.StaleAfter = d }(h1.StaleAfter)
	h1.StaleAfter = 50 * time.Millisecond
	// The server closes after each answer without saying so.
	url := scriptServer(t, 0, func(int, int, string) string { return jsonAnswer("", toolsResult) + "\x00close" })
	cl := bareClient(t, url, 5*time.Second, 1<<20, EngineDirect)
	defer cl.Close(context.Background())
	s := cl.newSession()
	p, _ := s.Prepare(Request{Method: "tools/list"})
	for i := range 3 {
		time.Sleep(2 * h1.StaleAfter)
		if r := s.Do(context.Background(), p, ""); r.Kind != OK {
			t.Fatalf("request %d: %s: %v", i, r.Kind, r.Err)
		}
	}
	if d := cl.Dials(); d != 3 {
		t.Fatalf("%d dials, want 3", d)
	}
}

// TestDirectSessionRenewal: a 404 to a request with a session id makes the
// session initialize anew. With one connection in the pool the initialize
// needs the connection the 404 came on, so it must be back by then.
func TestDirectSessionRenewal(t *testing.T) {
	url := scriptServer(t, 0, func(_, _ int, req string) string {
		switch {
		case strings.Contains(req, `"method":"initialize"`):
			return jsonAnswer("Mcp-Session-Id: fresh\r\n", `{"jsonrpc":"2.0","id":#,"result":{"protocolVersion":"2025-11-25","capabilities":{"tools":{}},"serverInfo":{"name":"s","version":"1"}}}`)
		case strings.Contains(req, `"method":"notifications/initialized"`):
			return "HTTP/1.1 202 Accepted\r\nContent-Length: 0\r\n\r\n"
		case !strings.Contains(req, "Mcp-Session-Id: fresh"):
			return "HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n"
		}
		return jsonAnswer("", toolsResult)
	})
	cl := bareClient(t, url, 5*time.Second, 1<<20, EngineDirect)
	defer cl.Close(context.Background())
	cl.rev = Rev20251125
	s := cl.newSession()
	s.id = "stale"
	p, _ := s.Prepare(Request{Method: "tools/list"})
	start := time.Now()
	if r := s.Do(context.Background(), p, ""); r.Kind != KindSessionExpired {
		t.Fatalf("%s: %v, want session_expired", r.Kind, r.Err)
	}
	if took := time.Since(start); took > time.Second || s.ID() != "fresh" {
		t.Fatalf("renewal took %s and left session %q", took, s.ID())
	}
	if r := s.Do(context.Background(), p, ""); r.Kind != OK {
		t.Fatalf("after renewal: %s: %v", r.Kind, r.Err)
	}
}

// TestDirectRequestHead: the request carries what net/http would send:
// Host, the extra headers, credentials from the URL, the length.
func TestDirectRequestHead(t *testing.T) {
	seen := make(chan string, 1)
	url := scriptServer(t, 0, func(_, _ int, req string) string {
		seen <- req
		return jsonAnswer("", toolsResult)
	})
	url = strings.Replace(url, "http://", "http://ann:s3cret@", 1)
	cl := bareClient(t, url, 5*time.Second, 1<<20, EngineDirect)
	defer cl.Close(context.Background())
	cl.opts.Header = map[string][]string{"X-Extra": {"one"}}
	s := cl.newSession()
	p, _ := s.Prepare(Request{Method: "tools/list"})
	if r := s.Do(context.Background(), p, ""); r.Kind != OK {
		t.Fatalf("%s: %v", r.Kind, r.Err)
	}
	req := <-seen
	head, body, _ := strings.Cut(req, "\r\n\r\n")
	host := strings.TrimPrefix(strings.SplitN(url, "/", 4)[2], "ann:s3cret@")
	for _, want := range []string{
		"POST /mcp HTTP/1.1\r\n",
		"\r\nHost: " + host + "\r\n",
		"\r\nX-Extra: one\r\n",
		"\r\nAuthorization: Basic YW5uOnMzY3JldA==\r\n",
		"\r\nContent-Type: application/json\r\n",
		"\r\nContent-Length: " + strconv.Itoa(len(body)),
	} {
		if !strings.Contains(head+"\r\n", want) {
			t.Errorf("request head lacks %q:\n%s", want, head)
		}
	}
}
