package target

import (
	"context"
	"io"
	"net/http"
	"strings"
	"testing"
)

// TestFixedResponseEngines: on either engine the canned server answers
// the handshake and tools/list with the request's id, accepts
// notifications, and refuses other paths and methods.
func TestFixedResponseEngines(t *testing.T) {
	for _, engine := range []string{FixedFastHTTP, FixedNetHTTP} {
		t.Run(engine, func(t *testing.T) {
			r, err := Start(context.Background(), Config{FixedResponse: true, FixedEngine: engine})
			if err != nil {
				t.Fatal(err)
			}
			defer r.Shutdown(context.Background())
			post := func(path, body string) (int, string) {
				resp, err := http.Post(r.URL+path, "application/json", strings.NewReader(body))
				if err != nil {
					t.Fatal(err)
				}
				defer resp.Body.Close()
				b, _ := io.ReadAll(resp.Body)
				if resp.StatusCode == http.StatusOK && resp.Header.Get("Content-Type") != "application/json" {
					t.Errorf("%s: content type %q", path, resp.Header.Get("Content-Type"))
				}
				return resp.StatusCode, string(b)
			}
			cases := []struct {
				path, body string
				status     int
				has        string
			}{
				{"/mcp", `{"jsonrpc":"2.0","method":"server/discover","id":1}`, 200, `{"jsonrpc":"2.0","id":1,"result":{"supportedVersions":["2026-07-28"]`},
				{"/mcp", `{"jsonrpc":"2.0","method":"tools/list","id":"a-7"}`, 200, `{"jsonrpc":"2.0","id":"a-7","result":{"tools":[{`},
				{"/mcp", `{"jsonrpc":"2.0","method":"tools/call","params":{"name":"echo"},"id":42}`, 200, `"id":42,"result":{"content"`},
				{"/mcp", `{"jsonrpc":"2.0","method":"notifications/initialized"}`, 202, ""},
				{"/other", `{}`, 404, ""},
			}
			for _, c := range cases {
				status, body := post(c.path, c.body)
				if status != c.status || !strings.Contains(body, c.has) {
					t.Errorf("%s %s: %d %s", c.path, c.body, status, body)
				}
			}
			resp, err := http.Get(r.MCPURL())
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode != http.StatusMethodNotAllowed {
				t.Errorf("GET /mcp: %d", resp.StatusCode)
			}
			resp, err = http.Get(r.HealthURL())
			if err != nil {
				t.Fatal(err)
			}
			b, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if !strings.Contains(string(b), `"served":3`) {
				t.Errorf("health: %s", b)
			}
		})
	}
	if _, err := New(Config{FixedResponse: true, FixedEngine: "turbo"}); err == nil {
		t.Error("an unknown fixed-response engine was accepted")
	}
}
