package workload

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/mcpbench/mcpbench/mcp"
)

// Which tools a workload calls: the one an entry names, or, for generated
// arguments with no tool named, every tool the server lists.

// toolDef is the part of a listed tool the workload reads.
type toolDef struct {
	Name         string          `json:"name"`
	InputSchema  json.RawMessage `json:"inputSchema"`
	OutputSchema json.RawMessage `json:"outputSchema"`
}

// catalog is the server's tools: by name, and in the order listed. The
// zero catalog is a server that was not asked.
type catalog struct {
	byName map[string]toolDef
	order  []string
}

// needsCatalog tells whether the server's tools must be listed: to
// generate arguments from their inputSchemas, to call every tool, or to
// validate answers against their outputSchemas.
func needsCatalog(entries []MixEntry, validate bool) bool {
	for _, m := range entries {
		if m.Method == "tools/call" && (m.GenArgs || validate) {
			return true
		}
	}
	return false
}

// listTools lists the server's tools on a session of its own.
func listTools(ctx context.Context, client *mcp.Client) (catalog, error) {
	cat := catalog{byName: map[string]toolDef{}}
	s, err := client.NewSession(ctx)
	if err != nil {
		return cat, &ServerError{Msg: fmt.Sprintf("listing tools: %v", err), Err: err}
	}
	raw, _, err := client.ListTools(ctx, s)
	_ = s.Close(ctx)
	if err != nil {
		return cat, &ServerError{Msg: fmt.Sprintf("listing tools: %v", err), Err: err}
	}
	for _, r := range raw {
		var t toolDef
		if json.Unmarshal(r, &t) == nil && t.Name != "" {
			cat.byName[t.Name] = t
			cat.order = append(cat.order, t.Name)
		}
	}
	return cat, nil
}

// toolsFor is the tools a tools/call entry calls.
func (c catalog) toolsFor(m MixEntry) ([]string, error) {
	if m.Tool != "" {
		return []string{m.Tool}, nil
	}
	if len(c.order) == 0 {
		return nil, &ServerError{Msg: "the server lists no tools to call"}
	}
	return c.order, nil
}
