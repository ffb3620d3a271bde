//go:build linux

package mcp

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcpbench/mcpbench/internal/evloop"
)

// TestListenStreamOnLoop: a session opened on an event loop reads its GET
// stream there (no goroutine of its own), holds no SSE buffer while the
// stream is idle, and answers the elicitation the server sends on it in
// the middle of a call: through the session's pool when a connection is
// free, on a connection of its own when the call holds the only one.
func TestListenStreamOnLoop(t *testing.T) {
	ts, standing := standingServer(t)
	for _, pool := range []int{1, 2} {
		ctx := context.Background()
		c, err := Dial(ctx, Options{URL: ts.URL, Timeout: 2 * time.Second, Listen: true, PoolSize: pool})
		if err != nil {
			t.Fatal(err)
		}
		g, err := evloop.NewGroup(1, nil)
		if err != nil {
			t.Fatal(err)
		}
		dials := c.Dials()
		g.Go(ctx, 0, func(ctx context.Context) {
			s, err := c.NewSessionOn(ctx, g.Loop(0))
			if err != nil {
				t.Error(err)
				return
			}
			defer s.Close(ctx)
			tr := s.t.(*directTransport)
			if tr.standing == nil || tr.standing.st == nil || tr.listening != nil {
				t.Errorf("pool %d: the GET stream is not read on the loop", pool)
				return
			}
			if tr.standing.sse.r != nil {
				t.Errorf("pool %d: an idle stream holds its SSE buffer", pool)
			}
			p, _ := s.Prepare(Request{Method: "tools/call", Tool: "ask"})
			if r := s.Do(ctx, p, ""); r.Kind != OK || c.Counters()["client_requests/elicitation/create"] != 1 {
				t.Errorf("pool %d: %v %v, %v", pool, r.Kind, r.Err, c.Counters())
			}
		})
		g.Run()
		g.Close()
		// The stream's, and with a pool of one the answer's connection of
		// its own (the POSTs adopt the connections Dial made).
		if want := int64(1 + 2 - pool); c.Dials()-dials != want {
			t.Errorf("pool %d: %d dials, want %d", pool, c.Dials()-dials, want)
		}
		c.Close(ctx)
		select {
		case <-standing:
		default:
		}
	}
}

// TestListenStreamOnLoopReopens: a GET stream the server ends is asked for
// again after the retry delay it gave (20 ms: at the default second the
// session would close first), on the loop; and the session's close closes
// the stream it holds.
func TestListenStreamOnLoopReopens(t *testing.T) {
	var gets atomic.Int32
	held := make(chan struct{})
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Mcp-Session-Id", "s1")
		if r.Method == http.MethodGet {
			w.Header().Set("Content-Type", "text/event-stream")
			w.(http.Flusher).Flush()
			if gets.Add(1) == 1 {
				fmt.Fprint(w, "retry: 20\n\n") // and the stream ends
				return
			}
			<-r.Context().Done() // until the client closes it
			close(held)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		io.Copy(io.Discard, r.Body)
		fmt.Fprint(w, `{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-11-25","capabilities":{},"serverInfo":{"name":"x","version":"1"}}}`)
	}))
	defer ts.Close()
	ctx := context.Background()
	c, g := loopClient(ctx, t, Options{URL: ts.URL, Timeout: 2 * time.Second, Listen: true})
	g.Go(ctx, 0, func(ctx context.Context) {
		s, err := c.NewSessionOn(ctx, g.Loop(0))
		if err != nil {
			t.Error(err)
			return
		}
		g.Loop(0).SleepUntil(ctx, time.Now().Add(300*time.Millisecond))
		s.Close(ctx)
	})
	g.Run()
	select {
	case <-held:
	case <-time.After(2 * time.Second):
		t.Fatalf("the second stream was not closed with the session (%d GETs)", gets.Load())
	}
	if n := gets.Load(); n != 2 {
		t.Fatalf("%d GETs, want 2: the ended stream asked for again once", n)
	}
	if n := c.Counters()["streams_reopened"]; n != 1 {
		t.Fatalf("streams_reopened %d, want 1", n)
	}
}

// loopClient dials a client with o and makes a group of one loop for its
// sessions, both closed when t ends.
func loopClient(ctx context.Context, t *testing.T, o Options) (*Client, *evloop.Group) {
	t.Helper()
	c, err := Dial(ctx, o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close(context.Background()) })
	g, err := evloop.NewGroup(1, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(g.Close)
	return c, g
}
