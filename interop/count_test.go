package interop

import (
	"bytes"
	"encoding/json"
	"io"
	"maps"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
)

// counts is what a server received: JSON-RPC requests and notifications
// by method, answers the client sent back to the server's own requests
// ("response"), and the HTTP DELETEs and GETs of its endpoint.
type counts map[string]int64

// minus is c less before, leaving out what did not change.
func (c counts) minus(before counts) counts {
	out := counts{}
	for k, v := range c {
		if d := v - before[k]; d != 0 {
			out[k] = d
		}
	}
	return out
}

// counter counts messages as they arrive; safe for concurrent use.
type counter struct {
	mu sync.Mutex
	n  counts
}

func newCounter() *counter { return &counter{n: counts{}} }

func (c *counter) add(key string, n int64) {
	c.mu.Lock()
	c.n[key] += n
	c.mu.Unlock()
}

func (c *counter) snapshot() counts {
	c.mu.Lock()
	defer c.mu.Unlock()
	return maps.Clone(c.n)
}

// message counts one JSON-RPC message, or each of a batch; a body that is
// not JSON-RPC counts as "unparsed", so that it shows in a failed cell.
func (c *counter) message(body []byte) {
	body = bytes.TrimSpace(body)
	var one struct {
		Method *string `json:"method"`
	}
	if len(body) > 0 && body[0] == '[' {
		var batch []json.RawMessage
		if json.Unmarshal(body, &batch) != nil {
			c.add("unparsed", 1)
			return
		}
		for _, m := range batch {
			c.message(m)
		}
		return
	}
	switch {
	case json.Unmarshal(body, &one) != nil:
		c.add("unparsed", 1)
	case one.Method == nil:
		c.add("response", 1)
	default:
		c.add(*one.Method, 1)
	}
}

// wrap counts what next receives: each POST's body by method, each
// DELETE and GET by verb.
func (c *counter) wrap(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.Method {
		case http.MethodPost:
			body, err := io.ReadAll(r.Body)
			if err != nil {
				c.add("unread", 1)
			}
			c.message(body)
			r.Body = io.NopCloser(bytes.NewReader(body))
		case http.MethodDelete, http.MethodGet:
			c.add(r.Method, 1)
		}
		next.ServeHTTP(w, r)
	})
}

// TestCounterCountsWhatArrives: the counter the matrix trusts counts a
// request, a notification, a batch's every message, an answer to the
// server, a body that is not JSON-RPC, and DELETE and GET by verb; and it
// hands the body on whole.
func TestCounterCountsWhatArrives(t *testing.T) {
	c := newCounter()
	var seen []string
	h := c.wrap(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		seen = append(seen, string(b))
	}))
	bodies := []string{
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`[{"jsonrpc":"2.0","id":2,"method":"tools/list"},{"jsonrpc":"2.0","id":3,"method":"tools/list"}]`,
		`{"jsonrpc":"2.0","id":9,"result":{}}`,
		`not json`,
	}
	for _, b := range bodies {
		h.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest(http.MethodPost, "/mcp", strings.NewReader(b)))
	}
	h.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest(http.MethodDelete, "/mcp", nil))
	h.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest(http.MethodGet, "/mcp", nil))
	want := counts{"tools/call": 1, "notifications/initialized": 1, "tools/list": 2, "response": 1, "unparsed": 1, "DELETE": 1, "GET": 1}
	if got := c.snapshot(); !equal(got, want) {
		t.Errorf("counted %v, want %v", got, want)
	}
	if len(seen) < len(bodies) || strings.Join(seen[:len(bodies)], "\n") != strings.Join(bodies, "\n") {
		t.Errorf("the handler saw %q", seen)
	}
	if d := (counts{"a": 3, "b": 1}).minus(counts{"a": 1, "b": 1}); !equal(d, counts{"a": 2}) {
		t.Errorf("minus: %v", d)
	}
}
