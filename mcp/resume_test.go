package mcp

import (
	"github.com/mcpbench/mcpbench/internal/h1"

	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// TestSSEPollingResume: a 2025-11-25 server may close a response stream
// before the answer, after an event with an id and a retry delay; the
// client comes back with GET and Last-Event-ID and gets the answer there.
func TestSSEPollingResume(t *testing.T) {
	var gets atomic.Int64
	var lastEventID atomic.Value
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.Method {
		case http.MethodGet:
			gets.Add(1)
			lastEventID.Store(r.Header.Get("Last-Event-ID"))
			w.Header().Set("Content-Type", "text/event-stream")
			fmt.Fprint(w, "id: ev-2\ndata: {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"tools\":[]}}\n\n")
		case http.MethodPost:
			body, _ := io.ReadAll(r.Body)
			if strings.Contains(string(body), `"initialize"`) || strings.Contains(string(body), "server/discover") {
				w.WriteHeader(http.StatusNotFound) // force the initialize era below
				return
			}
			// The priming event, then the stream closes without the answer.
			w.Header().Set("Content-Type", "text/event-stream")
			fmt.Fprint(w, "id: ev-1\nretry: 20\ndata:\n\n")
		}
	}))
	defer ts.Close()
	c := &Client{opts: Options{Timeout: 5 * time.Second, Header: http.Header{}}, maxBody: 1 << 20, rev: Rev20251125}
	c.url, _ = ParseURL(ts.URL)
	hc, dials, _ := NewHTTPClient(c.opts)
	c.link, c.dials = newHTTPLink(hc), dials
	s := c.newSession()
	p, _ := s.Prepare(Request{Method: "tools/list"})
	start := time.Now()
	r := s.Do(context.Background(), p, "")
	if r.Kind != OK {
		t.Fatalf("kind %v: %v", r.Kind, r.Err)
	}
	if gets.Load() != 1 || lastEventID.Load() != "ev-1" {
		t.Fatalf("GETs %d with Last-Event-ID %v", gets.Load(), lastEventID.Load())
	}
	if time.Since(start) < 20*time.Millisecond {
		t.Fatal("the retry delay was not honoured")
	}
	if r.FirstEvent <= 0 || r.FirstEvent > time.Since(start) {
		t.Fatalf("time to the first event %v of a %v request", r.FirstEvent, time.Since(start))
	}
}

// heldStreamServer answers a tools/call POST with a priming event and
// closes the stream (the conformance harness's sse-retry scenario); the
// resuming GET gets the answer on a stream the server then keeps open, as
// a session's standing GET stream is. held keeps the stream open after
// the answer on the POST itself instead. It reports when the answer went
// out.
func heldStreamServer(t *testing.T, held bool, answered *atomic.Int64) string {
	done := make(chan struct{})
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		answer := `{"jsonrpc":"2.0","id":1,"result":{"content":[]}}`
		w.Header().Set("Content-Type", "text/event-stream")
		switch {
		case r.Method == http.MethodGet:
			fmt.Fprintf(w, "id: ev-2\nretry: 500\ndata:\n\nevent: message\nid: ev-3\ndata: %s\n\n", answer)
		case held:
			fmt.Fprintf(w, "event: message\nid: ev-1\ndata: %s\n\n", answer)
		default:
			fmt.Fprint(w, "id: ev-1\nretry: 50\ndata:\n\n")
			return
		}
		answered.Store(time.Now().UnixNano())
		w.(http.Flusher).Flush()
		select { // the stream stays open until the test is over
		case <-done:
		case <-r.Context().Done():
		}
	}))
	t.Cleanup(func() { close(done); ts.Close() })
	return ts.URL + "/mcp"
}

// TestStreamAnswerEndsRequest: a request completes the moment its answer
// arrives, on the first stream or a resumed one, on both engines and at
// any timeout: the stream staying open afterwards is not the request's
// time.
func TestStreamAnswerEndsRequest(t *testing.T) {
	for _, engine := range []Engine{EngineNetHTTP, EngineDirect} {
		for _, held := range []bool{false, true} {
			for _, timeout := range []time.Duration{4 * time.Second, 10 * time.Second, 20 * time.Second} {
				name := fmt.Sprintf("%s/held=%v/timeout=%v", engine, held, timeout)
				t.Run(name, func(t *testing.T) {
					var answered atomic.Int64
					c := bareClient(t, heldStreamServer(t, held, &answered), timeout, 1<<20, engine)
					c.rev = Rev20251125
					defer c.Close(context.Background())
					s := c.newSession()
					p, _ := s.Prepare(Request{Method: "tools/call", Tool: "test_reconnection"})
					r := s.Do(context.Background(), p, "")
					end := time.Now()
					if r.Kind != OK {
						t.Fatalf("kind %v: %v", r.Kind, r.Err)
					}
					if lag := end.Sub(time.Unix(0, answered.Load())); lag > time.Second {
						t.Fatalf("the call completed %v after its answer was sent", lag)
					}
				})
			}
		}
	}
}

// TestHeldStreamConnectionReused: on the direct engine a POST stream the
// server keeps open after the answer goes back to the pool with its rest
// unread. The next request to take it waits for the end no longer than
// h1.RestWait (the answer being quick), then dials: the wait does not grow
// from one request to the next. A stream that has ended by the time the
// connection is taken leaves it to carry the next request.
func TestHeldStreamConnectionReused(t *testing.T) {
	// Once an end has been seen the client waits up to h1.LateEndWait for
	// the next: on a starved machine a request can take past the 300 ms
	// and see one. This test is of the wait before any end is seen.
	defer func(w time.Duration) { h1.LateEndWait = w }(h1.LateEndWait)
	h1.LateEndWait = h1.RestWait
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		id := strings.TrimSuffix(string(body[strings.LastIndex(string(body), ":")+1:]), "}")
		w.Header().Set("Content-Type", "text/event-stream")
		fmt.Fprintf(w, "event: message\ndata: {\"jsonrpc\":\"2.0\",\"id\":%s,\"result\":{}}\n\n", id)
		w.(http.Flusher).Flush()
		time.Sleep(300 * time.Millisecond) // then the stream ends
	}))
	defer ts.Close()
	c := bareClient(t, ts.URL+"/mcp", 5*time.Second, 1<<20, EngineDirect)
	defer c.Close(context.Background())
	s := c.newSession()
	p, _ := s.Prepare(Request{Method: "ping"})
	do := func(i int) {
		start := time.Now()
		r := s.Do(context.Background(), p, "")
		if r.Kind != OK {
			t.Fatalf("request %d: %v", i, r.Err)
		}
		if d := time.Since(start); d > h1.RestWait+150*time.Millisecond {
			t.Fatalf("request %d took %v: it waited for a stream to end past %v", i, d, h1.RestWait)
		}
	}
	for i := range 3 {
		do(i)
	}
	time.Sleep(400 * time.Millisecond) // every stream has ended
	dials := c.Dials()
	do(3)
	if c.Dials() != dials {
		t.Fatal("the connection of an ended stream was not reused")
	}
}
