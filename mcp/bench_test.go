package mcp

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"testing"
	"time"
)

// fixedServer answers every POST with a tools/list result for the request's
// id, as JSON or as a one-event SSE stream: a server that costs next to
// nothing, so the benchmark measures the client.
func fixedServer(b *testing.B, sse bool) *httptest.Server {
	b.Helper()
	result := `{"tools":[{"name":"echo","inputSchema":{"type":"object","properties":{"message":{"type":"string"}}}}]}`
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		// The id is the last number in the body: `…,"id":N}`.
		i := len(body) - 2
		for i > 0 && body[i-1] >= '0' && body[i-1] <= '9' {
			i--
		}
		id, _ := strconv.Atoi(string(body[i : len(body)-1]))
		msg := fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"result":%s}`, id, result)
		if r.Header.Get("Mcp-Method") == "server/discover" || r.URL.Query().Get("x") != "" {
			msg = fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"result":{"supportedVersions":["2026-07-28"],"capabilities":{}}}`, id)
		}
		if sse {
			w.Header().Set("Content-Type", "text/event-stream")
			fmt.Fprintf(w, "event: message\ndata: %s\n\n", msg)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, msg)
	}))
	b.Cleanup(ts.Close)
	return ts
}

func benchmarkDo(b *testing.B, sse bool) {
	ts := fixedServer(b, sse)
	ctx := context.Background()
	c, err := Dial(ctx, Options{URL: ts.URL + "/mcp", Timeout: 5 * time.Second})
	if err != nil {
		b.Fatal(err)
	}
	defer c.Close(ctx)
	s, err := c.NewSession(ctx)
	if err != nil {
		b.Fatal(err)
	}
	p, _ := s.Prepare(Request{Method: "tools/list"})
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		if r := s.Do(ctx, p, ""); r.Kind != OK {
			b.Fatal(r.Err)
		}
	}
}

// BenchmarkSessionDoJSON is the request hot path: frame, send, read a JSON
// answer, classify.
func BenchmarkSessionDoJSON(b *testing.B) { benchmarkDo(b, false) }

// BenchmarkSessionDoSSE is the same with the answer as an SSE stream.
func BenchmarkSessionDoSSE(b *testing.B) { benchmarkDo(b, true) }

// BenchmarkClassify is the client's own work on one answer, without the
// network: decode the JSON-RPC envelope and classify it.
func BenchmarkClassify(b *testing.B) {
	s := &Session{c: &Client{maxBody: 1 << 20}}
	p := &Prepared{req: Request{Method: "tools/call", Tool: "echo"}}
	body := []byte(`{"jsonrpc":"2.0","id":7,"result":{"content":[{"type":"text","text":"hello"}],"structuredContent":{"message":"hello"},"isError":false}}`)
	b.ReportAllocs()
	for b.Loop() {
		var res Result
		rd := &bodyReader{}
		rd.Reset(body)
		if ok, err := s.readJSON(rd, 7, &res); !ok || err != nil {
			b.Fatal(err)
		}
		s.classify(p, &res, "")
		if res.Kind != OK {
			b.Fatal(res.Err)
		}
	}
}
