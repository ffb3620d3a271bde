package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpbench/mcpbench/abstat"
	"github.com/mcpbench/mcpbench/results"
)

// abArgs are the arguments of a short experiment between two bundled
// servers started by the command, A with serve's args a and B with b.
// One worker calls echo 60 times a measurement (a count, not a duration,
// so that a stalled machine delays the test but leaves every measurement
// its requests); the rounds are few and short: these tests check
// the machinery, not the machine. Six rounds can alarm only at a level
// above 2/2^6 (the signed-rank test's smallest p-value), so alpha is
// 0.1: 0.067 for each of the three gated metrics.
func abArgs(dir string, a, b string, extra ...string) []string {
	serve := binary + " serve --stateless --addr 127.0.0.1:{port} "
	return append([]string{"ab", "--a-cmd", serve + a, "--b-cmd", serve + b,
		"--method", "tools/call", "--tool", "echo", "--args", `{"message":"ab"}`, "-c", "1", "-n", "60",
		"--max-rounds", "6", "--alpha", "0.1", "--seed", "47", "--timeout", "10s",
		"--json-out", filepath.Join(dir, "ab.json"), "--md-out", filepath.Join(dir, "ab.md"),
		"--html-out", filepath.Join(dir, "ab.html"), "--junit-out", filepath.Join(dir, "ab.xml")}, extra...)
}

func readAB(t *testing.T, dir string) *results.ABReport {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, "ab.json"))
	if err == nil {
		var r *results.ABReport
		if r, err = results.ReadABReport(bytes.NewReader(b)); err == nil {
			return r
		}
	}
	t.Fatal(err)
	return nil
}

// TestABMachinery runs a short A/B end to end: B burns 2 ms of CPU per
// call, which no noise hides. It checks the exit code, the rounds (each
// with an order, both sides measured, the server's CPU read from /proc),
// the verdicts and every report file; then an A/A of two servers that
// answer in 2 ms, whose minimum effect (90%) no noise reaches: no change
// or undecided (a shared machine moves 60 calls' p50 by half), never a
// regression, exit 0.
func TestABMachinery(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	res := runCLI(t, nil, abArgs(dir, "", "--burn 2ms")...)
	if res.code != exitGate {
		t.Fatalf("A/B with --burn 2ms: exit %d, want 1\n%s", res.code, res.stderr)
	}
	r := readAB(t, dir)
	if len(r.Rounds) != 6 || r.Seed != 47 || r.AlphaPerMetric || r.Settings.AlarmAlpha != 0.2/3 || !r.GateFailed {
		t.Fatalf("rounds %d, seed %d, alpha per metric %v, alarm alpha %v, gate failed %v", len(r.Rounds), r.Seed, r.AlphaPerMetric, r.Settings.AlarmAlpha, r.GateFailed)
	}
	orders := map[string]int{}
	for i, rd := range r.Rounds {
		orders[string(rd.Order[0])+string(rd.Order[1])]++
		if rd.Index != i+1 || rd.A.Requests == 0 || rd.B.Requests == 0 || rd.A.ServerCPUPerRequest == nil || rd.B.ServerCPUPerRequest == nil {
			t.Fatalf("round %d: %+v", i+1, rd)
		}
	}
	if orders["AB"]+orders["BA"] != 6 {
		t.Errorf("orders %v", orders)
	}
	if v, ok := r.Verdict(abstat.ServerCPUPerRequest); !ok || v.Verdict != abstat.Regression || v.Change < 0.5 || v.Low > v.Change || v.High < v.Change {
		t.Errorf("server CPU per request: %+v", v)
	}
	for _, name := range []string{"ab.md", "ab.html", "ab.xml", "ab-a-server.log", "ab-b-server.log"} {
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil || len(b) == 0 {
			t.Fatalf("%s: %v (%d bytes)", name, err, len(b))
		}
		want := map[string]string{"ab.md": "| server_cpu_per_request | regression", "ab.html": "B/A by round",
			"ab.xml": `<failure message="server_cpu_per_request regression"`, "ab-b-server.log": "burn 2ms"}[name]
		if !strings.Contains(string(b), want) {
			t.Errorf("%s lacks %q", name, want)
		}
	}

	// The A/A's servers answer in 2 ms: 60 calls of the bare server last
	// about 10 ms, and a run starved for tens of ms by make test's timed
	// lane once made B's throughput 3.4 times A's over six rounds (an
	// "improvement" past the 90%); 120 ms of sleeps dilute such stalls.
	dir = t.TempDir()
	res = runCLI(t, nil, abArgs(dir, "--service-time 2ms", "--service-time 2ms", "--min-effect", "90%")...)
	if res.code != exitOK {
		t.Fatalf("A/A: exit %d, want 0\n%s", res.code, res.stderr)
	}
	r = readAB(t, dir)
	if len(r.Rounds) != 6 || r.GateFailed {
		t.Errorf("A/A: stopped %s after %d rounds, gate failed %v", r.Stopped, len(r.Rounds), r.GateFailed)
	}
	for _, v := range r.Verdicts {
		if r.Gated(v.Metric) && v.Verdict != abstat.NoChange && v.Verdict != abstat.Inconclusive {
			t.Errorf("A/A %s: %+v", v.Metric, v)
		}
	}
}

// TestABTurnsAndRestarts: measured by time, A and B take turns within
// each round (the report gives the turn's length, and each side's time is
// its turns': half the round) and the servers start afresh before each
// round after the first (their logs hold a start per round); B's 2 ms of
// CPU per call is still found.
func TestABTurnsAndRestarts(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	args := abArgs(dir, "", "--burn 2ms", "-d", "400ms", "--slice", "50ms")
	for i, a := range args {
		if a == "-n" { // by time, not by count
			args = append(args[:i:i], args[i+2:]...)
			break
		}
	}
	res := runCLI(t, nil, args...)
	if res.code != exitGate {
		t.Fatalf("A/B with --burn 2ms in turns: exit %d, want 1\n%s", res.code, res.stderr)
	}
	r := readAB(t, dir)
	if r.Settings.SliceSeconds != 0.05 || !r.Settings.Restarted || len(r.Rounds) != 6 {
		t.Fatalf("slice %v s, restarted %v, %d rounds", r.Settings.SliceSeconds, r.Settings.Restarted, len(r.Rounds))
	}
	for _, rd := range r.Rounds {
		if rd.A.Seconds != 0.4 || rd.B.Seconds != 0.4 || rd.A.Requests == 0 || rd.B.Requests == 0 || rd.B.ServerCPUPerRequest == nil {
			t.Fatalf("round %d: A %+v, B %+v: want 0.4 s of turns each", rd.Index, rd.A, rd.B)
		}
	}
	if v, ok := r.Verdict(abstat.ServerCPUPerRequest); !ok || v.Verdict != abstat.Regression {
		t.Errorf("server CPU per request: %+v", v)
	}
	for _, side := range []string{"a", "b"} {
		b, err := os.ReadFile(filepath.Join(dir, "ab-"+side+"-server.log"))
		if n := strings.Count(string(b), "mcpbench serve: listening on"); err != nil || n != 6 {
			t.Errorf("%s's server log: %v, %d starts, want one per round (6)", side, err, n)
		}
	}
}

// TestABMistakes: each bad command line is one line on stderr and exit 2,
// before any server starts; a server that cannot start is exit 3.
func TestABMistakes(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		args []string
		want string
		code int
	}{
		{[]string{"--b-url", "http://127.0.0.1:1/mcp"}, "side A needs --a-url or --a-cmd", exitUsage},
		{[]string{"--a-url", "http://127.0.0.1:1/mcp", "--a-cmd", "x {port}", "--b-url", "http://127.0.0.1:1/mcp"}, "give --a-url or --a-cmd, not both", exitUsage},
		{[]string{"--a-cmd", "my-server", "--b-url", "http://127.0.0.1:1/mcp"}, "--a-cmd needs a {port}", exitUsage},
		{[]string{"--a-url", "127.0.0.1:1", "--b-url", "http://127.0.0.1:1/mcp"}, "--a-url \"127.0.0.1:1\" has no scheme", exitUsage},
		{[]string{"--a-url", "http://127.0.0.1:1/mcp", "--b-url", "http://127.0.0.1:1/mcp", "--min-effect", "200%"}, "--min-effect \"200%\"", exitUsage},
		{[]string{"--a-url", "http://127.0.0.1:1/mcp", "--b-url", "http://127.0.0.1:1/mcp", "--alpha", "0"}, "--alpha", exitUsage},
		{[]string{"--a-url", "http://127.0.0.1:1/mcp", "--b-url", "http://127.0.0.1:1/mcp", "--max-rounds", "1"}, "--max-rounds", exitUsage},
		{[]string{"--a-url", "http://127.0.0.1:1/mcp", "--b-url", "http://127.0.0.1:1/mcp", "--max-rounds", "7"}, "--max-rounds 7: too few to find a regression at --alpha 0.01 over 2 gated metrics", exitUsage},
		{[]string{"--a-url", "http://127.0.0.1:1/mcp", "--b-url", "http://127.0.0.1:1/mcp", "--no-change-alpha", "0.6"}, "--no-change-alpha", exitUsage},
		{[]string{"--a-url", "http://127.0.0.1:1/mcp", "--b-url", "http://127.0.0.1:1/mcp", "-c", "0"}, "concurrency", exitUsage},
		{[]string{"--a-url", "http://127.0.0.1:1/mcp", "--b-url", "http://127.0.0.1:1/mcp", "-d", "1s", "--slice", "2s"}, "--slice 2s is longer than -d 1s", exitUsage},
		{[]string{"--a-url", "http://127.0.0.1:1/mcp", "--b-url", "http://127.0.0.1:1/mcp", "-n", "50", "--slice", "100ms"}, "--slice with -n", exitUsage},
		{[]string{"--a-url", "http://127.0.0.1:1/mcp", "--b-url", "http://127.0.0.1:1/mcp", "--duet", "--slice", "100ms"}, "--slice with --duet", exitUsage},
		{[]string{"--a-cmd", "exit 3 # {port}", "--b-url", "http://127.0.0.1:1/mcp", "-q"}, "--a-cmd: server exited before it was ready", exitUnreachable},
	} {
		res := runCLI(t, nil, append([]string{"ab"}, c.args...)...)
		if res.code != c.code || !strings.Contains(res.stderr, c.want) || strings.Count(strings.TrimSpace(res.stderr), "\n") > 0 {
			t.Errorf("ab %s: exit %d, stderr %q; want %d and %q", strings.Join(c.args, " "), res.code, res.stderr, c.code, c.want)
		}
	}
}

// TestABReportFieldsAreTheContract: the JSON report's keys the contract
// names.
func TestABReportFieldsAreTheContract(t *testing.T) {
	t.Parallel()
	b, err := json.Marshal(results.ABReport{Schema: results.SchemaAB})
	if err != nil {
		t.Fatal(err)
	}
	for _, key := range []string{"schema", "a", "b", "workload", "alpha_per_metric", "seed", "settings", "rounds", "verdicts", "stopped", "elapsed_s", "gate_failed"} {
		if !strings.Contains(string(b), `"`+key+`":`) {
			t.Errorf("no %q in %s", key, b)
		}
	}
}
