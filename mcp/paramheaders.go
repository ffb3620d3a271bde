package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/textproto"
	"strconv"
	"strings"
	"sync"

	"github.com/mcpbench/mcpbench/internal/h1"
)

// 2026-07-28 custom headers from tool parameters: a tool's inputSchema may
// mark primitive properties with x-mcp-header NAME, and a Streamable HTTP
// client must mirror each such argument into an Mcp-Param-NAME header (the
// server answers 400 HeaderMismatch without it). The client learns the
// marks from tools/list, and a request prepared for the tool carries the
// headers its arguments give.

// codeHeaderMismatch is the error a server answers when an Mcp-* header
// is missing or does not match the body.
const codeHeaderMismatch = -32020

// paramBinding is one x-mcp-header mark: the header and where its value
// is in the arguments.
type paramBinding struct {
	header string   // "Mcp-Param-NAME", canonical
	path   []string // property names from the arguments' root
}

// toolHeaders are the bindings of each tool the client has seen listed.
type toolHeaders struct {
	mu    sync.RWMutex
	tools map[string][]paramBinding
}

func (th *toolHeaders) set(tool string, b []paramBinding) {
	th.mu.Lock()
	defer th.mu.Unlock()
	if th.tools == nil {
		th.tools = map[string][]paramBinding{}
	}
	th.tools[tool] = b
}

func (th *toolHeaders) get(tool string) []paramBinding {
	th.mu.RLock()
	defer th.mu.RUnlock()
	return th.tools[tool]
}

// learnTools reads the marks of listed tools and returns the tools a
// 2026-07-28 Streamable HTTP client may call: one whose marks break the
// rules is left out, as the spec says.
func (c *Client) learnTools(tools []json.RawMessage) []json.RawMessage {
	enforce := IsModern(c.rev) && c.info.Transport != string(TransportStdio)
	kept := tools[:0:0]
	for _, raw := range tools {
		var t struct {
			Name        string          `json:"name"`
			InputSchema json.RawMessage `json:"inputSchema"`
		}
		if json.Unmarshal(raw, &t) != nil {
			kept = append(kept, raw)
			continue
		}
		b, err := paramBindings(t.InputSchema)
		if err != nil && enforce {
			continue
		}
		c.params.set(t.Name, b)
		kept = append(kept, raw)
	}
	return kept
}

// paramBindings reads the x-mcp-header marks of an inputSchema: only on
// integer, string or boolean properties reached from the root through
// "properties" alone, with names that are HTTP tokens, unique whatever
// their case.
func paramBindings(schema json.RawMessage) ([]paramBinding, error) {
	var root map[string]any
	if len(schema) == 0 || json.Unmarshal(schema, &root) != nil {
		return nil, nil
	}
	var out []paramBinding
	seen := map[string]bool{}
	var walk func(node map[string]any, path []string, reachable bool) error
	walk = func(node map[string]any, path []string, reachable bool) error {
		if mark, ok := node["x-mcp-header"]; ok {
			name, _ := mark.(string)
			typ, _ := node["type"].(string)
			switch {
			case !reachable || len(path) == 0:
				return fmt.Errorf("x-mcp-header on %q, not a property reached through properties alone", strings.Join(path, "."))
			case name == "" || strings.IndexFunc(name, func(r rune) bool { return r > 0x7e || !isTokenRune(byte(r)) }) >= 0:
				return fmt.Errorf("x-mcp-header %q is not an HTTP token", name)
			case typ != "integer" && typ != "string" && typ != "boolean":
				return fmt.Errorf("x-mcp-header %q on a %q property", name, typ)
			case seen[strings.ToLower(name)]:
				return fmt.Errorf("x-mcp-header %q given twice", name)
			}
			seen[strings.ToLower(name)] = true
			out = append(out, paramBinding{header: textproto.CanonicalMIMEHeaderKey("Mcp-Param-" + name), path: path})
		}
		for key, v := range node {
			if props, ok := v.(map[string]any); ok && key == "properties" {
				for name, sub := range props {
					if sub, ok := sub.(map[string]any); ok {
						if err := walk(sub, append(path[:len(path):len(path)], name), reachable); err != nil {
							return err
						}
					}
				}
				continue
			}
			// Anything else (items, oneOf, $defs...) is not statically
			// reachable: a mark inside it breaks the rules.
			if err := walkAny(v, func(m map[string]any) error { return walk(m, path, false) }); err != nil {
				return err
			}
		}
		return nil
	}
	return out, walk(root, nil, true)
}

// walkAny calls f on each object in v, at any depth of arrays.
func walkAny(v any, f func(map[string]any) error) error {
	switch v := v.(type) {
	case map[string]any:
		return f(v)
	case []any:
		for _, e := range v {
			if err := walkAny(e, f); err != nil {
				return err
			}
		}
	}
	return nil
}

func isTokenRune(c byte) bool { return h1.TokenByte(c) }

// paramHeaders are the Mcp-Param headers args give under bindings: a
// value absent or null gives none; strings go as they are, integers in
// decimal, booleans as true or false, each with the base64 sentinel form
// where it is not plain visible ASCII.
func paramHeaders(bindings []paramBinding, args json.RawMessage) [][2]string {
	if len(bindings) == 0 || len(args) == 0 {
		return nil
	}
	var out [][2]string
	for _, b := range bindings {
		v, ok := lookupArg(args, b.path)
		if !ok {
			continue
		}
		var s string
		switch x := v.(type) {
		case string:
			s = x
		case bool:
			s = strconv.FormatBool(x)
		case json.Number:
			if _, err := x.Int64(); err != nil {
				continue // not an integer: the schema says it cannot be
			}
			s = x.String()
		default:
			continue
		}
		out = append(out, [2]string{b.header, headerValue(s)})
	}
	return out
}

// lookupArg finds the value at path in the arguments object.
func lookupArg(args json.RawMessage, path []string) (any, bool) {
	d := json.NewDecoder(strings.NewReader(string(args)))
	d.UseNumber()
	var v any
	if d.Decode(&v) != nil {
		return nil, false
	}
	for _, key := range path {
		m, ok := v.(map[string]any)
		if !ok {
			return nil, false
		}
		if v, ok = m[key]; !ok || v == nil {
			return nil, false
		}
	}
	return v, true
}

// relistForHeaders answers a HeaderMismatch the way the spec asks: list
// the tools again and take their marks, then p's headers, once per
// prepared request. It reports whether the request is worth sending again.
func (s *Session) relistForHeaders(ctx context.Context, p *Prepared, r Result) bool {
	var e *Error
	if p.relisted || p.req.Method != "tools/call" || !IsModern(s.c.rev) || !errors.As(r.Err, &e) || e.Code != codeHeaderMismatch {
		return false
	}
	p.relisted = true
	// Another session may have listed them since p was prepared.
	bindings := s.c.params.get(p.req.Tool)
	if bindings == nil {
		if _, _, err := s.c.ListTools(ctx, s); err != nil {
			return false
		}
		bindings = s.c.params.get(p.req.Tool)
	}
	p.params = paramHeaders(bindings, p.req.Arguments)
	p.hdr, p.wire = nil, nil
	return true
}
