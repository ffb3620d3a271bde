package target

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"
)

const rawVersion = "2025-06-18"

// rawSession is a hand-rolled Streamable HTTP client, so that tests see
// exactly what the server put on the wire.
type rawSession struct {
	url, sid string
	client   *http.Client
}

func (s *rawSession) post(ctx context.Context, body string) (*http.Response, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, s.url, strings.NewReader(body))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("MCP-Protocol-Version", rawVersion)
	if s.sid != "" {
		req.Header.Set("Mcp-Session-Id", s.sid)
	}
	return s.client.Do(req)
}

func rawConnect(t *testing.T, url string) *rawSession {
	t.Helper()
	// A transport of its own: reset and truncation faults kill connections.
	s := &rawSession{url: url, client: &http.Client{Transport: &http.Transport{}}}
	t.Cleanup(s.client.CloseIdleConnections)
	ctx := testCtx(t, 5*time.Second)
	resp, err := s.post(ctx, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"`+rawVersion+
		`","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`)
	if err != nil {
		t.Fatalf("initialize: %v", err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || !strings.Contains(string(body), `"protocolVersion"`) {
		t.Fatalf("initialize: %d %s", resp.StatusCode, body)
	}
	s.sid = resp.Header.Get("Mcp-Session-Id")
	resp, err = s.post(ctx, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	if err != nil {
		t.Fatalf("initialized: %v", err)
	}
	resp.Body.Close()
	return s
}

// message returns the JSON-RPC message in a JSON or SSE body.
func message(body []byte) string {
	text := string(body)
	for line := range strings.Lines(text) {
		if data, ok := strings.CutPrefix(line, "data: "); ok && strings.Contains(data, `"jsonrpc"`) {
			return strings.TrimSpace(data)
		}
	}
	return strings.TrimSpace(text)
}

func TestFaults(t *testing.T) {
	const (
		list = `{"jsonrpc":"2.0","id":7,"method":"tools/list"}`
		echo = `{"jsonrpc":"2.0","id":8,"method":"tools/call","params":{"name":"echo","arguments":{"message":"hi"}}}`
	)
	type outcome struct {
		resp *http.Response
		body []byte
		err  error // of the request or of reading the body
		took time.Duration
	}
	for _, tc := range []struct {
		kind  string
		req   string
		check func(o outcome) error
	}{
		{FaultHTTP500, list, func(o outcome) error { return wantStatus(o.resp, o.err, http.StatusInternalServerError) }},
		{FaultSessionExpired, echo, func(o outcome) error { return wantStatus(o.resp, o.err, http.StatusNotFound) }},
		{FaultReset, list, func(o outcome) error {
			if o.err == nil {
				return fmt.Errorf("got %d %q, want a broken connection", o.resp.StatusCode, o.body)
			}
			return nil
		}},
		{FaultHang, list, func(o outcome) error {
			if !errors.Is(o.err, context.DeadlineExceeded) {
				return fmt.Errorf("err = %v, want the client's deadline", o.err)
			}
			return nil
		}},
		{FaultMalformedJSON, list, func(o outcome) error {
			if err := wantStatus(o.resp, o.err, http.StatusOK); err != nil {
				return err
			}
			if json.Valid(o.body) {
				return fmt.Errorf("body is valid JSON: %s", o.body)
			}
			return nil
		}},
		{FaultTruncatedSSE, echo, func(o outcome) error {
			if o.resp == nil || o.resp.Header.Get("Content-Type") != "text/event-stream" {
				return fmt.Errorf("want an SSE stream, got %v", o.err)
			}
			if o.err == nil || strings.Contains(string(o.body), "\n\n") {
				return fmt.Errorf("stream ended cleanly: %q", o.body)
			}
			return nil
		}},
		{FaultSlowBody, list, func(o outcome) error {
			if err := wantStatus(o.resp, o.err, http.StatusOK); err != nil {
				return err
			}
			if o.took < 300*time.Millisecond || !strings.Contains(message(o.body), `"tools"`) {
				return fmt.Errorf("took %v, body %q", o.took, o.body)
			}
			return nil
		}},
		{FaultOversized, echo, func(o outcome) error {
			if err := wantStatus(o.resp, o.err, http.StatusOK); err != nil {
				return err
			}
			if len(o.body) < 1<<20 || !json.Valid(o.body) {
				return fmt.Errorf("body of %d bytes, valid=%v", len(o.body), json.Valid(o.body))
			}
			return nil
		}},
		{FaultJSONRPCError, list, func(o outcome) error {
			if !strings.Contains(message(o.body), `"error":{"code":-32603`) {
				return fmt.Errorf("body %q, want a JSON-RPC error", o.body)
			}
			return nil
		}},
		{FaultToolError, echo, func(o outcome) error {
			if !strings.Contains(message(o.body), `"isError":true`) {
				return fmt.Errorf("body %q, want isError", o.body)
			}
			return nil
		}},
		{FaultBadStructuredContent, echo, func(o outcome) error {
			var m struct {
				Result struct {
					StructuredContent map[string]any `json:"structuredContent"`
				} `json:"result"`
			}
			json.Unmarshal([]byte(message(o.body)), &m)
			if _, isString := m.Result.StructuredContent["message"].(string); isString || m.Result.StructuredContent == nil {
				return fmt.Errorf("body %q, want a non-string message", o.body)
			}
			return nil
		}},
	} {
		t.Run(tc.kind, func(t *testing.T) {
			r := start(t, Config{Tools: 2, Fault: tc.kind, FaultRate: 1, OversizedBytes: 1 << 20})
			s := rawConnect(t, r.MCPURL()) // initialize is never faulted
			const tries = 2
			for range tries {
				ctx, cancel := context.WithTimeout(t.Context(), 400*time.Millisecond)
				if tc.kind == FaultSlowBody {
					ctx, cancel = context.WithTimeout(t.Context(), 5*time.Second)
				}
				var o outcome
				t0 := time.Now()
				o.resp, o.err = s.post(ctx, tc.req)
				if o.err == nil {
					o.body, o.err = io.ReadAll(o.resp.Body)
					o.resp.Body.Close()
				}
				o.took = time.Since(t0)
				cancel()
				if err := tc.check(o); err != nil {
					t.Error(err)
				}
			}
			if got := r.Health().FaultsInjected; got[tc.kind] != tries || len(got) != 1 {
				t.Errorf("faults_injected = %v, want %s: %d", got, tc.kind, tries)
			}
		})
	}
}

func wantStatus(resp *http.Response, err error, code int) error {
	if err != nil {
		return err
	}
	if resp.StatusCode != code {
		return fmt.Errorf("status %d, want %d", resp.StatusCode, code)
	}
	return nil
}

func TestFaultRate(t *testing.T) {
	r := start(t, Config{Fault: FaultJSONRPCError, FaultRate: 0.3, Seed: 1})
	s := rawConnect(t, r.MCPURL())
	ctx := testCtx(t, 10*time.Second)
	const n = 200
	seen := 0
	for i := range n {
		resp, err := s.post(ctx, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/list"}`, i+10))
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if strings.Contains(string(body), `"error"`) {
			seen++
		}
	}
	h := r.Health()
	if int64(seen) != h.FaultsInjected[FaultJSONRPCError] || seen < 35 || seen > 85 {
		t.Errorf("client saw %d errors, server injected %d, of %d at rate 0.3", seen, h.FaultsInjected[FaultJSONRPCError], n)
	}
	// A failed list is a failed build; the counters still add up.
	if ls := h.ToolsList; ls.Requests != n || ls.CacheHits+ls.CacheMisses != n || ls.BuildFailures != int64(seen) {
		t.Errorf("tools_list = %+v", ls)
	}
}
