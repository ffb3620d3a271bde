package mcp

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

func TestToolErrorText(t *testing.T) {
	long := strings.Repeat("é", 3000) // 6000 bytes: over the scan limit
	for in, want := range map[string]string{
		`{"content":[{"type":"text","text":"ENOENT: no such file"}],"isError":true}`:                  "ENOENT: no such file",
		`{"isError":true,"content":[{"type":"image","data":"AAAA"},{"type":"text","text":"second"}]}`: "second",
		`{"content":[{"type":"text","text":"tab\there \u00e9"}]}`:                                     "tab\there é",
		`{"content":[],"isError":true}`:                                                               "",
		`{"content":"not a list"}`:                                                                    "",
		`{"isError":true}`:                                                                            "",
		`{"content":[{"type":"text","text":"` + long + `"}]}`:                                         long[:serverTextScanBytes-2],
	} {
		if got := toolErrorText([]byte(in)); got != want {
			t.Errorf("%.80s: got %.80q, want %.80q", in, got, want)
		}
	}
}

// TestUnquotePrefixKeepsEscapesWhole: a cut never splits an escape, so the
// prefix still decodes.
func TestUnquotePrefixKeepsEscapesWhole(t *testing.T) {
	raw := []byte(`"` + strings.Repeat(`ab\n\u00e9`, 100) + `"`)
	for limit := 2; limit < 60; limit++ {
		got := unquotePrefix(raw, limit)
		if got == "" || !strings.HasPrefix(strings.Repeat("ab\né", 100), got) {
			t.Fatalf("limit %d: %q", limit, got)
		}
	}
}

func TestServerTextScrubsAndClips(t *testing.T) {
	c := &Client{secrets: append(SecretValues(http.Header{"Authorization": {"Bearer tok-12345678"}}), "custom-secret-9")}
	in := "denied Bearer tok-12345678 for https://alice:pw0rd@db.example/x with custom-secret-9,\n" +
		"api_key=abcd1234 password: hunter22 token xyz98765"
	got := c.serverText(in)
	for _, leak := range []string{"tok-12345678", "pw0rd", "custom-secret-9", "abcd1234", "hunter22", "xyz98765", "\n"} {
		if strings.Contains(got, leak) {
			t.Fatalf("%q leaked into %q", leak, got)
		}
	}
	if !strings.Contains(got, "denied Bearer ***") || !strings.Contains(got, "https://***@db.example/x") {
		t.Fatalf("scrubbed too much or too little: %q", got)
	}
	clipped := c.serverText(strings.Repeat("x", 500))
	if n := len([]rune(clipped)); n != ServerTextRunes+1 || !strings.HasSuffix(clipped, "…") {
		t.Fatalf("clipped to %d runes: %q", n, clipped)
	}
}

type failIn struct {
	Message string `json:"message"`
}

// TestErrorsCarryTheServersText: a tool's isError text and a JSON-RPC
// error's message reach the request's error, credentials hidden.
func TestErrorsCarryTheServersText(t *testing.T) {
	srv := sdk.NewServer(&sdk.Implementation{Name: "errs", Version: "1"}, nil)
	sdk.AddTool(srv, &sdk.Tool{Name: "fail"}, func(ctx context.Context, req *sdk.CallToolRequest, in failIn) (*sdk.CallToolResult, any, error) {
		return &sdk.CallToolResult{IsError: true, Content: []sdk.Content{&sdk.TextContent{Text: in.Message}}}, nil, nil
	})
	ts := httptest.NewServer(sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return srv }, &sdk.StreamableHTTPOptions{JSONResponse: true}))
	defer ts.Close()
	ctx := context.Background()
	c, err := Dial(ctx, Options{URL: ts.URL, Timeout: 5 * time.Second, Header: http.Header{"Authorization": {"Bearer sekrit-token"}}})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close(ctx)
	s, err := c.NewSession(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close(ctx)
	fail, _ := s.Prepare(Request{Method: "tools/call", Tool: "fail", Arguments: []byte(`{"message":"ENOENT: no such file or directory, open '/x' (Bearer sekrit-token)"}`)})
	r := s.Do(ctx, fail, "")
	if r.Kind != KindToolError || r.Err.Error() != "tool_error: fail: ENOENT: no such file or directory, open '/x' (Bearer ***)" {
		t.Fatalf("%s: %v", r.Kind, r.Err)
	}
	missing, _ := s.Prepare(Request{Method: "tools/call", Tool: "nosuchtool", Arguments: []byte(`{}`)})
	r = s.Do(ctx, missing, "")
	if r.Kind != KindJSONRPC || !strings.HasPrefix(r.Err.Error(), "jsonrpc: tools/call nosuchtool: ") || !strings.Contains(r.Err.Error(), "nosuchtool") {
		t.Fatalf("%s: %v", r.Kind, r.Err)
	}
}

// TestAuthFailureIsItsOwnError: 401 and 403 while negotiating are an
// *AuthError, not "did not answer as an MCP server", and no fallback to
// the legacy transport muddles the message.
func TestAuthFailureIsItsOwnError(t *testing.T) {
	for _, status := range []int{http.StatusUnauthorized, http.StatusForbidden} {
		gets := 0
		ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.Method == http.MethodGet {
				gets++
			}
			w.Header().Set("WWW-Authenticate", `Bearer realm="mcp"`)
			http.Error(w, "no", status)
		}))
		_, err := Dial(context.Background(), Options{URL: ts.URL, Timeout: 2 * time.Second})
		ts.Close()
		var auth *AuthError
		if !errors.As(err, &auth) || auth.Status != status || errors.Is(err, ErrNotMCP) || gets != 0 {
			t.Fatalf("HTTP %d: %v (legacy GETs: %d)", status, err, gets)
		}
	}
}

func TestEndpointNamesTheCommand(t *testing.T) {
	if got := (Options{Transport: TransportStdio, Command: []string{"node", "server.js"}}).Endpoint(); got != "stdio: node server.js" {
		t.Fatal(got)
	}
	if got := (Options{URL: "http://u:pw@h/mcp"}).Endpoint(); strings.Contains(got, "pw") {
		t.Fatal(got)
	}
}
