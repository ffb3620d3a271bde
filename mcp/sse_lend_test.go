package mcp

import (
	"context"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestLentSSEBufferKeepsTheReply: the SDK server answers with SSE; after
// a session's answer its read buffer goes back for another session to
// use, yet its reply, which points into its event's data, still reads as
// its own answer after another session's request.
func TestLentSSEBufferKeepsTheReply(t *testing.T) {
	srv := sdkServer(t, &sdk.StreamableHTTPOptions{}, 0, 0)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	c, err := Dial(ctx, Options{URL: srv.URL, ProtocolVersion: Rev20251125, PoolSize: 2, Timeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close(ctx)
	call := func(s *Session, msg string) {
		p, err := s.Prepare(Request{Method: "tools/call", Tool: "echo", Arguments: []byte(`{"message":"` + msg + `"}`)})
		if err != nil {
			t.Fatal(err)
		}
		if r := s.Do(ctx, p, ""); r.Kind != OK {
			t.Fatalf("%s: %v", msg, r.Err)
		}
	}
	a, err := c.NewSession(ctx)
	if err != nil {
		t.Fatal(err)
	}
	b, err := c.NewSession(ctx)
	if err != nil {
		t.Fatal(err)
	}
	call(a, "first-session-answer")
	if a.sse == nil || a.sse.r != nil {
		t.Fatalf("the read buffer was not given back after the answer")
	}
	call(b, "second-"+strings.Repeat("x", 40))
	if got := string(a.LastResult()); !strings.Contains(got, "first-session-answer") {
		t.Fatalf("the first session's reply reads %q after the second's request", got)
	}
}
