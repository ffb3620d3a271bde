package mcp

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"sync"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestInitializeFramedOnce: a client's sessions send the initialize it
// framed once, the same bytes but for the id, with what the handshake
// offers; the answer is read once while the server gives the same bytes,
// and read anew when they change.
func TestInitializeFramedOnce(t *testing.T) {
	var mu sync.Mutex
	var inits [][]byte
	ts := watchedSDK(t, func(_ *http.Request, body []byte, _ int) {
		if bytes.Contains(body, []byte(`"method":"initialize"`)) {
			mu.Lock()
			inits = append(inits, body)
			mu.Unlock()
		}
	})
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	c, err := Dial(ctx, Options{URL: ts.URL, Timeout: 5 * time.Second, Client: ClientInfo{Name: "framed", Version: "9"}})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close(ctx)
	frame, answer := c.inits.frame.Load(), c.inits.answer.Load()
	for range 3 {
		s, err := c.NewSession(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if s.ID() == "" {
			t.Fatal("no session id")
		}
		_ = s.Close(ctx)
	}
	if c.inits.frame.Load() != frame || c.inits.answer.Load() != answer {
		t.Fatal("the initialize was framed or its answer read again for the same bytes")
	}
	id := regexp.MustCompile(`"id":\d+`)
	mu.Lock()
	defer mu.Unlock()
	if len(inits) < 4 {
		t.Fatalf("%d initialize requests, want 4", len(inits))
	}
	want := id.ReplaceAll(inits[0], nil)
	for _, b := range inits[1:] {
		if got := id.ReplaceAll(b, nil); !bytes.Equal(got, want) {
			t.Fatalf("initialize %s, first was %s", b, inits[0])
		}
	}
	for _, part := range []string{`"protocolVersion":"` + Rev20251125 + `"`, `"clientInfo":{"name":"framed","version":"9"}`, `"capabilities":`} {
		if !bytes.Contains(want, []byte(part)) {
			t.Fatalf("initialize %s lacks %s", want, part)
		}
	}

	// Other bytes are read anew, and that reading kept.
	other := []byte(`{"protocolVersion":"2025-06-18","capabilities":{},"serverInfo":{"name":"other","version":"2"}}`)
	ir, err := c.readInit(other)
	if err != nil || ir.ProtocolVersion != Rev20250618 || ir.ServerInfo.Name != "other" || c.inits.answer.Load() == answer {
		t.Fatalf("%+v %v: a changed answer was not read", ir, err)
	}
	kept := c.inits.answer.Load()
	other[len(other)-4] = '3' // the caller's bytes change; the kept ones do not
	ir, _ = c.readInit([]byte(`{"protocolVersion":"2025-06-18","capabilities":{},"serverInfo":{"name":"other","version":"2"}}`))
	if c.inits.answer.Load() != kept || ir.ServerInfo.Version != "2" {
		t.Fatalf("%+v: the kept answer changed with the caller's bytes", ir)
	}
}

// watchedSDK is sdkServer (stateful) behind a handler that shows see each
// request with its body and the status it was answered with.
func watchedSDK(t *testing.T, see func(r *http.Request, body []byte, status int)) *httptest.Server {
	t.Helper()
	inner := sdkServer(t, &sdk.StreamableHTTPOptions{}, 0, 0)
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		r.Body = io.NopCloser(bytes.NewReader(body))
		sw := &statusWriter{ResponseWriter: w, status: http.StatusOK}
		inner.Config.Handler.ServeHTTP(sw, r)
		see(r, body, sw.status)
	}))
	t.Cleanup(ts.Close)
	return ts
}

// statusWriter notes the status a handler answered with.
type statusWriter struct {
	http.ResponseWriter
	status int
}

func (w *statusWriter) WriteHeader(code int) { w.status = code; w.ResponseWriter.WriteHeader(code) }
func (w *statusWriter) Flush()               { w.ResponseWriter.(http.Flusher).Flush() }
