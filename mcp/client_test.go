package mcp

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

type echoIn struct {
	Message string `json:"message"`
}
type echoOut struct {
	Message string `json:"message"`
}

// sdkServer starts a Go SDK server with an echo tool and n filler tools,
// listing pageSize tools a page (0: the SDK default).
func sdkServer(t *testing.T, opts *sdk.StreamableHTTPOptions, nTools, pageSize int) *httptest.Server {
	t.Helper()
	srv := sdk.NewServer(&sdk.Implementation{Name: "sdk-test", Version: "1.2.3"}, &sdk.ServerOptions{PageSize: pageSize})
	sdk.AddTool(srv, &sdk.Tool{Name: "echo", Description: "echo a message"}, func(ctx context.Context, req *sdk.CallToolRequest, in echoIn) (*sdk.CallToolResult, echoOut, error) {
		return nil, echoOut{Message: in.Message}, nil
	})
	for i := 0; i < nTools; i++ {
		sdk.AddTool(srv, &sdk.Tool{Name: fmt.Sprintf("tool_%03d", i), Description: "filler"}, func(ctx context.Context, req *sdk.CallToolRequest, in echoIn) (*sdk.CallToolResult, echoOut, error) {
			return nil, echoOut{}, nil
		})
	}
	h := sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return srv }, opts)
	ts := httptest.NewServer(h)
	t.Cleanup(ts.Close)
	return ts
}

func TestDialAndCallAgainstSDK(t *testing.T) {
	modes := []struct {
		name string
		opts *sdk.StreamableHTTPOptions
	}{
		{"stateful-sse", &sdk.StreamableHTTPOptions{}},
		{"json-response", &sdk.StreamableHTTPOptions{JSONResponse: true}},
		{"stateless", &sdk.StreamableHTTPOptions{Stateless: true}},
	}
	for _, m := range modes {
		for _, rev := range []string{"", Rev20251125, Rev20250618, Rev20250326} {
			t.Run(m.name+"/"+rev, func(t *testing.T) {
				ts := sdkServer(t, m.opts, 5, 2)
				ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
				defer cancel()
				c, err := Dial(ctx, Options{URL: ts.URL + "/", ProtocolVersion: rev, Timeout: 5 * time.Second})
				if err != nil {
					t.Fatalf("dial: %v", err)
				}
				defer c.Close(ctx)
				if rev != "" && c.ProtocolVersion() != rev {
					t.Fatalf("negotiated %s, want %s", c.ProtocolVersion(), rev)
				}
				if c.Info().Name != "sdk-test" {
					t.Errorf("server name %q", c.Info().Name)
				}
				s, err := c.NewSession(ctx)
				if err != nil {
					t.Fatalf("session: %v", err)
				}
				defer s.Close(ctx)
				list, _ := s.Prepare(Request{Method: "tools/list"})
				// 6 tools at 2 a page: three pages, each a request.
				cursor, pages := "", 0
				for {
					r := s.Do(ctx, list, cursor)
					if r.Kind != OK {
						t.Fatalf("tools/list page %d: %v", pages, r.Err)
					}
					pages++
					if r.NextCursor == "" {
						break
					}
					cursor = r.NextCursor
				}
				if pages != 3 {
					t.Errorf("pages = %d, want 3", pages)
				}
				call, _ := s.Prepare(Request{Method: "tools/call", Tool: "echo", Arguments: []byte(`{"message":"hi"}`)})
				for i := 0; i < 20; i++ {
					r := s.Do(ctx, call, "")
					if r.Kind != OK {
						t.Fatalf("tools/call: %v", r.Err)
					}
					if !strings.Contains(string(r.Structured), `"hi"`) {
						t.Fatalf("structured content %s", r.Structured)
					}
				}
				bad, _ := s.Prepare(Request{Method: "tools/call", Tool: "nope"})
				if r := s.Do(ctx, bad, ""); r.Kind != KindJSONRPC && r.Kind != KindToolError {
					t.Errorf("unknown tool: kind %v (%v)", r.Kind, r.Err)
				}
			})
		}
	}
}

func TestNotMCP(t *testing.T) {
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprint(w, "<html>hello</html>")
	}))
	defer ts.Close()
	_, err := Dial(context.Background(), Options{URL: ts.URL, Timeout: 2 * time.Second})
	if err == nil || !strings.Contains(err.Error(), "MCP") {
		t.Fatalf("want a not-MCP error, got %v", err)
	}
}

func TestUnreachable(t *testing.T) {
	ts := httptest.NewServer(http.NotFoundHandler())
	url := ts.URL
	ts.Close()
	_, err := Dial(context.Background(), Options{URL: url, Timeout: 2 * time.Second})
	if KindOf(err) != KindConnect {
		t.Fatalf("kind %v, err %v", KindOf(err), err)
	}
}
