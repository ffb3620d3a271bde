//go:build linux

package mcp

import (
	"context"
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
