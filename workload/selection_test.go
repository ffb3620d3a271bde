package workload_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpbench/mcpbench/mcp"
	"github.com/mcpbench/mcpbench/workload"
)

func flag(b bool) *bool { return &b }

// annotatedServer lists one tool of each kind the spec's hints allow: a
// reader, a writer that destroys nothing, an explicit destroyer, one with
// no annotations (destructive by the spec's defaults) and a reader whose
// schema admits a single argument set. It counts the calls it gets. (The
// SDK lists tools by name.)
func annotatedServer(t *testing.T, calls *int) *mcp.Client {
	t.Helper()
	srv := sdk.NewServer(&sdk.Implementation{Name: "annotated", Version: "1"}, nil)
	query := map[string]any{"type": "object", "properties": map[string]any{"q": map[string]any{"type": "string"}}, "required": []string{"q"}}
	none := map[string]any{"type": "object", "properties": map[string]any{}, "additionalProperties": false}
	handler := func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
		*calls++
		return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "ok"}}}, nil
	}
	for _, tool := range []*sdk.Tool{
		{Name: "read_file", InputSchema: query, Annotations: &sdk.ToolAnnotations{ReadOnlyHint: true}},
		{Name: "create_entity", InputSchema: query, Annotations: &sdk.ToolAnnotations{DestructiveHint: flag(false)}},
		{Name: "delete_entity", InputSchema: query, Annotations: &sdk.ToolAnnotations{DestructiveHint: flag(true)}},
		{Name: "mystery", InputSchema: query},
		{Name: "read_graph", InputSchema: none, Annotations: &sdk.ToolAnnotations{ReadOnlyHint: true}},
	} {
		srv.AddTool(tool, handler)
	}
	ts := httptest.NewServer(sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return srv }, &sdk.StreamableHTTPOptions{JSONResponse: true}))
	t.Cleanup(ts.Close)
	ctx := context.Background()
	c, err := mcp.Dial(ctx, mcp.Options{URL: ts.URL, Timeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close(ctx) })
	return c
}

func toolNames(wl *workload.Workload) string {
	var names []string
	for _, op := range wl.Operations() {
		names = append(names, op.Tool)
	}
	return strings.Join(names, ",")
}

// TestSelectionFollowsAnnotations: generated arguments with no tool named
// call the read-only tools; each allowance adds its own kind, globs narrow,
// and building calls nothing.
func TestSelectionFollowsAnnotations(t *testing.T) {
	calls := 0
	c := annotatedServer(t, &calls)
	for _, tc := range []struct {
		sel  workload.Selection
		want string
	}{
		{workload.Selection{}, "read_file,read_graph"},
		{workload.Selection{AllowWrites: true}, "create_entity,read_file,read_graph"},
		{workload.Selection{AllowDestructive: true}, "create_entity,delete_entity,mystery,read_file,read_graph"},
		{workload.Selection{AllowDestructive: true, Include: []string{"*_entity"}}, "create_entity,delete_entity"},
		{workload.Selection{AllowDestructive: true, Exclude: []string{"delete_*", "mystery"}}, "create_entity,read_file,read_graph"},
	} {
		wl, err := workload.Build(context.Background(), c, workload.Spec{GenArgs: true, Cardinality: 4, Seed: 1, Select: tc.sel})
		if err != nil {
			t.Fatalf("%+v: %v", tc.sel, err)
		}
		if got := toolNames(wl); got != tc.want {
			t.Errorf("%+v: calls %s, want %s", tc.sel, got, tc.want)
		}
		for _, info := range wl.Tools() {
			if info.Named || (info.Name == "mystery") != (info.Effect == workload.Destructive && info.Annotations == workload.Annotations{}) {
				t.Errorf("%+v", info)
			}
		}
		if w := wl.Warnings(); len(w) > 0 {
			t.Errorf("warnings for tools nobody named: %v", w)
		}
	}
	if calls != 0 {
		t.Fatalf("building the workload called %d tools", calls)
	}
}

// TestCardinalityCappedWithNote: a tool whose schema admits one argument
// set gets one, and a note, instead of failing the whole workload.
func TestCardinalityCappedWithNote(t *testing.T) {
	calls := 0
	c := annotatedServer(t, &calls)
	wl, err := workload.Build(context.Background(), c, workload.Spec{GenArgs: true, Cardinality: 16, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	for _, info := range wl.Tools() {
		switch info.Name {
		case "read_graph":
			if info.ArgSets != 1 || !strings.Contains(info.CardinalityNote, "only 1 distinct argument set(s); 16 asked for") {
				t.Fatalf("%+v", info)
			}
		default:
			if info.ArgSets != 16 || info.CardinalityNote != "" {
				t.Fatalf("%+v", info)
			}
		}
	}
	plan := wl.Plan(2)
	if len(plan) != 2 || len(plan[0].SampleArgs) != 2 || len(plan[1].SampleArgs) != 1 || string(plan[1].SampleArgs[0]) != "{}" {
		t.Fatalf("plan %+v", plan)
	}
}

// TestEmptySelectionSaysWhy: a server with nothing read-only, or globs
// that match nothing, give a *SelectionError whose counts say why.
func TestEmptySelectionSaysWhy(t *testing.T) {
	calls := 0
	c := annotatedServer(t, &calls)
	var sel *workload.SelectionError
	_, err := workload.Build(context.Background(), c, workload.Spec{GenArgs: true, Cardinality: 1, Select: workload.Selection{Include: []string{"*_entity", "mystery"}}})
	if !errors.As(err, &sel) || sel.Left[workload.Additive] != 1 || sel.Left[workload.Destructive] != 2 || sel.Unannotated != 1 || sel.Unmatched != 2 {
		t.Fatalf("%+v: %v", sel, err)
	}
	if want := "none of the server's 5 tools may be called unasked: not one is annotated readOnlyHint: true; 1 may write (destructiveHint: false); 2 may destroy data (1 of them carry no annotations, which the spec reads as destructive); the tool globs leave out 2"; err.Error() != want {
		t.Fatalf("%v", err)
	}
	_, err = workload.Build(context.Background(), c, workload.Spec{GenArgs: true, Cardinality: 1, Select: workload.Selection{Include: []string{"nothing*"}}})
	if !errors.As(err, &sel) || err.Error() != "none of the server's 5 tools matches the tool globs" {
		t.Fatalf("%v", err)
	}
}

// TestNamedToolIsConsent: a tool the user names is called whatever its
// annotations say, with a warning when they say (or leave the spec to
// presume) destructive; a name the server does not list fails before any
// call, listing the closest names first.
func TestNamedToolIsConsent(t *testing.T) {
	calls := 0
	c := annotatedServer(t, &calls)
	for tool, warn := range map[string]string{
		"delete_entity": `tool "delete_entity" is annotated as destructive; calling it because it was named`,
		"mystery":       `tool "mystery" has no annotations, so the MCP spec presumes it destructive; calling it because it was named`,
		"create_entity": "",
		"read_file":     "",
	} {
		wl, err := workload.Build(context.Background(), c, workload.Spec{GenArgs: true, Tool: tool, Cardinality: 2})
		if err != nil {
			t.Fatal(err)
		}
		if got := strings.Join(wl.Warnings(), "|"); got != warn || toolNames(wl) != tool || !wl.Tools()[0].Named {
			t.Errorf("%s: warnings %q, tools %s", tool, got, toolNames(wl))
		}
	}
	var unknown *workload.UnknownToolError
	_, err := workload.Build(context.Background(), c, workload.Spec{Method: "tools/call", Tool: "reed_file", Args: json.RawMessage(`{}`)})
	if !errors.As(err, &unknown) || unknown.Listed[0] != "read_file" || len(unknown.Listed) != 5 ||
		!strings.HasPrefix(err.Error(), `the server lists no tool "reed_file"; it lists (closest first) read_file, `) {
		t.Fatalf("%v", err)
	}
	if calls != 0 {
		t.Fatalf("building the workload called %d tools", calls)
	}
}

// TestMixEntryPicksTools: a mix entry with generated arguments and no tool
// calls the selected tools, which share its weight.
func TestMixEntryPicksTools(t *testing.T) {
	calls := 0
	c := annotatedServer(t, &calls)
	mix, err := workload.ParseMix([]byte(`[{"method":"tools/call","gen_args":true,"weight":3},{"method":"tools/call","tool":"delete_entity","args":{"q":"x"},"weight":1}]`))
	if err != nil {
		t.Fatal(err)
	}
	wl, err := workload.Build(context.Background(), c, workload.Spec{Mix: mix, Cardinality: 2, Select: workload.Selection{AllowWrites: true}})
	if err != nil {
		t.Fatal(err)
	}
	var weights []float64
	for _, op := range wl.Ops {
		weights = append(weights, op.Weight)
	}
	if toolNames(wl) != "create_entity,read_file,read_graph,delete_entity" || !slices.Equal(weights, []float64{1, 1, 1, 1}) || len(wl.Warnings()) != 1 {
		t.Fatalf("%s %v %v", toolNames(wl), weights, wl.Warnings())
	}
}

func TestSelectionSpecErrors(t *testing.T) {
	var glob *workload.GlobError
	if err := (workload.Spec{GenArgs: true, Cardinality: 1, Select: workload.Selection{Include: []string{"[a-"}}}).Check(); !errors.As(err, &glob) || glob.Glob != "[a-" {
		t.Fatalf("bad glob: %v", err)
	}
	if err := (workload.Spec{GenArgs: true, Tool: "x", Cardinality: 1, Select: workload.Selection{Exclude: []string{"a*"}}}).Check(); !errors.Is(err, workload.ErrGlobsUnused) {
		t.Fatalf("globs with a named tool: %v", err)
	}
	if err := (workload.Spec{GenArgs: true, Tool: "x", Cardinality: 1, Select: workload.Selection{AllowDestructive: true}}).Check(); err != nil {
		t.Fatalf("an allowance with a named tool is harmless: %v", err)
	}
}
