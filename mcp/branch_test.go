package mcp

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestBranchSharesTheSession: a branch sends on its session's server
// session (the same Mcp-Session-Id) with its own buffers, both in flight
// at once; closing the branch leaves the session open; the last result is
// the server's JSON; a detached client dials connections of its own.
func TestBranchSharesTheSession(t *testing.T) {
	inner := sdkServer(t, &sdk.StreamableHTTPOptions{}, 0, 0)
	var mu sync.Mutex
	ids := map[string]int{}
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		ids[r.Method+" "+r.Header.Get("Mcp-Session-Id")]++
		mu.Unlock()
		req, _ := http.NewRequestWithContext(r.Context(), r.Method, inner.URL+r.URL.Path, r.Body)
		req.Header = r.Header.Clone()
		resp, err := http.DefaultTransport.RoundTrip(req)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadGateway)
			return
		}
		defer resp.Body.Close()
		for k, v := range resp.Header {
			w.Header()[k] = v
		}
		w.WriteHeader(resp.StatusCode)
		buf := make([]byte, 4096)
		for {
			n, err := resp.Body.Read(buf)
			w.Write(buf[:n])
			if err != nil {
				return
			}
		}
	}))
	defer ts.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	c, err := Dial(ctx, Options{URL: ts.URL, ProtocolVersion: Rev20251125, PoolSize: 2, Timeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close(ctx)
	s, err := c.NewSession(ctx)
	if err != nil || s.ID() == "" {
		t.Fatalf("session %q: %v", s.ID(), err)
	}
	b, err := s.Branch()
	if err != nil || b.ID() != s.ID() {
		t.Fatalf("branch %q of %q: %v", b.ID(), s.ID(), err)
	}
	call := func(sess *Session, msg string) string {
		p, err := sess.Prepare(Request{Method: "tools/call", Tool: "echo", Arguments: []byte(`{"message":"` + msg + `"}`)})
		if err != nil {
			t.Error(err)
			return ""
		}
		if r := sess.Do(ctx, p, ""); r.Kind != OK {
			t.Errorf("%s: %v", msg, r.Err)
		}
		return string(sess.LastResult())
	}
	var wg sync.WaitGroup
	var fromBranch string
	wg.Add(1)
	go func() { defer wg.Done(); fromBranch = call(b, "branch") }()
	fromMain := call(s, "main")
	wg.Wait()
	if !strings.Contains(fromMain, `"main"`) || !strings.Contains(fromBranch, `"branch"`) {
		t.Fatalf("results %s / %s", fromMain, fromBranch)
	}
	if err := b.Close(ctx); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	posts, deletes := ids["POST "+s.ID()], ids["DELETE "+s.ID()]
	mu.Unlock()
	if posts < 3 || deletes != 0 {
		t.Fatalf("the session saw %d POSTs and %d DELETEs before it closed", posts, deletes)
	}
	id := s.ID()
	if err := s.Close(ctx); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	deletes = ids["DELETE "+id]
	mu.Unlock()
	if deletes != 1 {
		t.Fatalf("%d DELETEs after close", deletes)
	}

	before := c.Dials()
	d, err := c.Detached(1)
	if err != nil {
		t.Fatal(err)
	}
	ds, err := d.NewSession(ctx)
	if err != nil {
		t.Fatal(err)
	}
	call(ds, "detached")
	_ = ds.Close(ctx)
	d.Close(ctx)
	if c.Dials() <= before {
		t.Fatalf("a detached client dialled nothing (%d dials before, %d after)", before, c.Dials())
	}
}
