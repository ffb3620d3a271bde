//go:build linux

package mcp

import (
	"bytes"
	"context"
	"net/http"
	"sync"
	"testing"
	"time"
)

// seenRequest is what the server of TestLoopSessionsSendTheirOwnIDs saw
// of one request.
type seenRequest struct {
	verb, session string
	notify        bool
	status        int
}

// TestLoopSessionsSendTheirOwnIDs: sessions opened one after another on a
// loop, sending a request framed once on the first of them (as a scenario
// user does), each carry their own session id on the call, the
// notification and the DELETE, whose heads are kept by the client with
// the id spliced in; the server accepts every one of them.
func TestLoopSessionsSendTheirOwnIDs(t *testing.T) {
	var mu sync.Mutex
	var seen []seenRequest
	ts := watchedSDK(t, func(r *http.Request, body []byte, status int) {
		mu.Lock()
		seen = append(seen, seenRequest{r.Method, r.Header.Get("Mcp-Session-Id"), bytes.Contains(body, []byte(`"notifications/initialized"`)), status})
		mu.Unlock()
	})
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	c, g := loopClient(ctx, t, Options{URL: ts.URL, Timeout: 5 * time.Second})
	mu.Lock()
	seen = nil // the client's own negotiation
	mu.Unlock()
	var ids []string
	g.Go(ctx, 0, func(ctx context.Context) {
		var p *Prepared
		for range 3 {
			s, err := c.NewSessionOn(ctx, g.Loop(0))
			if err != nil {
				t.Error(err)
				return
			}
			if p == nil {
				if p, err = s.Prepare(Request{Method: "tools/call", Tool: "echo", Arguments: []byte(`{"message":"hi"}`)}); err != nil {
					t.Error(err)
					return
				}
			}
			if r := s.Do(ctx, p, ""); r.Kind != OK {
				t.Error(r.Err)
			}
			ids = append(ids, s.ID())
			if err := s.Close(ctx); err != nil {
				t.Error(err)
			}
		}
	})
	g.Run()
	mu.Lock()
	defer mu.Unlock()
	if len(ids) != 3 || ids[0] == ids[1] || ids[1] == ids[2] || ids[0] == ids[2] {
		t.Fatalf("session ids %q: want three apart", ids)
	}
	for _, id := range ids {
		var calls, notes, deletes int
		for _, r := range seen {
			if r.session != id {
				continue
			}
			if r.status < 200 || r.status > 299 {
				t.Errorf("%s with session %s: HTTP %d", r.verb, id, r.status)
			}
			switch {
			case r.verb == http.MethodDelete:
				deletes++
			case r.notify:
				notes++
			default:
				calls++
			}
		}
		if calls != 1 || notes != 1 || deletes != 1 {
			t.Errorf("session %s: %d calls, %d notifications, %d DELETEs, want one each", id, calls, notes, deletes)
		}
	}
}

// A head spliced for another session is the head built for it, line for
// line.
func TestRespliceChangesOnlyTheSessionID(t *testing.T) {
	u, _ := ParseURL("http://127.0.0.1:1/mcp")
	h := http.Header{"Content-Type": {"application/json"}, "Mcp-Session-Id": {"first"}, "Mcp-Protocol-Version": {Rev20250618}}
	w := &wireRequest{head: wireHead("POST", u, h), session: "first"}
	b, ok := w.resplice("the-second-one")
	h["Mcp-Session-Id"] = []string{"the-second-one"}
	want := wireHead("POST", u, h)
	lines := func(b []byte) map[string]bool {
		m := map[string]bool{}
		for _, l := range bytes.Split(b, []byte("\r\n")) {
			m[string(l)] = true
		}
		return m
	}
	got, wantLines := lines(b), lines(want)
	if !ok || len(b) != len(want) || len(got) != len(wantLines) {
		t.Fatalf("%v: %q, want %q", ok, b, want)
	}
	for l := range wantLines {
		if !got[l] {
			t.Fatalf("%q lacks %q", b, l)
		}
	}
	if _, ok := (&wireRequest{head: want, session: ""}).resplice("x"); ok {
		t.Fatal("a head without a session took one")
	}
}
