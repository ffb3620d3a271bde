package workload_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/mcpbench/mcpbench/mcp"
	"github.com/mcpbench/mcpbench/target"
	"github.com/mcpbench/mcpbench/workload"
)

func TestCheck(t *testing.T) {
	var method *workload.MethodError
	for _, c := range []struct {
		name string
		spec workload.Spec
		ok   func(error) bool
	}{
		{"list", workload.Spec{Method: "tools/list"}, func(err error) bool { return err == nil }},
		{"call", workload.Spec{Method: "tools/call", Tool: "echo"}, func(err error) bool { return err == nil }},
		{"tool without call", workload.Spec{Method: "ping", Tool: "echo"}, func(err error) bool { return errors.Is(err, workload.ErrToolWithoutCall) }},
		{"call without tool", workload.Spec{Method: "tools/call"}, func(err error) bool { return errors.Is(err, workload.ErrCallWithoutTool) }},
		{"unknown method", workload.Spec{Method: "nope"}, func(err error) bool { return errors.As(err, &method) && method.Method == "nope" }},
		{"generated, no cardinality", workload.Spec{GenArgs: true}, func(err error) bool { return errors.Is(err, workload.ErrCardinality) }},
		{"mix replaces the method", workload.Spec{Method: "nope", Mix: []workload.MixEntry{{Method: "ping"}}}, func(err error) bool { return err == nil }},
		{"mix entry generated, no cardinality", workload.Spec{Mix: []workload.MixEntry{{Method: "tools/call", Tool: "echo", GenArgs: true}}},
			func(err error) bool { return errors.Is(err, workload.ErrCardinality) }},
	} {
		if err := c.spec.Check(); !c.ok(err) {
			t.Errorf("%s: %v", c.name, err)
		}
	}
}

func TestParseMix(t *testing.T) {
	const mixExample = `[{"method":"tools/list","weight":3},{"method":"tools/call","tool":"echo","args":{"message":"hi"},"weight":1}]`
	for in, want := range map[string]string{
		`[]`:                                  "no operations",
		`[{"method":"ping","weight":-1}]`:     "entry 1 (line 1) has a negative weight",
		`[{"method":"ping"},{"weight":1}]`:    "entry 2 (line 1) has no method",
		`[{"method":"tools/call"}]`:           "entry 1 (line 1) calls no tool (name one, or set gen_args to call the tools selected)",
		`[{"method":"ping","gen_args":true}]`: "entry 1 (line 1): tool, args and gen_args go with tools/call",
		`[{"method":"ping","bogus":1}]`:       `entry 1 (line 1): unknown field "bogus"`,
		`[{"method":"ping","weight":0}]`:      "every weight is 0, so nothing would be sent: give an entry a weight above 0 (one without a weight weighs 1)",
		`[{"method":"ping","weight":1e308}]`:  "entry 1 (line 1): weight 1e+308 is above 1e+09 (weights are relative: scale them down)",
		`[{"method":"ping","weight":"2"}]`:    "entry 1 (line 1): weight: want a number, got a string",
		`{"method":"ping"}`:                   `line 1: want a list, got an object; a mix is a list of operations, e.g. [{"method":"tools/list","weight":3},{"method":"tools/call","tool":"echo","args":{"message":"hi"},"weight":1}]`,
		// Lines, as an editor shows them.
		"[\n  {\"method\": \"ping\"},\n  {\"method\": \"tools/call\", \"weight\": \"2\"}\n]": "entry 2 (line 3): weight: want a number, got a string",
		"[\n  {\"method\": \"ping\"},\n\n  {\"weight\": 1}\n]":                               "entry 2 (line 4) has no method",
		"[\n  {\"method\": \"ping\"}\n  {\"method\": \"ping\"}\n]":                           "line 3: not valid JSON: invalid character '{' after array element; a mix is a list of operations, e.g. " + mixExample,
	} {
		if _, err := workload.ParseMix([]byte(in)); err == nil || err.Error() != want {
			t.Errorf("%s: got %v, want %q", in, err, want)
		}
	}
	mix, err := workload.ParseMix([]byte(`[{"method":"tools/call","tool":"echo","args":{"message":"x"},"weight":2},{"method":"ping"}]`))
	if err != nil || len(mix) != 2 || mix[0].Weight != 2 || mix[1].Weight != 1 || string(mix[0].Args) != `{"message":"x"}` {
		t.Fatalf("%+v %v", mix, err)
	}
}

func dial(t *testing.T, cfg target.Config) *mcp.Client {
	t.Helper()
	ctx := context.Background()
	srv, err := target.Start(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	c, err := mcp.Dial(ctx, mcp.Options{URL: srv.MCPURL(), Timeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close(ctx) })
	return c
}

// TestFailByDesignOnlyWhenAsked: the bundled server's fail tool, read-only
// but an error by design, is left out of the tools generated arguments
// pick (the documented scenario failed its own gate on it), and called
// when --tools asks for it.
func TestFailByDesignOnlyWhenAsked(t *testing.T) {
	c := dial(t, target.Config{Tools: 1})
	for _, tc := range []struct {
		sel  workload.Selection
		want string
	}{
		{workload.Selection{}, "echo,tool_000"},
		{workload.Selection{AllowDestructive: true}, "echo,tool_000"},
		{workload.Selection{Include: []string{"fail", "echo"}}, "echo,fail"},
	} {
		wl, err := workload.Build(context.Background(), c, workload.Spec{GenArgs: true, Cardinality: 1, Seed: 1, Select: tc.sel})
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, op := range wl.Operations() {
			names = append(names, op.Tool)
		}
		if got := strings.Join(names, ","); got != tc.want {
			t.Errorf("selection %+v: tools %s, want %s", tc.sel, got, tc.want)
		}
	}
}

// TestBuildGeneratesOverEveryTool: generated arguments with no tool named
// call every listed tool, each with its own distinct argument sets, the
// injected field merged into each, and answers checked.
func TestBuildGeneratesOverEveryTool(t *testing.T) {
	c := dial(t, target.Config{Tools: 2})
	wl, err := workload.Build(context.Background(), c, workload.Spec{
		GenArgs: true, Cardinality: 3, Seed: 1, Inject: json.RawMessage(`{"trace":"t1"}`), Validate: true,
	})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, op := range wl.Operations() {
		names = append(names, op.Tool)
	}
	// The bundled fail tool errors by design: not called by chance.
	if got := strings.Join(names, ","); got != "echo,tool_000,tool_001" {
		t.Fatalf("tools %s", got)
	}
	for _, op := range wl.Ops {
		if len(op.ArgSets) != 3 {
			t.Fatalf("%s: %d argument sets", op.Request.Tool, len(op.ArgSets))
		}
		for _, a := range op.ArgSets {
			if !strings.Contains(string(a), `"trace":"t1"`) {
				t.Fatalf("%s: %s lacks the injected field", op.Request.Tool, a)
			}
		}
	}
	if wl.Validate == nil {
		t.Fatal("no validator for tools with an outputSchema")
	}
	if k := wl.Kinds(); len(k) != int(mcp.NumKinds) || k[mcp.KindSchemaViolation] != "schema_violation" {
		t.Fatalf("kinds %v", k)
	}
}

func TestBuildErrors(t *testing.T) {
	c := dial(t, target.Config{Tools: 1})
	var unknown *workload.UnknownToolError
	_, err := workload.Build(context.Background(), c, workload.Spec{GenArgs: true, Tool: "nope", Cardinality: 1})
	if !errors.As(err, &unknown) || unknown.Tool != "nope" {
		t.Fatalf("unknown tool: %v", err)
	}
	var inject *workload.InjectError
	_, err = workload.Build(context.Background(), c, workload.Spec{Method: "tools/call", Tool: "echo",
		Args: json.RawMessage(`[1]`), Inject: json.RawMessage(`{"message":"x"}`)})
	if !errors.As(err, &inject) {
		t.Fatalf("inject: %v", err)
	}
}
