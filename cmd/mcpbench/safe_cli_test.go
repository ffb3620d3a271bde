package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpbench/mcpbench/target"
)

// toolCalls is how many tools/call requests the reference server has
// answered.
func toolCalls(t *testing.T, srv *target.Running) int64 {
	t.Helper()
	h, err := target.FetchHealth(srv.HealthURL())
	if err != nil {
		t.Fatal(err)
	}
	return h.RequestsByMethod["tools/call"]
}

// TestUnknownToolStopsBeforeLoad: a --tool the server does not list exits
// 2 at once, in one line listing the tools it does, closest first, and the
// server gets no tools/call.
func TestUnknownToolStopsBeforeLoad(t *testing.T) {
	srv := startTarget(t, target.Config{Tools: 3})
	for _, args := range [][]string{
		{"--method", "tools/call", "--tool", "tool_01", "--args", "{}"},
		{"--gen-args", "--tool", "tool_01"},
	} {
		r := runCLI(t, nil, append([]string{"run", "--url", srv.MCPURL(), "-n", "100"}, args...)...)
		if r.code != 2 {
			t.Fatalf("%v: exit %d: %s", args, r.code, r.stderr)
		}
		oneCleanLine(t, r)
		want := `mcpbench run: the server lists no tool "tool_01"; it lists (closest first) tool_001, tool_000, tool_002, `
		if !strings.HasPrefix(r.stderr, want) || !strings.Contains(r.stderr, "echo") || !strings.Contains(r.stderr, "fail") {
			t.Fatalf("%v: %s", args, r.stderr)
		}
	}
	if n := toolCalls(t, srv); n != 0 {
		t.Fatalf("the server got %d tools/call", n)
	}
}

// TestUnauthorizedExits3WithHint: a server answering 401 is not "not an
// MCP server": exit 3, one line naming the ways to send credentials.
func TestUnauthorizedExits3WithHint(t *testing.T) {
	for _, status := range []int{http.StatusUnauthorized, http.StatusForbidden} {
		ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			io.Copy(io.Discard, r.Body)
			w.Header().Set("WWW-Authenticate", `Bearer realm="mcp"`)
			http.Error(w, "no", status)
		}))
		for _, cmd := range [][]string{{"run", "-n", "5"}, {"probe", "--bench-large-total", "0"}, {"sweep", "--concurrency-values", "1"}} {
			r := runCLI(t, []string{"MCPBENCH_TOKEN=tok-abc-123"}, append(cmd, "--url", ts.URL+"/mcp")...)
			if r.code != 3 {
				t.Fatalf("%s, HTTP %d: exit %d: %s", cmd[0], status, r.code, r.stderr)
			}
			oneCleanLine(t, r)
			for _, want := range []string{fmt.Sprintf("HTTP %d", status), "-H 'Authorization: Bearer …'", "MCPBENCH_TOKEN", "--secret-header"} {
				if !strings.Contains(r.stderr, want) {
					t.Fatalf("%s, HTTP %d: %q lacks %q", cmd[0], status, r.stderr, want)
				}
			}
			if strings.Contains(r.stderr, "did not answer as an MCP server") || strings.Contains(r.stderr, "tok-abc-123") {
				t.Fatalf("%s: %s", cmd[0], r.stderr)
			}
		}
		ts.Close()
	}
}

// TestProbeOverStdio: probe takes a stdio server's command after --, as
// run does.
func TestProbeOverStdio(t *testing.T) {
	out := filepath.Join(t.TempDir(), "probe.json")
	r := runCLI(t, nil, "probe", "--transport", "stdio", "--bench-small-total", "20", "--bench-large-total", "0",
		"--sequential-samples", "2", "--sequential-sleep-ms", "0", "--json-out", out, "--", binary, "serve", "--stdio", "--tools", "4")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	p := readProbe(t, out)
	if p.ToolsList.ToolCount != 6 || p.Benchmarks.Small == nil || p.Benchmarks.Small.Requests != 20 || p.Benchmarks.Small.Errors != 0 ||
		p.ServerInfo.Name != target.DefaultName || !strings.HasPrefix(p.Target.URL, "stdio:") {
		t.Fatalf("%+v", p)
	}
}

// unannotatedServer is an MCP server whose tools carry no annotations: by
// the spec's defaults, every one may be destructive.
func unannotatedServer(t *testing.T) string {
	t.Helper()
	srv := sdk.NewServer(&sdk.Implementation{Name: "bare", Version: "1"}, nil)
	for _, name := range []string{"alpha", "beta"} {
		srv.AddTool(&sdk.Tool{Name: name, InputSchema: map[string]any{"type": "object"}}, func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			t.Errorf("%s was called", name)
			return &sdk.CallToolResult{}, nil
		})
	}
	ts := httptest.NewServer(sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return srv }, &sdk.StreamableHTTPOptions{JSONResponse: true}))
	t.Cleanup(ts.Close)
	return ts.URL + "/mcp"
}

// TestUnannotatedServerRefused: --gen-args against a server whose tools
// say nothing exits 2 in one line saying why and which flag calls them,
// and calls nothing.
func TestUnannotatedServerRefused(t *testing.T) {
	url := unannotatedServer(t)
	for _, cmd := range [][]string{{"run", "-n", "10"}, {"sweep", "--concurrency-values", "1"}, {"run", "--dry-run"}} {
		r := runCLI(t, nil, append(cmd, "--url", url, "--gen-args")...)
		if r.code != 2 {
			t.Fatalf("%v: exit %d: %s", cmd, r.code, r.stderr)
		}
		oneCleanLine(t, r)
		t.Logf("%v: exit 2: %s", cmd, r.stderr)
		for _, want := range []string{"none of the server's 2 tools may be called unasked", "2 of them carry no annotations", "--allow-destructive"} {
			if !strings.Contains(r.stderr, want) {
				t.Fatalf("%v: %q lacks %q", cmd, r.stderr, want)
			}
		}
	}
}

// TestStdioErrorsNameTheCommand: a stdio server that fails is named by its
// command, not by an empty URL.
func TestStdioErrorsNameTheCommand(t *testing.T) {
	r := runCLI(t, nil, "run", "--transport", "stdio", "-n", "5", "--", "sh", "-c", "echo broken >&2; exit 3")
	if r.code != 3 || !strings.HasPrefix(r.stderr, "mcpbench run: stdio: sh -c echo broken >&2; exit 3: ") {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
}

// TestNamedDestructiveToolWarns: naming a tool is consent, but a
// destructive one gets a warning line; a normal run names its tools on
// stderr before starting, and the report lists them with annotations.
func TestNamedDestructiveToolWarns(t *testing.T) {
	url := unannotatedServer(t)
	r := runCLI(t, nil, "run", "--url", url, "--tool", "alpha", "--gen-args", "--dry-run")
	if r.code != 0 || !strings.Contains(r.stdout, `WARNING   tool "alpha" has no annotations, so the MCP spec presumes it destructive`) {
		t.Fatalf("exit %d: %s\n%s", r.code, r.stderr, r.stdout)
	}
	srv := startTarget(t, target.Config{Tools: 2})
	out := filepath.Join(t.TempDir(), "run.json")
	r = runCLI(t, nil, "run", "--url", srv.MCPURL(), "--gen-args", "--tools", "tool_*,echo", "--exclude-tools", "tool_001", "-n", "30", "--json-out", out)
	if r.code != 0 || r.stderr != "mcpbench run: calling 2 tool(s): echo (read-only), tool_000 (read-only)\n" {
		t.Fatalf("exit %d: %q", r.code, r.stderr)
	}
	b, _ := os.ReadFile(out)
	var rep struct {
		Workload struct {
			Tools []struct {
				Name        string          `json:"name"`
				Effect      string          `json:"effect"`
				Annotations map[string]bool `json:"annotations"`
				ArgSets     int             `json:"arg_sets"`
			} `json:"tools"`
		} `json:"workload"`
	}
	if err := json.Unmarshal(b, &rep); err != nil || len(rep.Workload.Tools) != 2 || !rep.Workload.Tools[0].Annotations["readOnlyHint"] || rep.Workload.Tools[1].ArgSets != 16 {
		t.Fatalf("%v: %s", err, b)
	}
}

// TestDryRunMix: a mix's plan shows each entry's tools with their weights,
// the tools the mix leaves to the selection among them, and nothing is
// called.
func TestDryRunMix(t *testing.T) {
	srv := startTarget(t, target.Config{Tools: 2})
	dir := t.TempDir()
	mix, out := filepath.Join(dir, "mix.json"), filepath.Join(dir, "plan.json")
	os.WriteFile(mix, []byte(`[{"method":"tools/call","gen_args":true,"weight":2},{"method":"tools/call","tool":"echo","args":{"message":"hi"},"weight":1},{"method":"tools/list","weight":1}]`), 0o644)
	r := runCLI(t, nil, "run", "--url", srv.MCPURL(), "--mix", mix, "--dry-run", "--exclude-tools", "fail", "-c", "2", "-d", "5s", "--json-out", out)
	if r.code != 0 || r.stderr != "" {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	var plan struct {
		Plan struct {
			Calls []struct {
				Name       string            `json:"name"`
				Weight     float64           `json:"weight"`
				Named      bool              `json:"named"`
				SampleArgs []json.RawMessage `json:"sample_args"`
			} `json:"calls"`
			Load struct {
				Concurrency []int   `json:"concurrency"`
				DurationS   float64 `json:"duration_s"`
			} `json:"load"`
		} `json:"plan"`
	}
	b, _ := os.ReadFile(out)
	if err := json.Unmarshal(b, &plan); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, c := range plan.Plan.Calls {
		got = append(got, fmt.Sprintf("%s/%g/%v/%d", c.Name, c.Weight, c.Named, len(c.SampleArgs)))
	}
	if strings.Join(got, " ") != "echo/0.6666666666666666/false/2 tool_000/0.6666666666666666/false/2 tool_001/0.6666666666666666/false/2 echo/1/true/1" ||
		plan.Plan.Load.DurationS != 5 || plan.Plan.Load.Concurrency[0] != 2 || !strings.Contains(r.stdout, "sends     tools/call echo, tools/call tool_000") {
		t.Fatalf("%v\n%s\n%s", got, b, r.stdout)
	}
	if n := toolCalls(t, srv); n != 0 {
		t.Fatalf("a dry run made %d tools/call", n)
	}
}

// TestDryRunScenario: a scenario file's dry run lists each call step with
// the tools it may call and sample arguments, and calls no tool.
func TestDryRunScenario(t *testing.T) {
	srv := startTarget(t, target.Config{Tools: 8})
	out := filepath.Join(t.TempDir(), "plan.json")
	r := runCLI(t, nil, "run", "--url", srv.MCPURL(), "--scenario", filepath.Join("..", "..", "docs", "examples", "coding-agent.yaml"),
		"--users", "2", "-d", "5s", "--dry-run", "--json-out", out)
	if r.code != 0 || r.stderr != "" {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	var plan struct {
		Plan struct {
			Calls []struct {
				Scenario, Step, Name string
				SampleArgs           []json.RawMessage `json:"sample_args"`
			} `json:"calls"`
			Load struct{ Unit string } `json:"load"`
		} `json:"plan"`
	}
	b, _ := os.ReadFile(out)
	if err := json.Unmarshal(b, &plan); err != nil {
		t.Fatal(err)
	}
	steps := map[string]bool{}
	for _, c := range plan.Plan.Calls {
		if c.Scenario == "" || c.Step == "" || c.Name == "" || len(c.SampleArgs) == 0 {
			t.Fatalf("a planned call without its step, tool or samples: %+v", c)
		}
		steps[c.Scenario+"/"+c.Step] = true
	}
	if !steps["fix-a-bug/search"] || !steps["explore/browse"] || plan.Plan.Load.Unit != "sessions" ||
		!strings.Contains(r.stdout, "load      closed loop, 2 users, 5s") {
		t.Fatalf("steps %v, load %q\n%s", steps, plan.Plan.Load.Unit, r.stdout)
	}
	if n := toolCalls(t, srv); n != 0 {
		t.Fatalf("a dry run made %d tools/call", n)
	}
}
