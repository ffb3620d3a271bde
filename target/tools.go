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

func themes() []theme {
	return []theme{
		{
			title:       "Search documents",
			description: "Full-text search over the document index. Returns the best matching documents with a relevance score, newest first when sort is 'recent'.",
			required:    []string{"query"},
			input: func() schema {
				return object(schema{
					"query": str(schema{"minLength": 1, "maxLength": 256, "description": "Search terms"}),
					"limit": with(integer(1, 50), schema{"default": 10}),
					"sort":  enum("relevance", "recent"),
					"filters": object(schema{
						"lang":  enum("en", "de", "fr", "ja"),
						"since": str(schema{"format": "date-time"}),
						"tags":  with(array(str(schema{"pattern": "^[a-z0-9-]{1,32}$"}), 0, 5), schema{"uniqueItems": true}),
					}),
				}, "query")
			},
			output: func() schema {
				return object(schema{
					"total": schema{"type": "integer", "minimum": 0},
					"results": array(object(schema{
						"id":    str(schema{"pattern": "^doc-[0-9]{6}$"}),
						"title": str(schema{"maxLength": 200}),
						"score": number(schema{"minimum": 0, "maximum": 1}),
						"url":   str(schema{"format": "uri"}),
					}, "id", "title", "score"), 0, 50),
				}, "total", "results")
			},
			result: func(i int) map[string]any {
				return map[string]any{"total": 2, "results": []any{
					map[string]any{"id": fmt.Sprintf("doc-%06d", 100000+i), "title": "Capacity planning for MCP servers", "score": 0.92, "url": "https://docs.example.com/capacity"},
					map[string]any{"id": fmt.Sprintf("doc-%06d", 200000+i), "title": "Reading latency histograms", "score": 0.61, "url": "https://docs.example.com/latency"},
				}}
			},
		},
		{
			title:       "Create ticket",
			description: "Open a ticket in the tracker, optionally assigned to a person and team, with labels and a due date. Returns the ticket's id and status.",
			required:    []string{"title", "priority"},
			input: func() schema {
				return object(schema{
					"title":    str(schema{"minLength": 3, "maxLength": 120}),
					"priority": enum("low", "medium", "high", "urgent"),
					"assignee": object(schema{
						"email": str(schema{"format": "email"}),
						"team":  str(schema{"pattern": "^[a-z][a-z0-9-]{1,30}$"}),
					}, "email"),
					"labels": array(str(schema{"minLength": 1, "maxLength": 24}), 1, 8),
					"due":    str(schema{"format": "date"}),
				}, "title", "priority")
			},
			output: func() schema {
				return object(schema{
					"ticket_id":  str(schema{"pattern": "^TCK-[0-9]{5}$"}),
					"status":     enum("open", "triaged"),
					"created_at": str(schema{"format": "date-time"}),
					"assignee":   object(schema{"email": str(schema{"format": "email"})}),
				}, "ticket_id", "status", "created_at")
			},
			result: func(i int) map[string]any {
				return map[string]any{"ticket_id": fmt.Sprintf("TCK-%05d", 10000+i), "status": "open",
					"created_at": "2026-01-15T09:30:00Z", "assignee": map[string]any{"email": "oncall@example.com"}}
			},
		},
		{
			title:       "Query metrics",
			description: "Fetch a time series for one metric over a trailing window, optionally grouped, with a summary of the points. Values use the metric's unit.",
			required:    []string{"metric", "window_s"},
			input: func() schema {
				return object(schema{
					"metric":     enum("cpu", "memory", "latency_p99", "error_rate"),
					"window_s":   integer(10, 86400),
					"group_by":   with(array(enum("host", "region", "service"), 0, 3), schema{"uniqueItems": true}),
					"percentile": number(schema{"exclusiveMinimum": 0, "maximum": 100}),
				}, "metric", "window_s")
			},
			output: func() schema {
				return object(schema{
					"metric": str(nil),
					"unit":   enum("percent", "bytes", "ms", "ratio"),
					"points": array(object(schema{
						"t": str(schema{"format": "date-time"}),
						"v": number(nil),
					}, "t", "v"), 1, 60),
					"summary": object(schema{"min": number(nil), "max": number(nil), "mean": number(nil)}, "min", "max", "mean"),
				}, "metric", "unit", "points", "summary")
			},
			result: func(i int) map[string]any {
				return map[string]any{"metric": "cpu", "unit": "percent",
					"points": []any{
						map[string]any{"t": "2026-01-15T09:00:00Z", "v": 41.5},
						map[string]any{"t": "2026-01-15T09:01:00Z", "v": 47.0 + float64(i%10)},
					},
					"summary": map[string]any{"min": 41.5, "max": 47.0 + float64(i%10), "mean": 44.25 + float64(i%10)/2}}
			},
		},
		{
			title:       "Weather forecast",
			description: "Daily weather forecast for a coordinate, up to 14 days ahead, in metric or imperial units, with optional hourly detail and active alerts.",
			required:    []string{"location"},
			input: func() schema {
				return object(schema{
					"location": object(schema{
						"lat": number(schema{"minimum": -90, "maximum": 90}),
						"lon": number(schema{"minimum": -180, "maximum": 180}),
					}, "lat", "lon"),
					"units":   enum("metric", "imperial"),
					"days":    integer(1, 14),
					"include": with(array(enum("hourly", "alerts", "air_quality"), 0, 3), schema{"uniqueItems": true}),
				}, "location")
			},
			output: func() schema {
				return object(schema{
					"location": object(schema{"lat": number(nil), "lon": number(nil)}, "lat", "lon"),
					"forecast": array(object(schema{
						"date":       str(schema{"format": "date"}),
						"high":       number(nil),
						"low":        number(nil),
						"conditions": enum("clear", "cloudy", "rain", "snow", "storm"),
					}, "date", "high", "low", "conditions"), 1, 14),
					"alerts": array(str(nil), 0, 10),
				}, "location", "forecast")
			},
			result: func(i int) map[string]any {
				return map[string]any{"location": map[string]any{"lat": 48.14, "lon": 11.58},
					"forecast": []any{map[string]any{"date": "2026-01-16", "high": 4.0 + float64(i%5), "low": -2.0, "conditions": "cloudy"}},
					"alerts":   []any{}}
			},
		},
	}
}

// buildTools returns the synthetic tools followed by echo and fail.
func buildTools(n int) []*toolDef {
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
	}, []string{"message"}, nil)
	echo.bad = map[string]any{"message": 12345}
	defs = append(defs, echo,
		newToolDef(&mcp.Tool{
			Name:         ToolFail,
			Title:        "Fail",
			Description:  "Always fail: answers with isError true and the message as the error text. For testing error handling.",
			InputSchema:  object(schema{"message": str(nil)}),
			OutputSchema: nil,
		}, nil, nil),
	)
	return defs
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
