package mcp

import (
	"encoding/json"
	"reflect"
	"testing"
)

// TestParamBindings: the x-mcp-header rules of 2026-07-28, each broken
// once, and the headers arguments give, encoded as the spec's examples.
func TestParamBindings(t *testing.T) {
	good := `{"type":"object","properties":{
		"region":{"type":"string","x-mcp-header":"Region"},
		"n":{"type":"integer","x-mcp-header":"Count"},
		"flag":{"type":"boolean","x-mcp-header":"Flag"},
		"nested":{"type":"object","properties":{"inner":{"type":"string","x-mcp-header":"Inner"}}},
		"text":{"type":"string","x-mcp-header":"Text"},
		"query":{"type":"string"}}}`
	b, err := paramBindings(json.RawMessage(good))
	if err != nil || len(b) != 5 {
		t.Fatalf("%d bindings, %v", len(b), err)
	}
	args := `{"region":"us-west1","n":42,"flag":true,"nested":{"inner":"Hello, 世界"},"text":"=?base64?literal?=","query":"x"}`
	got := map[string]string{}
	for _, kv := range paramHeaders(b, json.RawMessage(args)) {
		got[kv[0]] = kv[1]
	}
	want := map[string]string{
		"Mcp-Param-Region": "us-west1", "Mcp-Param-Count": "42", "Mcp-Param-Flag": "true",
		"Mcp-Param-Inner": "=?base64?SGVsbG8sIOS4lueVjA==?=", "Mcp-Param-Text": "=?base64?PT9iYXNlNjQ/bGl0ZXJhbD89?=",
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("headers %v\nwant %v", got, want)
	}
	// A value absent or null gives no header.
	if h := paramHeaders(b, json.RawMessage(`{"region":null}`)); len(h) != 0 {
		t.Fatalf("headers for absent values: %v", h)
	}
	for name, bad := range map[string]string{
		"number type":     `{"properties":{"x":{"type":"number","x-mcp-header":"X"}}}`,
		"under items":     `{"properties":{"xs":{"type":"array","items":{"type":"string","x-mcp-header":"X"}}}}`,
		"under oneOf":     `{"oneOf":[{"properties":{"x":{"type":"string","x-mcp-header":"X"}}}]}`,
		"not a token":     `{"properties":{"x":{"type":"string","x-mcp-header":"X Y"}}}`,
		"empty":           `{"properties":{"x":{"type":"string","x-mcp-header":""}}}`,
		"twice, any case": `{"properties":{"x":{"type":"string","x-mcp-header":"Id"},"y":{"type":"string","x-mcp-header":"ID"}}}`,
		"on the root":     `{"type":"string","x-mcp-header":"X"}`,
	} {
		if _, err := paramBindings(json.RawMessage(bad)); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}

// TestLearnToolsDropsInvalid: a 2026-07-28 client leaves out of tools/list
// a tool whose marks break the rules, and keeps the others' marks.
func TestLearnToolsDropsInvalid(t *testing.T) {
	c := &Client{rev: Rev20260728, info: ServerInfo{Transport: string(TransportHTTP)}}
	tools := []json.RawMessage{
		json.RawMessage(`{"name":"ok","inputSchema":{"properties":{"r":{"type":"string","x-mcp-header":"R"}}}}`),
		json.RawMessage(`{"name":"bad","inputSchema":{"properties":{"r":{"type":"number","x-mcp-header":"R"}}}}`),
	}
	kept := c.learnTools(tools)
	if len(kept) != 1 || len(c.params.get("ok")) != 1 || c.params.get("bad") != nil {
		t.Fatalf("kept %d tools, marks %v", len(kept), c.params.tools)
	}
}
