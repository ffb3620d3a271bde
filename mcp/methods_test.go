package mcp

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
)

// TestSurfaceParams: the methods beyond tools put their target where the
// spec says (uri, name), prompt arguments beside it, and completions their
// ref and argument; listings other than tools/list are paged.
func TestSurfaceParams(t *testing.T) {
	for _, c := range []struct {
		req  Request
		want string
	}{
		{ReadResource("demo://a b"), `{"uri":"demo://a b"}`},
		{GetPrompt("p", json.RawMessage(`{ "x": "1" }`)), `{"name":"p","arguments":{"x":"1"}}`},
		{GetPrompt("p", nil), `{"name":"p"}`},
		{Complete("ref/prompt", "p", "x", "a"), `{"argument":{"name":"x","value":"a"},"ref":{"name":"p","type":"ref/prompt"}}`},
		{Complete("ref/resource", "t://{id}", "id", ""), `{"argument":{"name":"id","value":""},"ref":{"type":"ref/resource","uri":"t://{id}"}}`},
		{Request{Method: "resources/list"}, `{"cursor":"c1"}`},
	} {
		got, err := buildParams(c.req, nil, map[bool]string{true: "c1"}[c.req.Method == "resources/list"])
		if err != nil {
			t.Fatal(err)
		}
		var a, b any
		_ = json.Unmarshal(got, &a)
		_ = json.Unmarshal([]byte(c.want), &b)
		if ja, _ := json.Marshal(a); string(ja) != string(mustJSON(b)) {
			t.Errorf("%s: params %s, want %s", c.req.Method, got, c.want)
		}
	}
	for m, paged := range map[string]bool{"tools/list": true, "resources/list": true, "resources/templates/list": true,
		"prompts/list": true, "resources/read": false, "prompts/get": false, "ping": false} {
		if Paged(m) != paged {
			t.Errorf("Paged(%s) = %v", m, !paged)
		}
	}
	if nameKey("resources/read") != "uri" || nameKey("prompts/get") != "name" || nameKey("prompts/list") != "" {
		t.Error("Mcp-Name goes with tools/call, resources/read and prompts/get only")
	}
}

func mustJSON(v any) []byte { b, _ := json.Marshal(v); return b }

// TestSurfacePaging: a prompts/list listing is followed through its pages,
// and a resources/list whose cursor repeats is cut off with the method's
// name in the reason.
func TestSurfacePaging(t *testing.T) {
	ctx := context.Background()
	c := fakeClient(t, &fakeLink{})
	s, err := c.NewSession(ctx)
	if err != nil {
		t.Fatal(err)
	}
	prompts, pages, err := c.List(ctx, s, "prompts/list", "prompts")
	if err != nil || len(prompts) != 2 || pages != 2 {
		t.Fatalf("prompts/list: %d prompts in %d pages, %v", len(prompts), pages, err)
	}
	list, _ := s.Prepare(Request{Method: "resources/list"})
	r := s.Do(ctx, list, "")
	if r.Kind != OK || r.NextCursor != "again" {
		t.Fatalf("resources/list page 1: %+v", r)
	}
	r = s.Do(ctx, list, r.NextCursor)
	if r.Kind != KindTransport || !strings.Contains(r.Err.Error(), "resources/list: nextCursor \"again\"") {
		t.Fatalf("a repeating resources/list cursor: %s %v", r.Kind, r.Err)
	}
}
