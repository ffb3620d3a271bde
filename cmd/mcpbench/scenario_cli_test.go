package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/mcpbench/mcpbench/results"
	"github.com/mcpbench/mcpbench/target"
)

// TestScenarioRunCLI: run --scenario with users, then with a session rate
// and a bound on sessions; the JSON carries the steps and the sessions,
// merge of the two shards' reports adds up per step, and the example
// scenario in docs runs as it is.
func TestScenarioRunCLI(t *testing.T) {
	t.Parallel() // counts, files and exit codes, no figure a busy machine changes: with the other parallel tests
	srv := startTarget(t, target.Config{Tools: 4})
	dir := t.TempDir()
	file := filepath.Join(dir, "s.yaml")
	os.WriteFile(file, []byte(`
scenarios:
  - name: s
    steps:
      - list
      - think: 5ms
      - parallel:
          - name: a
            call: {tool: echo, args: {message: a}}
          - name: b
            call: {tool: echo, args: {message: b}}
`), 0o600)
	read := func(path string) *results.RunReport {
		f, err := os.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		r, err := results.ReadRunReport(f)
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	var shards []string
	loads := [][]string{
		{"--users", "2", "--max-sessions", "20", "--shard", "0/2"},
		{"--users", "2", "--max-sessions", "20", "--shard", "1/2"},
		{"--session-rate", "50", "--max-sessions", "10"},
	}
	// The runs go side by side: merge refuses shards that started far
	// apart, and one after another, starved in the untimed lane, the
	// second shard once started 7.5 s after the first.
	ran := make([]cliResult, len(loads))
	var wg sync.WaitGroup
	for i, load := range loads {
		out := filepath.Join(dir, "run"+string(rune('0'+i))+".json")
		args := append([]string{"run", "--url", srv.MCPURL(), "--scenario", file, "--json-out", out, "-q"}, load...)
		wg.Add(1)
		go func() { defer wg.Done(); ran[i] = runCLI(t, nil, args...) }()
	}
	wg.Wait()
	for i, load := range loads {
		out := filepath.Join(dir, "run"+string(rune('0'+i))+".json")
		if r := ran[i]; r.code != 0 {
			t.Fatalf("%v: exit %d: %s", load, r.code, r.stderr)
		}
		rep := read(out)
		s := rep.Sessions
		// Each shard takes half of --max-sessions.
		if s == nil || s.Completed != 10 || rep.Workload.Scenario != "s.yaml" || len(rep.ByOperation) != 5 || rep.ByOperation[2].Step != "a" {
			t.Fatalf("%v: sessions %+v, workload %+v, steps %+v", load, s, rep.Workload, rep.ByOperation)
		}
		if (i == 2) != (s.StartLagMS != nil) {
			t.Fatalf("%v: start lag %+v", load, s.StartLagMS)
		}
		shards = append(shards, out)
	}
	merged := filepath.Join(dir, "merged.json")
	if r := runCLI(t, nil, "merge", "--json-out", merged, "-q", shards[0], shards[1]); r.code != 0 {
		t.Fatalf("merge: exit %d: %s", r.code, r.stderr)
	}
	m := read(merged)
	if m.Sessions.Completed != 20 || m.ByOperation[3].Requests != 20 || m.ByOperation[3].Histogram == "" || len(m.Merged.Notes) != 0 {
		t.Fatalf("merged: sessions %+v, steps %+v, notes %q", m.Sessions, m.ByOperation, m.Merged.Notes)
	}
	if r := runCLI(t, nil, "merge", "--json-out", merged, "-q", shards[0], shards[2]); r.code != 2 {
		t.Fatalf("merging a closed with an open loop: exit %d: %s", r.code, r.stderr)
	}

	example := filepath.Join("..", "..", "docs", "examples", "coding-agent.yaml")
	out := filepath.Join(dir, "agent.json")
	if r := runCLI(t, nil, "run", "--url", srv.MCPURL(), "--scenario", example, "--users", "2", "--max-sessions", "2", "--json-out", out, "-q"); r.code != 0 {
		t.Fatalf("example: exit %d: %s", r.code, r.stderr)
	}
	if rep := read(out); rep.Sessions.Completed != 2 || rep.ErrorsByKind["expect_failed"] != 0 {
		t.Fatalf("example: %+v %v", rep.Sessions, rep.ErrorExamples)
	}
	var raw map[string]json.RawMessage
	b, _ := os.ReadFile(out)
	json.Unmarshal(b, &raw)
	if _, ok := raw["sessions"]; !ok {
		t.Fatal("no sessions in the report")
	}
}

// TestScenarioFlagErrors: flags that do not go with --scenario, or only
// with it, and a bad scenario file are one line and exit 2.
func TestScenarioFlagErrors(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "s.yaml")
	os.WriteFile(file, []byte("scenarios: [{name: s, steps: [ping]}]\n"), 0o600)
	bad := filepath.Join(dir, "bad.yaml")
	os.WriteFile(bad, []byte("scenarios: [{name: s, steps: [{think: soon}]}]\n"), 0o600)
	url := "http://127.0.0.1:1/mcp"
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"run", "--url", url, "--users", "2"}, "--users goes with --scenario"},
		{[]string{"run", "--url", url, "--scenario", file, "-c", "2"}, "--concurrency does not go with --scenario"},
		{[]string{"run", "--url", url, "--scenario", file, "--tool", "echo"}, "--tool does not go with --scenario"},
		{[]string{"run", "--url", url, "--scenario", file, "--users", "2", "--session-rate", "3"}, "give --users (closed loop) or --session-rate (open loop), not both"},
		{[]string{"run", "--url", url, "--scenario", file, "--session", "shared"}, "--session must be per-worker"},
		{[]string{"run", "--url", url, "--scenario", bad}, `line 1: "soon" is not a duration`},
		{[]string{"run", "--url", url, "--scenario", filepath.Join(dir, "none.yaml")}, "no such file"},
		{[]string{"run", "--url", url, "--scenario", file, "--users", "1", "--shard", "0/2"}, "--users 1 cannot be split over 2 shards"},
		{[]string{"sweep", "--url", url, "--scenario", file}, "give --users-values"},
		{[]string{"sweep", "--url", url, "--scenario", file, "--concurrency-values", "1,2"}, "--concurrency-values does not go with --scenario"},
	} {
		r := runCLI(t, nil, c.args...)
		if r.code != 2 || !strings.Contains(r.stderr, c.want) {
			t.Errorf("%v: exit %d, stderr %q, want %q", c.args, r.code, r.stderr, c.want)
			continue
		}
		oneCleanLine(t, r)
	}
}

// TestScenarioStepErrorsCLI: a scenario step the server's tools make
// impossible is exit 2 with the step and the way out.
func TestScenarioStepErrorsCLI(t *testing.T) {
	srv := startTarget(t, target.Config{Tools: 1})
	dir := t.TempDir()
	for body, want := range map[string]string{
		"scenarios: [{name: s, steps: [{call: {tool: nope}}]}]\n":                           `--scenario: scenario "s", step 1 (line 1): the server lists no tool "nope"`,
		"scenarios: [{name: s, steps: [{call: {gen_args: true}}]}]\n":                       "", // the bundled tools are read-only: allowed
		"scenarios: [{name: s, steps: [{call: {gen_args: true, cardinality: 1}}, ping]}]\n": "",
	} {
		file := filepath.Join(dir, "s.yaml")
		os.WriteFile(file, []byte(body), 0o600)
		r := runCLI(t, nil, "run", "--url", srv.MCPURL(), "--scenario", file, "--max-sessions", "2", "--tools", "tool_*", "-q", "--allow-request-errors")
		if want == "" {
			if r.code != 0 {
				t.Errorf("%s: exit %d: %s", body, r.code, r.stderr)
			}
			continue
		}
		if r.code != 2 || !strings.Contains(r.stderr, want) {
			t.Errorf("%s: exit %d, stderr %q, want %q", body, r.code, r.stderr, want)
		}
	}
}
