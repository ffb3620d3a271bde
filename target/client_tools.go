package target

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Tools that exercise the client rather than the server (Config.ClientTools):
// one that asks the user during the call, one whose argument travels in a
// header too (2026-07-28 x-mcp-header), and one that needs a second round
// trip (2026-07-28 input_required with requestState).
const (
	// ToolElicit asks for a name with an elicitation and answers with
	// what came back: "accept NAME", "decline" or "cancel". To clients
	// before 2026-07-28 the SDK sends the elicitation as a request during
	// the call; newer ones get an input_required result and call again.
	ToolElicit = "elicit"
	// ToolRegion echoes its region argument, which the schema marks
	// x-mcp-header "Region": a 2026-07-28 client must send it as
	// Mcp-Param-Region too, or the SDK refuses the call (HeaderMismatch).
	ToolRegion = "region_echo"
	// ToolInputOnce answers its first round with input_required and a
	// requestState only, and completes when the state comes back.
	ToolInputOnce = "input_once"
)

// inputOnceState is the state ToolInputOnce hands out; a real server
// would protect it (the tool reveals nothing and grants nothing).
const inputOnceState = "round-2"

func clientTools() []*toolDef {
	elicit := &toolDef{tool: &mcp.Tool{
		Name:        ToolElicit,
		Title:       "Elicit",
		Description: "Ask the user for a name (elicitation) and answer with the action and the name given.",
		InputSchema: object(schema{}),
	}}
	region := &toolDef{tool: &mcp.Tool{
		Name:        ToolRegion,
		Title:       "Region echo",
		Description: "Answer with the region given; the region is mirrored in the Mcp-Param-Region header (2026-07-28).",
		InputSchema: object(schema{
			"region":  str(schema{"x-mcp-header": "Region", "description": "Region to answer for", "enum": []string{"us-west1", "eu-west4", "asia-east2"}}),
			"message": str(schema{"maxLength": 256}),
		}, "region"),
	}, required: []string{"region"}}
	once := &toolDef{tool: &mcp.Tool{
		Name:        ToolInputOnce,
		Title:       "Input once",
		Description: "Answer the first round with input_required and a requestState; complete when the state is echoed.",
		InputSchema: object(schema{}),
	}}
	return []*toolDef{elicit, region, once}
}

// clientToolHandler answers the client tools; nil for any other tool.
func clientToolHandler(name string) mcp.ToolHandler {
	switch name {
	case ToolElicit:
		return elicitHandler
	case ToolRegion:
		return regionHandler
	case ToolInputOnce:
		return inputOnceHandler
	}
	return nil
}

func elicitHandler(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	answer, ok := req.Params.InputResponses["name"].(*mcp.ElicitResult)
	if !ok {
		return &mcp.CallToolResult{InputRequests: mcp.InputRequestMap{"name": &mcp.ElicitParams{
			Mode:    "form",
			Message: "Which name should the answer carry?",
			RequestedSchema: json.RawMessage(
				`{"type":"object","properties":{"name":{"type":"string","default":"mcpbench"}},"required":["name"]}`),
		}}}, nil
	}
	text := answer.Action
	if name, ok := answer.Content["name"].(string); ok {
		text += " " + name
	}
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}}, nil
}

func regionHandler(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	var args struct {
		Region string `json:"region"`
	}
	if err := json.Unmarshal(req.Params.Arguments, &args); err != nil || args.Region == "" {
		return toolError("region must be a string"), nil
	}
	return &mcp.CallToolResult{
		Content:           []mcp.Content{&mcp.TextContent{Text: args.Region}},
		StructuredContent: map[string]any{"region": args.Region},
	}, nil
}

func inputOnceHandler(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	switch req.Params.RequestState {
	case "":
		// An empty, not a nil, map: the SDK marks a result input_required
		// by the map's presence; empty, it is left off the wire, so only
		// the state asks for the second round.
		return &mcp.CallToolResult{InputRequests: mcp.InputRequestMap{}, RequestState: inputOnceState}, nil
	case inputOnceState:
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "done in two rounds"}}}, nil
	}
	return toolError(fmt.Sprintf("unknown requestState %q", req.Params.RequestState)), nil
}
