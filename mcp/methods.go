package mcp

import (
	"bytes"
	"encoding/json"
)

// The methods beyond tools: resources and prompts are read-only by the
// protocol, so a load of them needs no safety gate. Those that name one
// thing (a tool, a URI, a prompt) carry it in Request.Tool, so that the
// report labels them as it labels tools.

// nameKey is the params member that Request.Tool fills for method, or "".
func nameKey(method string) string {
	switch method {
	case "tools/call", "prompts/get":
		return "name"
	case "resources/read":
		return "uri"
	}
	return ""
}

// Paged reports whether method is a listing whose pages name a nextCursor.
func Paged(method string) bool {
	switch method {
	case "tools/list", "resources/list", "resources/templates/list", "prompts/list":
		return true
	}
	return false
}

// ReadResource is a resources/read of uri.
func ReadResource(uri string) Request { return Request{Method: "resources/read", Tool: uri} }

// GetPrompt is a prompts/get of name with args (a JSON object of strings,
// or nil).
func GetPrompt(name string, args json.RawMessage) Request {
	return Request{Method: "prompts/get", Tool: name, Arguments: args}
}

// Complete is a completion/complete of the argument arg of a prompt (ref
// "ref/prompt", name) or a resource template (ref "ref/resource", its URI
// template), with the value typed so far.
func Complete(ref, name, arg, value string) Request {
	key := "name"
	if ref == "ref/resource" {
		key = "uri"
	}
	params, _ := json.Marshal(map[string]any{
		"ref":      map[string]string{"type": ref, key: name},
		"argument": map[string]string{"name": arg, "value": value},
	})
	return Request{Method: "completion/complete", Tool: name, Params: params}
}

// writeCompact appends v to b without its insignificant spaces; empty v is
// an empty object.
func writeCompact(b *bytes.Buffer, v json.RawMessage) error {
	if len(v) == 0 {
		b.WriteString("{}")
		return nil
	}
	return json.Compact(b, v)
}
