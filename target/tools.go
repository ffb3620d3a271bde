package target

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Names of the tools every server has beside the synthetic ones.
const (
	ToolEcho = "echo"
	ToolFail = "fail"
	// FailsByDesignMeta marks, in a tool's _meta, a tool whose every call
	// is an error on purpose (mcpbench's workload reads the same key).
	FailsByDesignMeta = "io.mcpbench/fails-by-design"
)

// toolDef is one registered tool with its answers prepared at start-up, so
// that a call costs the server almost nothing beyond the modelled service time.
type toolDef struct {
	tool     *mcp.Tool
	required []string
	output   map[string]any // structuredContent that conforms to the outputSchema
	text     string         // output as JSON, the text content beside it
	bad      map[string]any // structuredContent that violates the outputSchema
}

type schema = map[string]any

func object(props schema, required ...string) schema {
	s := schema{"type": "object", "properties": props}
	if len(required) > 0 {
		s["required"] = required
	}
	return s
}

func str(extra schema) schema    { return with(schema{"type": "string"}, extra) }
func integer(lo, hi int) schema  { return schema{"type": "integer", "minimum": lo, "maximum": hi} }
func number(extra schema) schema { return with(schema{"type": "number"}, extra) }
func enum(vals ...string) schema { return schema{"type": "string", "enum": vals} }
func array(items schema, lo, hi int) schema {
	return schema{"type": "array", "items": items, "minItems": lo, "maxItems": hi}
}

func with(s, extra schema) schema {
	for k, v := range extra {
		s[k] = v
	}
	return s
}

// theme is one family of realistic tools; synthetic tool i uses theme i%len.
type theme struct {
	title, description string
	input, output      func() schema
	required           []string
	result             func(i int) map[string]any
}

// buildTools returns the synthetic tools followed by echo and fail, and
// the client tools when asked for.
func buildTools(n int, withClientTools bool) []*toolDef {
	ths := themes()
	defs := make([]*toolDef, 0, n+2)
	for i := range n {
		th := ths[i%len(ths)]
		defs = append(defs, newToolDef(&mcp.Tool{
			Name:         fmt.Sprintf("tool_%03d", i),
			Title:        fmt.Sprintf("%s (#%03d)", th.title, i),
			Description:  th.description,
			InputSchema:  th.input(),
			OutputSchema: th.output(),
			Annotations:  sideEffectFree(),
		}, th.required, th.result(i)))
	}
	msgIn := func() schema {
		return object(schema{"message": str(schema{"maxLength": 65536, "description": "Text to send back"})}, "message")
	}
	echo := newToolDef(&mcp.Tool{
		Name:         ToolEcho,
		Title:        "Echo",
		Description:  "Return the message unchanged, as text content and as structuredContent {message}.",
		InputSchema:  msgIn(),
		OutputSchema: msgIn(),
		Annotations:  sideEffectFree(),
	}, []string{"message"}, nil)
	echo.bad = map[string]any{"message": 12345}
	defs = append(defs, echo,
		newToolDef(&mcp.Tool{
			Name:         ToolFail,
			Title:        "Fail",
			Description:  "Always fail: answers with isError true and the message as the error text. For testing error handling.",
			InputSchema:  object(schema{"message": str(nil)}),
			OutputSchema: nil,
			Annotations:  sideEffectFree(),
			// Read-only, but an error by design: a client that picks tools
			// itself (generated arguments) leaves it out unless asked.
			Meta: mcp.Meta{FailsByDesignMeta: true},
		}, nil, nil),
	)
	if withClientTools {
		defs = append(defs, clientTools()...)
	}
	return defs
}

// sideEffectFree is the annotation every tool of the reference server
// carries, truthfully: a call changes nothing, and reaches nothing outside.
// A load tester that calls only read-only tools by default may call them
// all.
func sideEffectFree() *mcp.ToolAnnotations {
	closed := false
	return &mcp.ToolAnnotations{ReadOnlyHint: true, IdempotentHint: true, OpenWorldHint: &closed}
}

func newToolDef(t *mcp.Tool, required []string, output map[string]any) *toolDef {
	d := &toolDef{tool: t, required: required, output: output}
	if output != nil {
		b, _ := json.Marshal(output) // plain maps always marshal
		d.text = string(b)
		d.bad = corrupt(output)
	}
	return d
}

// corrupt gives every field of a conforming result a value of the wrong
// type, so the result breaks the outputSchema (whose properties all declare
// a type) whichever validator reads it.
func corrupt(out map[string]any) map[string]any {
	bad := make(map[string]any, len(out))
	for k, v := range out {
		if _, isString := v.(string); isString {
			bad[k] = 12345
		} else {
			bad[k] = "corrupted"
		}
	}
	return bad
}

// handler answers calls to d. args are checked only for being an object
// holding the required fields; a bad call is a tool error, as the spec asks.
func (d *toolDef) handler() mcp.ToolHandler {
	if h := clientToolHandler(d.tool.Name); h != nil {
		return h
	}
	return func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		var args map[string]any
		if raw := req.Params.Arguments; len(raw) > 0 && string(raw) != "null" {
			if err := json.Unmarshal(raw, &args); err != nil {
				return toolError("arguments must be a JSON object"), nil
			}
		}
		var missing []string
		for _, k := range d.required {
			if _, ok := args[k]; !ok {
				missing = append(missing, k)
			}
		}
		if len(missing) > 0 {
			return toolError("missing required argument(s): " + strings.Join(missing, ", ")), nil
		}
		switch d.tool.Name {
		case ToolEcho:
			msg, ok := args["message"].(string)
			if !ok {
				return toolError("message must be a string"), nil
			}
			return &mcp.CallToolResult{
				Content:           []mcp.Content{&mcp.TextContent{Text: msg}},
				StructuredContent: map[string]any{"message": msg},
			}, nil
		case ToolFail:
			msg, _ := args["message"].(string)
			if msg == "" {
				msg = "failed on request"
			}
			return toolError(msg), nil
		}
		return &mcp.CallToolResult{
			Content:           []mcp.Content{&mcp.TextContent{Text: d.text}},
			StructuredContent: d.output,
		}, nil
	}
}

func toolError(msg string) *mcp.CallToolResult {
	return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: msg}}}
}

// wireTool is t as the SDK is given it: its schemas marshalled once. The
// SDK marshals every tools/list answer afresh, and schemas held as maps
// cost it reflection and a key sort per tool per answer: this cut the
// server's CPU under the README's sweep by about a fifth. The bytes sent
// are the same.
func wireTool(t *mcp.Tool) *mcp.Tool {
	w := *t
	w.InputSchema = marshalledOnce(t.InputSchema)
	if t.OutputSchema != nil {
		w.OutputSchema = marshalledOnce(t.OutputSchema)
	}
	return &w
}

func marshalledOnce(v any) any {
	b, err := json.Marshal(v)
	if err != nil {
		return v // the SDK's own check at AddTool says what is wrong
	}
	return json.RawMessage(b)
}
