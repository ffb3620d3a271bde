package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
)

// modernServer is a 2026-07-28 server written out by hand, for what no
// SDK server does yet: each JSON-RPC request goes to answer, keyed by
// method, which returns the result (or nil to hang until the client
// goes away).
func modernServer(t *testing.T, answer func(method string, params json.RawMessage, r *http.Request) json.RawMessage) string {
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Params json.RawMessage `json:"params"`
		}
		body, _ := io.ReadAll(r.Body)
		if json.Unmarshal(body, &req) != nil {
			w.WriteHeader(http.StatusBadRequest)
			return
		}
		res := json.RawMessage(`{"supportedVersions":["2026-07-28"],"capabilities":{}}`)
		if req.Method != "server/discover" {
			res = answer(req.Method, req.Params, r)
		}
		if len(req.ID) == 0 {
			w.WriteHeader(http.StatusAccepted)
			return
		}
		if res == nil {
			<-r.Context().Done()
			return
		}
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":%s}`, req.ID, res)
	}))
	t.Cleanup(ts.Close)
	return ts.URL + "/mcp"
}

// TestTaskPolled: a server that takes a call on as a task is polled with
// tasks/get at the interval it asks for until the task ends; the call is
// timed to its result, its creation apart, and its result is the
// task's, whether the last poll carries it or tasks/result gives it.
func TestTaskPolled(t *testing.T) {
	for _, embedded := range []bool{true, false} {
		var mu sync.Mutex
		polls := 0
		url := modernServer(t, func(method string, params json.RawMessage, _ *http.Request) json.RawMessage {
			mu.Lock()
			defer mu.Unlock()
			switch method {
			case "tools/call":
				return json.RawMessage(`{"resultType":"complete","task":{"taskId":"t1","status":"working","pollInterval":30}}`)
			case "tasks/get":
				if !strings.Contains(string(params), `"taskId":"t1"`) {
					return json.RawMessage(`{"taskId":"?","status":"failed"}`)
				}
				if polls++; polls < 3 {
					return json.RawMessage(`{"taskId":"t1","status":"working"}`)
				}
				if embedded {
					return json.RawMessage(`{"taskId":"t1","status":"completed","result":{"content":[],"structuredContent":{"n":1}}}`)
				}
				return json.RawMessage(`{"task":{"taskId":"t1","status":"completed"}}`)
			case "tasks/result":
				return json.RawMessage(`{"content":[],"structuredContent":{"n":2}}`)
			}
			return json.RawMessage(`{}`)
		})
		ctx := context.Background()
		c, err := Dial(ctx, Options{URL: url, Timeout: 5 * time.Second})
		if err != nil {
			t.Fatal(err)
		}
		s, _ := c.NewSession(ctx)
		p, _ := s.Prepare(Request{Method: "tools/call", Tool: "slow"})
		start := time.Now()
		r := s.Do(ctx, p, "")
		took := time.Since(start)
		want := map[bool]string{true: `{"n":1}`, false: `{"n":2}`}[embedded]
		if r.Kind != OK || string(r.Structured) != want {
			t.Fatalf("embedded=%v: %v %v %s", embedded, r.Kind, r.Err, r.Structured)
		}
		if r.Created <= 0 || r.Created > took/2 || took < 90*time.Millisecond {
			t.Fatalf("created after %v of a %v call polled every 30 ms", r.Created, took)
		}
		if n := c.Counters()["task_polls"]; n != 3 {
			t.Fatalf("%d polls counted, want 3", n)
		}
		c.Close(ctx)
	}
}

// TestTaskFailed: a task that fails is the call's tool error.
func TestTaskFailed(t *testing.T) {
	url := modernServer(t, func(method string, _ json.RawMessage, _ *http.Request) json.RawMessage {
		if method == "tools/call" {
			return json.RawMessage(`{"task":{"taskId":"t9","status":"working","pollInterval":1}}`)
		}
		return json.RawMessage(`{"taskId":"t9","status":"failed","statusMessage":"disk full"}`)
	})
	ctx := context.Background()
	c, err := Dial(ctx, Options{URL: url, Timeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close(ctx)
	s, _ := c.NewSession(ctx)
	p, _ := s.Prepare(Request{Method: "tools/call", Tool: "slow"})
	if r := s.Do(ctx, p, ""); r.Kind != KindToolError || !strings.Contains(r.Err.Error(), "disk full") {
		t.Fatalf("%v: %v", r.Kind, r.Err)
	}
}

// TestTimedOutRequestCancelled: a request that times out is abandoned as
// its wire defines: before 2026-07-28 with notifications/cancelled naming
// it, from 2026-07-28 by closing its stream alone.
func TestTimedOutRequestCancelled(t *testing.T) {
	for _, engine := range []Engine{EngineDirect, EngineNetHTTP} {
		for _, rev := range []string{Rev20251125, Rev20260728} {
			cancelled := make(chan string, 4)
			gone := make(chan struct{}, 4)
			ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				body, _ := io.ReadAll(r.Body)
				if strings.Contains(string(body), "notifications/cancelled") {
					cancelled <- string(body)
					w.WriteHeader(http.StatusAccepted)
					return
				}
				<-r.Context().Done() // hang until the client closes
				gone <- struct{}{}
			}))
			c := bareClient(t, ts.URL+"/mcp", 200*time.Millisecond, 1<<20, engine)
			c.rev = rev
			s := c.newSession()
			p, _ := s.Prepare(Request{Method: "tools/call", Tool: "hang"})
			if r := s.Do(context.Background(), p, ""); r.Kind != KindTimeout {
				t.Fatalf("%s %s: %v %v", engine, rev, r.Kind, r.Err)
			}
			select {
			case <-gone:
			case <-time.After(2 * time.Second):
				t.Fatalf("%s %s: the request's stream was not closed", engine, rev)
			}
			select {
			case msg := <-cancelled:
				if rev == Rev20260728 || !strings.Contains(msg, `"requestId":1`) {
					t.Fatalf("%s %s: %s", engine, rev, msg)
				}
			case <-time.After(500 * time.Millisecond):
				if rev != Rev20260728 {
					t.Fatalf("%s %s: no notifications/cancelled", engine, rev)
				}
			}
			c.Close(context.Background())
			ts.Close()
		}
	}
}
