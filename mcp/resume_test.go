package mcp

import (
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
	c.link, c.opts.DialCount = httpLink{hc}, dials
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
}
