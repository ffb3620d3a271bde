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

	"go.uber.org/goleak"
)

// bareClient is a client for a hand-written server that speaks no
// handshake: requests go out with no session and no negotiated revision.
func bareClient(t *testing.T, url string, timeout time.Duration, maxBody int64, engine Engine) *Client {
	t.Helper()
	o := Options{URL: url, Timeout: timeout, MaxResponseBytes: maxBody, PoolSize: 1}
	u, err := ParseURL(url)
	if err != nil {
		t.Fatal(err)
	}
	hc, dials, err := NewHTTPClient(o)
	if err != nil {
		t.Fatal(err)
	}
	c := &Client{opts: o, url: u, maxBody: int(maxBody), link: newHTTPLink(hc), dials: dials}
	if engine == EngineDirect {
		c.link = newDirectLink(hc, directConfig(u, o, dials))
	}
	return c
}

// TestMisbehavingServers: answers no fault of the reference server covers.
// Each request ends in its kind within the timeout, and nothing is left
// running afterwards.
func TestMisbehavingServers(t *testing.T) {
	leaks := goleak.IgnoreCurrent()
	const timeout = 300 * time.Millisecond
	var oversizedWritten atomic.Int64
	handlers := map[string]http.HandlerFunc{
		"wrong id (JSON)": func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			io.WriteString(w, `{"jsonrpc":"2.0","id":999,"result":{"tools":[]}}`)
		},
		"wrong id (SSE)": func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/event-stream")
			io.WriteString(w, "event: message\ndata: {\"jsonrpc\":\"2.0\",\"id\":999,\"result\":{\"tools\":[]}}\n\n")
		},
		"closed mid-body (JSON)": func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			w.Header().Set("Content-Length", "200")
			io.WriteString(w, `{"jsonrpc":"2.0","id":1,"res`)
			http.NewResponseController(w).Flush()
			panic(http.ErrAbortHandler)
		},
		"stalls after the headers (JSON)": func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusOK)
			io.WriteString(w, `{"jsonrpc":"2.0",`)
			http.NewResponseController(w).Flush()
			<-r.Context().Done()
		},
		"stalls mid-stream (SSE)": func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/event-stream")
			io.WriteString(w, "event: message\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\"}\n\n")
			http.NewResponseController(w).Flush()
			<-r.Context().Done()
		},
		"oversized (JSON)": func(w http.ResponseWriter, r *http.Request) {
			const size = 64 << 20
			w.Header().Set("Content-Type", "application/json")
			w.Header().Set("Content-Length", fmt.Sprint(size))
			chunk := []byte(strings.Repeat(" ", 64<<10))
			for n := 0; n < size; n += len(chunk) {
				if _, err := w.Write(chunk); err != nil {
					return
				}
				oversizedWritten.Add(int64(len(chunk)))
			}
		},
		"oversized event (SSE)": func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/event-stream")
			io.WriteString(w, "data: ")
			chunk := []byte(strings.Repeat("x", 64<<10))
			for range 1024 {
				if _, err := w.Write(chunk); err != nil {
					return
				}
			}
		},
	}
	want := map[string]Kind{
		"wrong id (JSON)":                 KindTransport,
		"wrong id (SSE)":                  KindTransport,
		"closed mid-body (JSON)":          KindTransport,
		"stalls after the headers (JSON)": KindTimeout,
		"stalls mid-stream (SSE)":         KindTimeout,
		"oversized (JSON)":                KindTransport,
		"oversized event (SSE)":           KindTransport,
	}
	for _, engine := range []Engine{EngineDirect, EngineNetHTTP} {
		for name, h := range handlers {
			t.Run(string(engine)+"/"+name, func(t *testing.T) {
				oversizedWritten.Store(0)
				misbehave(t, engine, name, h, want[name], timeout, &oversizedWritten)
			})
		}
	}
	if err := goleak.Find(leaks); err != nil {
		t.Fatal(err)
	}
}

func misbehave(t *testing.T, engine Engine, name string, h http.HandlerFunc, want Kind, timeout time.Duration, oversizedWritten *atomic.Int64) {
	srv := httptest.NewServer(h)
	defer srv.Close()
	c := bareClient(t, srv.URL+"/mcp", timeout, 1<<20, engine)
	defer c.Close(context.Background())
	s := c.newSession()
	p, err := s.Prepare(Request{Method: "tools/list"})
	if err != nil {
		t.Fatal(err)
	}
	for range 2 { // the second on a fresh connection if the first was dropped
		start := time.Now()
		r := s.Do(context.Background(), p, "")
		took := time.Since(start)
		if r.Kind != want {
			t.Fatalf("kind %s (%v), want %s", r.Kind, r.Err, want)
		}
		// Every read is bounded by the timeout (slack for a busy machine).
		if took > timeout+2*time.Second {
			t.Fatalf("took %s with a %s timeout", took, timeout)
		}
	}
	if strings.HasPrefix(name, "oversized") {
		// The connection is dropped, not drained: each request
		// dialled its own, and the server could not write it all.
		if d := c.Dials(); d != 2 {
			t.Errorf("%d dials for 2 oversized answers: a connection was reused after one", d)
		}
		if n := oversizedWritten.Load(); name == "oversized (JSON)" && n > 2*24<<20 {
			t.Errorf("the server wrote %d MiB: the client drained the answers", n>>20)
		}
	}
}
