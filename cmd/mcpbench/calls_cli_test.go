package main

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/mcpbench/mcpbench/target"
)

type runJSON struct {
	Requests     int64            `json:"requests"`
	OK           int64            `json:"ok"`
	ErrorsByKind map[string]int64 `json:"errors_by_kind"`
	ByOperation  []struct {
		Method   string  `json:"method"`
		Tool     string  `json:"tool"`
		Requests int64   `json:"requests"`
		P95MS    float64 `json:"p95_ms"`
	} `json:"by_operation"`
}

func readRun(t *testing.T, path string) runJSON {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var r runJSON
	if err := json.Unmarshal(b, &r); err != nil {
		t.Fatal(err)
	}
	return r
}

// TestSchemaViolationsMatchInjected: every structuredContent the server
// broke on purpose is caught as a schema_violation, and nothing else is.
func TestSchemaViolationsMatchInjected(t *testing.T) {
	srv := startTarget(t, target.Config{Tools: 4, Fault: target.FaultBadStructuredContent, FaultRate: 0.1, Seed: 7})
	out := filepath.Join(t.TempDir(), "run.json")
	r := runCLI(t, nil, "run", "--url", srv.MCPURL(), "-c", "4", "-n", "1000", "--gen-args", "--arg-cardinality", "5",
		"--allow-request-errors", "--json-out", out, "-q")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	rep := readRun(t, out)
	injected := srv.Health().FaultsInjected[target.FaultBadStructuredContent]
	got := rep.ErrorsByKind["schema_violation"]
	t.Logf("%d requests, %d schema violations found, %d injected", rep.Requests, got, injected)
	if injected == 0 || got != injected {
		t.Fatalf("schema_violation %d, server injected %d", got, injected)
	}
	// The bundled "fail" tool always answers isError: those are its
	// tool_errors, and nothing else may fail.
	var failCalls int64
	for _, op := range rep.ByOperation {
		if op.Tool == target.ToolFail {
			failCalls = op.Requests
		}
	}
	if rep.ErrorsByKind["tool_error"] != failCalls || rep.OK+got+failCalls != rep.Requests {
		t.Fatalf("errors %v beyond the %d calls of %q", rep.ErrorsByKind, failCalls, target.ToolFail)
	}
}

// TestMixWeights: a 5:3:2 mix over 2,000 calls lands within 3 percentage
// points of its weights, with per-tool figures in the report.
func TestMixWeights(t *testing.T) {
	srv := startTarget(t, target.Config{Tools: 3})
	dir := t.TempDir()
	mix := filepath.Join(dir, "mix.json")
	os.WriteFile(mix, []byte(`[
		{"method":"tools/call","tool":"echo","args":{"message":"a"},"weight":5},
		{"method":"tools/call","tool":"tool_000","gen_args":true,"weight":3},
		{"method":"tools/list","weight":2}
	]`), 0o644)
	out := filepath.Join(dir, "run.json")
	r := runCLI(t, nil, "run", "--url", srv.MCPURL(), "-c", "4", "-n", "2000", "--mix", mix, "--arg-cardinality", "7", "--json-out", out, "-q")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	rep := readRun(t, out)
	if rep.Requests != 2000 || rep.OK != 2000 || len(rep.ByOperation) != 3 {
		t.Fatalf("requests %d ok %d operations %d", rep.Requests, rep.OK, len(rep.ByOperation))
	}
	want := []float64{0.5, 0.3, 0.2}
	for i, op := range rep.ByOperation {
		share := float64(op.Requests) / 2000
		t.Logf("%s %s: %.1f%%, p95 %.2f ms", op.Method, op.Tool, 100*share, op.P95MS)
		if math.Abs(share-want[i]) > 0.03 || op.P95MS <= 0 {
			t.Errorf("%s %s: share %.3f (want %.1f ± 0.03), p95 %.2f", op.Method, op.Tool, share, want[i], op.P95MS)
		}
	}
}

func TestCallFlagErrors(t *testing.T) {
	srv := startTarget(t, target.Config{Tools: 2})
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.json")
	os.WriteFile(bad, []byte(`[{"method":"tools/call","weight":1}]`), 0o644)
	for _, c := range []struct {
		args []string
		code int
	}{
		{[]string{"--mix", bad}, 2},
		{[]string{"--mix", filepath.Join(dir, "missing.json")}, 2},
		{[]string{"--gen-args", "--tool", "nope"}, 2},
		{[]string{"--gen-args", "--arg-cardinality", "0"}, 2},
		{[]string{"--method", "tools/call", "--tool", "echo", "--args", `{"message":"x"}`, "--inject-args", "[1]"}, 2},
		// An enum-only tool cannot give 10,000 distinct argument sets.
		{[]string{"--gen-args", "--tool", "echo", "--arg-cardinality", "7", "-n", "10"}, 0},
	} {
		r := runCLI(t, nil, append([]string{"run", "--url", srv.MCPURL(), "-q", "-n", "5"}, c.args...)...)
		if r.code != c.code {
			t.Errorf("%v: exit %d, want %d: %s", c.args, r.code, c.code, r.stderr)
		} else if c.code == 2 {
			oneCleanLine(t, r)
		}
	}
}
