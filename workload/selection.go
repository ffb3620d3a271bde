package workload

import (
	"context"
	"encoding/json"
	"fmt"
	"path"
	"slices"

	"github.com/mcpbench/mcpbench/mcp"
)

// Which tools a workload calls. A tool the user names is called: naming it
// is consent. Where the workload picks tools itself (generated arguments
// with no tool named), it picks by the tools' annotations, read with the
// spec's defaults, so that pointing mcpbench at a real server writes and
// deletes nothing unless the user allows it.

// Annotations are a tool's behaviour hints as the server listed them; a
// nil hint was not given.
type Annotations struct {
	ReadOnlyHint    *bool `json:"readOnlyHint,omitempty"`
	DestructiveHint *bool `json:"destructiveHint,omitempty"`
	IdempotentHint  *bool `json:"idempotentHint,omitempty"`
	OpenWorldHint   *bool `json:"openWorldHint,omitempty"`
}

// Effect is what calling a tool may do to the server's state.
type Effect string

// The effects, from the annotations: a tool is read-only only when it says
// readOnlyHint: true, and destructive unless it says destructiveHint:
// false (the spec's defaults for absent hints).
const (
	ReadOnly    Effect = "read-only"
	Additive    Effect = "write"
	Destructive Effect = "destructive"
)

// Effect reads a's hints with the spec's defaults.
func (a Annotations) Effect() Effect {
	switch {
	case a.ReadOnlyHint != nil && *a.ReadOnlyHint:
		return ReadOnly
	case a.DestructiveHint != nil && !*a.DestructiveHint:
		return Additive
	}
	return Destructive
}

// given reports whether the server gave any hint at all.
func (a Annotations) given() bool {
	return a.ReadOnlyHint != nil || a.DestructiveHint != nil || a.IdempotentHint != nil || a.OpenWorldHint != nil
}

// Selection says which listed tools a workload may pick itself. The zero
// Selection picks the read-only tools.
type Selection struct {
	// AllowWrites adds the tools that may write but say they destroy
	// nothing (destructiveHint: false); AllowDestructive adds the rest.
	AllowWrites      bool
	AllowDestructive bool
	// Include, when set, keeps only the tools whose names match one of
	// its globs (path.Match syntax); Exclude drops those matching one of
	// its own.
	Include []string
	Exclude []string
}

// check finds a glob that is not one.
func (sel Selection) check() error {
	for _, g := range append(slices.Clip(sel.Include), sel.Exclude...) {
		if _, err := path.Match(g, ""); err != nil {
			return &GlobError{Glob: g}
		}
	}
	return nil
}

// narrows reports whether sel names tools by glob.
func (sel Selection) narrows() bool { return len(sel.Include) > 0 || len(sel.Exclude) > 0 }

// matches reports whether the globs keep name.
func (sel Selection) matches(name string) bool {
	match := func(globs []string) bool {
		return slices.ContainsFunc(globs, func(g string) bool { ok, _ := path.Match(g, name); return ok })
	}
	return (len(sel.Include) == 0 || match(sel.Include)) && !match(sel.Exclude)
}

// admits reports whether sel allows a tool of effect e.
func (sel Selection) admits(e Effect) bool {
	switch e {
	case ReadOnly:
		return true
	case Additive:
		return sel.AllowWrites || sel.AllowDestructive
	}
	return sel.AllowDestructive
}

// ToolInfo is one tool a workload calls, as the report shows it.
type ToolInfo struct {
	Name        string      `json:"name"`
	Effect      Effect      `json:"effect"`
	Annotations Annotations `json:"annotations"`
	// Named: the user named the tool, so it is called whatever its
	// annotations say.
	Named bool `json:"named,omitempty"`
	// ArgSets is the number of generated argument sets it cycles through;
	// CardinalityNote says why it is fewer than asked for.
	ArgSets         int    `json:"arg_sets,omitempty"`
	CardinalityNote string `json:"cardinality_note,omitempty"`
}

// toolDef is the part of a listed tool the workload reads.
type toolDef struct {
	Name         string          `json:"name"`
	InputSchema  json.RawMessage `json:"inputSchema"`
	OutputSchema json.RawMessage `json:"outputSchema"`
	Annotations  Annotations     `json:"annotations"`
	Meta         struct {
		FailsByDesign bool `json:"io.mcpbench/fails-by-design"`
	} `json:"_meta"`
}

// catalog is the server's tools: by name, and in the order listed. The
// zero catalog is a server that was not asked.
type catalog struct {
	byName map[string]toolDef
	order  []string
}

// needsCatalog tells whether the server's tools must be listed: to check
// the tools named, to read annotations, to generate arguments from the
// inputSchemas, or to validate answers against the outputSchemas.
func needsCatalog(entries []MixEntry) bool {
	return slices.ContainsFunc(entries, func(m MixEntry) bool { return m.Method == "tools/call" })
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
		if json.Unmarshal(r, &t) != nil || t.Name == "" {
			continue
		}
		if _, dup := cat.byName[t.Name]; !dup {
			cat.order = append(cat.order, t.Name)
		}
		cat.byName[t.Name] = t
	}
	return cat, nil
}

// info is what the report says of tool name.
func (c catalog) info(name string, named bool) ToolInfo {
	a := c.byName[name].Annotations
	return ToolInfo{Name: name, Effect: a.Effect(), Annotations: a, Named: named}
}

// toolsFor is the tools a tools/call entry calls: the one it names, which
// the server must list, or those sel picks.
func (c catalog) toolsFor(m MixEntry, sel Selection) ([]string, error) {
	if m.Tool != "" {
		if _, ok := c.byName[m.Tool]; !ok {
			return nil, &UnknownToolError{Tool: m.Tool, Listed: closestFirst(m.Tool, c.order)}
		}
		return []string{m.Tool}, nil
	}
	if len(c.order) == 0 {
		return nil, &ServerError{Msg: "the server lists no tools to call"}
	}
	return c.pick(sel)
}

// pick is the listed tools sel allows, in the order listed; none is a
// *SelectionError that says what was left out and why.
func (c catalog) pick(sel Selection) ([]string, error) {
	var picked []string
	e := &SelectionError{Listed: len(c.order), Left: map[Effect]int{}}
	for _, name := range c.order {
		a := c.byName[name].Annotations
		switch {
		case !sel.matches(name):
			e.Unmatched++
		case c.byName[name].Meta.FailsByDesign && len(sel.Include) == 0:
			// A tool that errors on purpose (the bundled server's fail)
			// is called when --tools asks for it, never by chance.
			e.Unmatched++
		case !sel.admits(a.Effect()):
			e.Left[a.Effect()]++
			if !a.given() {
				e.Unannotated++
			}
		default:
			picked = append(picked, name)
		}
	}
	if len(picked) == 0 {
		return nil, e
	}
	return picked, nil
}

// warning is the line to print before calling a named tool whose
// annotations say it may destroy data; "" when they do not.
func (t ToolInfo) warning() string {
	switch {
	case !t.Named || t.Effect != Destructive:
		return ""
	case t.Annotations.given():
		return fmt.Sprintf("tool %q is annotated as destructive; calling it because it was named", t.Name)
	}
	return fmt.Sprintf("tool %q has no annotations, so the MCP spec presumes it destructive; calling it because it was named", t.Name)
}
