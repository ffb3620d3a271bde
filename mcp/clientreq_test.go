package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// addAskTool gives srv the tool "ask", which needs a name from the user:
// it asks with an elicitation and answers with what came back. Written
// the multi round-trip way, so the SDK sends the elicitation as a request
// of its own to clients before 2026-07-28 and as an input_required result
// to newer ones.
func addAskTool(srv *sdk.Server) {
	schema := json.RawMessage(`{"type":"object","properties":{"name":{"type":"string","default":"Ada"}}}`)
	srv.AddTool(&sdk.Tool{Name: "ask", InputSchema: json.RawMessage(`{"type":"object"}`)}, func(ctx context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
		answer, ok := req.Params.InputResponses["name"].(*sdk.ElicitResult)
		if !ok {
			return &sdk.CallToolResult{InputRequests: sdk.InputRequestMap{
				"name": &sdk.ElicitParams{Mode: "form", Message: "Your name?", RequestedSchema: schema},
			}}, nil
		}
		text := answer.Action
		if name, ok := answer.Content["name"].(string); ok {
			text += " " + name
		}
		return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: text}}}, nil
	})
}

func TestClientRequestPolicy(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "answers.json")
	os.WriteFile(file, []byte(`{"elicitation/create":{"action":"accept"},"roots/list":{"roots":[{"uri":"file:///tmp"}]}}`), 0o600)
	canned, err := ParseClientRequests(file)
	if err != nil {
		t.Fatal(err)
	}
	refuse, _ := ParseClientRequests("error")
	schema := json.RawMessage(`{"requestedSchema":{"properties":{"n":{"type":"integer","default":30},"s":{"type":"string"}}}}`)
	for _, c := range []struct {
		policy      *ClientRequests
		method      string
		result      string
		errCode     int
		wantCapable []string
	}{
		{nil, "elicitation/create", `{"action":"decline"}`, 0, []string{"elicitation"}},
		{nil, "sampling/createMessage", "", codeMethodNotFound, nil},
		{nil, "roots/list", "", codeMethodNotFound, nil},
		{nil, "ping", `{}`, 0, nil},
		{refuse, "elicitation/create", "", codeMethodNotFound, nil},
		{refuse, "ping", `{}`, 0, nil},
		{canned, "elicitation/create", `{"action":"accept","content":{"n":30}}`, 0, []string{"elicitation", "roots"}},
		{canned, "roots/list", `{"roots":[{"uri":"file:///tmp"}]}`, 0, nil},
		{canned, "sampling/createMessage", "", codeMethodNotFound, nil},
	} {
		res, rerr := c.policy.answerTo(c.method, schema)
		switch {
		case c.errCode != 0 && (rerr == nil || rerr.Code != c.errCode):
			t.Errorf("%s under %s: want error %d, got %s %v", c.method, c.policy, c.errCode, res, rerr)
		case c.errCode == 0 && (rerr != nil || string(res) != c.result):
			t.Errorf("%s under %s: want %s, got %s %v", c.method, c.policy, c.result, res, rerr)
		}
		caps := c.policy.capabilities()
		for _, want := range c.wantCapable {
			if _, ok := caps[want]; !ok {
				t.Errorf("policy %s does not declare %s: %v", c.policy, want, caps)
			}
		}
	}
	if _, ok := refuse.capabilities()["elicitation"]; ok {
		t.Error("the error policy declares elicitation, which it never answers")
	}
	for _, bad := range []string{`{"tools/call":{}}`, `{"roots/list":[1]}`, `[]`} {
		os.WriteFile(file, []byte(bad), 0o600)
		if _, err := ParseClientRequests(file); err == nil {
			t.Errorf("%s accepted as canned answers", bad)
		}
	}
	if _, err := ParseClientRequests(filepath.Join(dir, "missing.json")); err == nil {
		t.Error("a missing file accepted")
	}
}

// TestServerRequestsAnsweredOnEveryTransport: a tool that elicits during
// the call completes at once on every transport and engine, answered by
// the policy (declined by default, accepted with the schema's defaults
// from a file), and each request from the server is counted.
func TestServerRequestsAnsweredOnEveryTransport(t *testing.T) {
	srv := sdk.NewServer(&sdk.Implementation{Name: "asker", Version: "1"}, nil)
	addAskTool(srv)
	streamable := httptest.NewServer(sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return srv }, nil))
	defer streamable.Close()
	legacy := httptest.NewServer(sdk.NewSSEHandler(func(*http.Request) *sdk.Server { return srv }, nil))
	defer legacy.Close()
	self, _ := os.Executable()
	t.Setenv("MCPBENCH_TEST_STDIO_SERVER", "1")
	accept := filepath.Join(t.TempDir(), "accept.json")
	os.WriteFile(accept, []byte(`{"elicitation/create":{"action":"accept"}}`), 0o600)

	wires := map[string]Options{
		"http/direct":   {URL: streamable.URL + "/mcp", Engine: EngineDirect},
		"http/net/http": {URL: streamable.URL + "/mcp", Engine: EngineNetHTTP},
		"sse":           {URL: legacy.URL, Transport: TransportSSE},
		"stdio":         {Transport: TransportStdio, Command: []string{self}},
	}
	for name, o := range wires {
		for _, policy := range []string{"decline", accept} {
			want := map[string]string{"decline": "decline", accept: "accept Ada"}[policy]
			t.Run(name+"/"+filepath.Base(policy), func(t *testing.T) {
				o.ClientRequests, _ = ParseClientRequests(policy)
				o.ProtocolVersion, o.Timeout = Rev20251125, 10*time.Second
				ctx := context.Background()
				c, err := Dial(ctx, o)
				if err != nil {
					t.Fatal(err)
				}
				defer c.Close(ctx)
				s, err := c.NewSession(ctx)
				if err != nil {
					t.Fatal(err)
				}
				defer s.Close(ctx)
				p, _ := s.Prepare(Request{Method: "tools/call", Tool: "ask"})
				const calls = 5
				for i := range calls {
					start := time.Now()
					res, err := c.Request(ctx, s, p.req, "")
					if err != nil {
						t.Fatalf("call %d: %v", i, err)
					}
					if d := time.Since(start); d > 2*time.Second {
						t.Fatalf("call %d took %v: the elicitation waited", i, d)
					}
					if !strings.Contains(string(res), `"text":"`+want+`"`) {
						t.Fatalf("call %d: %s, want the tool to see %q", i, res, want)
					}
				}
				if n := c.Counters()["client_requests/elicitation/create"]; n != calls {
					t.Fatalf("%d elicitations counted for %d calls", n, calls)
				}
			})
		}
	}
}

// TestUnansweredMethodsRefused: requests the policy has no answer for get
// a JSON-RPC error at once; under the error policy the client does not
// claim elicitation, so a server that checks never asks.
func TestUnansweredMethodsRefused(t *testing.T) {
	srv := sdk.NewServer(&sdk.Implementation{Name: "roots", Version: "1"}, nil)
	srv.AddTool(&sdk.Tool{Name: "roots", InputSchema: json.RawMessage(`{"type":"object"}`)}, func(ctx context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
		_, err := req.Session.ListRoots(ctx, nil)
		return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: fmt.Sprint(err)}}}, nil
	})
	addAskTool(srv)
	ts := httptest.NewServer(sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return srv }, nil))
	defer ts.Close()
	refuse, _ := ParseClientRequests("error")
	for _, c := range []struct {
		tool   string
		policy *ClientRequests
		want   string
	}{
		{"roots", nil, "mcpbench does not answer roots/list"},
		{"ask", refuse, "client does not support elicitation"},
	} {
		ctx := context.Background()
		cl, err := Dial(ctx, Options{URL: ts.URL, ProtocolVersion: Rev20251125, Timeout: 10 * time.Second, ClientRequests: c.policy})
		if err != nil {
			t.Fatal(err)
		}
		s, _ := cl.NewSession(ctx)
		start := time.Now()
		res, err := cl.Request(ctx, s, Request{Method: "tools/call", Tool: c.tool}, "")
		if time.Since(start) > 2*time.Second {
			t.Fatalf("%s waited %v for an answer", c.tool, time.Since(start))
		}
		if !strings.Contains(fmt.Sprint(string(res), err), c.want) {
			t.Errorf("%s under %s: %s %v, want %s", c.tool, c.policy, res, err, c.want)
		}
		s.Close(ctx)
		cl.Close(ctx)
	}
}

// TestListenStream: a server that sends its elicitation on the session's
// standing GET stream, not on the call's, is answered when the client
// listens there (Options.Listen); without it the call can only time out.
func TestListenStream(t *testing.T) {
	ts, standing := standingServer(t)
	for _, listen := range []bool{true, false} {
		ctx := context.Background()
		c, err := Dial(ctx, Options{URL: ts.URL, Timeout: 500 * time.Millisecond, Listen: listen})
		if err != nil {
			t.Fatal(err)
		}
		s, err := c.NewSession(ctx)
		if err != nil {
			t.Fatal(err)
		}
		p, _ := s.Prepare(Request{Method: "tools/call", Tool: "ask"})
		r := s.Do(ctx, p, "")
		if listen && (r.Kind != OK || c.Counters()["client_requests/elicitation/create"] != 1) {
			t.Fatalf("listening: %v %v, %v", r.Kind, r.Err, c.Counters())
		}
		if !listen && r.Kind != KindTimeout {
			t.Fatalf("not listening: %v %v", r.Kind, r.Err)
		}
		s.Close(ctx)
		c.Close(ctx)
		select {
		case <-standing: // the unanswered event, left over
		default:
		}
	}
}

// standingServer is a stateful server that, while a tools/call is in
// flight, sends an elicitation on the session's GET stream alone and
// answers the call with the client's answer once it comes. standing
// holds an event sent that no GET stream took.
func standingServer(t *testing.T) (ts *httptest.Server, standing chan string) {
	standing = make(chan string, 1) // events for the GET stream
	answered := make(chan string, 1)
	ts = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Mcp-Session-Id", "s1")
		if r.Method == http.MethodGet {
			w.Header().Set("Content-Type", "text/event-stream")
			w.(http.Flusher).Flush()
			for {
				select {
				case ev := <-standing:
					fmt.Fprintf(w, "data: %s\n\n", ev)
					w.(http.Flusher).Flush()
				case <-r.Context().Done():
					return
				}
			}
		}
		var msg struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Result json.RawMessage `json:"result"`
		}
		body, _ := io.ReadAll(r.Body)
		json.Unmarshal(body, &msg)
		w.Header().Set("Content-Type", "application/json")
		switch {
		case msg.Method == "initialize":
			fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":{"protocolVersion":"2025-11-25","capabilities":{},"serverInfo":{"name":"x","version":"1"}}}`, msg.ID)
		case msg.Method == "tools/call":
			standing <- `{"jsonrpc":"2.0","id":"e1","method":"elicitation/create","params":{"message":"?","requestedSchema":{"type":"object"}}}`
			select {
			case a := <-answered:
				fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":{"content":[{"type":"text","text":%q}]}}`, msg.ID, a)
			case <-r.Context().Done():
			}
		case msg.Method == "" && string(msg.ID) == `"e1"`:
			answered <- string(msg.Result)
			w.WriteHeader(http.StatusAccepted)
		default:
			w.WriteHeader(http.StatusAccepted)
		}
	}))
	t.Cleanup(ts.Close)
	return ts, standing
}

// TestClientRequestsFileErrors: a bad --client-requests file is named
// with the line and what was expected, in JSON's words, not Go's.
func TestClientRequestsFileErrors(t *testing.T) {
	file := filepath.Join(t.TempDir(), "answers.json")
	for bad, want := range map[string]string{
		"{\n  \"elicitation/create\": {\"action\": \"accept\"},\n  \"tools/call\": {}\n}": file + ` line 3: "tools/call" is not a request a server sends`,
		"{\n  \"roots/list\": [1]\n}": file + ` line 2: the answer to roots/list must be a JSON object, e.g. {"action": "accept"}`,
		"[\n  1\n]":                   file + ` line 1: found a JSON array; want a JSON object of results by method`,
		"{\n  \"ping\": {},\n}":       file + ` line 3: not valid JSON`,
	} {
		if err := os.WriteFile(file, []byte(bad), 0o600); err != nil {
			t.Fatal(err)
		}
		_, err := ParseClientRequests(file)
		if err == nil || !strings.Contains(err.Error(), want) || strings.Contains(err.Error(), "Go value") {
			t.Errorf("%q: %v, want %q", bad, err, want)
		}
	}
}
