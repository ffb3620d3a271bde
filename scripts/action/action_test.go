package action

import (
	"encoding/json"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

const install = "Install mcpbench"

// TestActionSteps runs action.yml's steps against the bundled server: a
// run with no baseline (outputs, summary, verdict pass, the server
// stopped), the same load against a planted faster baseline (the gate
// fails the step, verdict fail; with fail-on-gate false it only says so),
// a sweep gated on the baseline artifact of the base branch's last run
// (fetched by a stand-in gh) and a target that is not there (verdict
// error). The package is in make test's timed lane: the sweep's gate
// fails on any drop of the recommendation, which needs the second worker
// to add a measured share of throughput, and starved in the untimed lane
// it once did not.
func TestActionSteps(t *testing.T) {
	a := loadAction(t)
	addr := freeAddr(t)
	server := map[string]string{
		"server-command": "mcpbench serve --addr " + addr + " --capacity 4 --service-time 2ms",
		"health-url":     "http://" + addr + "/health",
		"url":            "http://" + addr + "/mcp",
	}
	with := func(m map[string]string) map[string]string {
		out := map[string]string{}
		for k, v := range server {
			out[k] = v
		}
		for k, v := range m {
			out[k] = v
		}
		return out
	}

	first := newRunner(t, a, with(map[string]string{"args": "-n 200 -c 2 --warmup 4 --p95-slo-ms 2000"}))
	first.run(a)
	if first.failed != "" {
		t.Fatalf("step %q failed:\n%s", first.failed, first.dump())
	}
	if !strings.Contains(first.logs[install], "mcpbench v0.0.0-actiontest") {
		t.Errorf("install: the binary is not stamped with the action's ref:\n%s", first.logs[install])
	}
	report := first.output(a, "report")
	if report != filepath.Join(first.temp, "mcpbench", "report.json") || first.output(a, "verdict") != "pass" {
		t.Fatalf("report %q verdict %q\n%s", report, first.output(a, "verdict"), first.dump())
	}
	checkOutputs(t, a, first, report)
	sum := first.summary()
	for _, want := range []string{"# mcpbench run: http://" + addr + "/mcp", "no baseline report"} {
		if !strings.Contains(sum, want) {
			t.Errorf("summary lacks %q:\n%s", want, sum)
		}
	}
	for _, f := range []string{"report.md", "report.html", "server.log"} {
		if _, err := os.Stat(filepath.Join(first.temp, "mcpbench", f)); err != nil {
			t.Errorf("no %s for the artifact: %v", f, err)
		}
	}
	checkStopped(t, first)

	t.Run("planted faster baseline fails the gate", func(t *testing.T) {
		baseline := filepath.Join(t.TempDir(), "baseline.json")
		plant(t, report, baseline)
		r := newRunner(t, a, with(map[string]string{"args": "-n 200 -c 2 --warmup 4", "baseline": baseline, "max-p95-regression": "10%"}))
		r.path = first.path
		r.run(a, install)
		if r.failed != "Gate" || r.output(a, "verdict") != "fail" {
			t.Fatalf("failed step %q, verdict %q: want the gate to fail\n%s", r.failed, r.output(a, "verdict"), r.dump())
		}
		if s := r.summary(); !strings.Contains(s, "regression") || !strings.Contains(s, "# mcpbench run") {
			t.Errorf("summary:\n%s", s)
		}
		checkStopped(t, r) // stop runs after a failure too

		r = newRunner(t, a, with(map[string]string{"args": "-n 100 -c 2", "baseline": baseline, "fail-on-gate": "false"}))
		r.path = first.path
		r.run(a, install)
		if r.failed != "" || r.output(a, "verdict") != "fail" {
			t.Fatalf("fail-on-gate false: failed step %q, verdict %q\n%s", r.failed, r.output(a, "verdict"), r.dump())
		}
	})

	t.Run("sweep against the base branch's artifact", func(t *testing.T) {
		// 20 ms answers, so that two workers surely double one's rate and
		// both sweeps recommend 2: at 2 ms a busy machine's second worker
		// added less than 5% and the recommendation fell to 1, a regression
		// the gate does not let off.
		sweep := with(map[string]string{"mode": "sweep", "args": "--concurrency-values 1,2 --total 60 --p95-slo-ms 2000",
			"server-command": "mcpbench serve --addr " + addr + " --capacity 4 --service-time 20ms"})
		r := newRunner(t, a, sweep)
		r.path = first.path
		r.run(a, install)
		if r.failed != "" {
			t.Fatalf("step %q failed:\n%s", r.failed, r.dump())
		}
		prev := filepath.Join(t.TempDir(), "artifact")
		os.MkdirAll(prev, 0o755)
		copyFile(t, r.output(a, "report"), filepath.Join(prev, "report.json"))

		sweep["baseline-artifact"] = "mcpbench"
		for _, k := range []string{"max-p95-regression", "max-p99-regression", "max-rps-regression"} {
			sweep[k] = "off" // the same server twice on a busy machine: only the plumbing is under test
		}
		r = newRunner(t, a, sweep)
		r.path = first.path
		ghLog := fakeGH(t, r, prev)
		r.run(a, install)
		if r.failed != "" || r.output(a, "verdict") != "pass" {
			t.Fatalf("failed step %q, verdict %q\n%s", r.failed, r.output(a, "verdict"), r.dump())
		}
		if got := r.outputs["baseline"]["path"]; got != filepath.Join(r.temp, "mcpbench-baseline", "report.json") {
			t.Errorf("baseline path %q", got)
		}
		calls, _ := os.ReadFile(ghLog)
		for _, want := range []string{
			"run list --repo example/server --workflow mcpbench.yml --branch main --status success",
			"run download 4242 --repo example/server --name mcpbench --dir " + filepath.Join(r.temp, "mcpbench-baseline"),
		} {
			if !strings.Contains(string(calls), want) {
				t.Errorf("gh was not called with %q:\n%s", want, calls)
			}
		}
		if s := r.summary(); !strings.Contains(s, "# mcpbench sweep") || !strings.Contains(s, "mcpbench compare (sweep)") {
			t.Errorf("summary:\n%s", s)
		}
		if p := r.output(a, "p95_ms"); p == "" || !strings.HasPrefix(r.outputs["load"]["point"], "concurrency ") {
			t.Errorf("sweep outputs %v", r.outputs["load"])
		}
	})

	t.Run("ab mode: the base's server against the new one", func(t *testing.T) {
		// B burns 2 ms of CPU a call, a regression of CPU per request and
		// throughput no noise hides; both servers started by mcpbench ab.
		serve := "mcpbench serve --stateless --addr 127.0.0.1:{port}"
		r := newRunner(t, a, map[string]string{"mode": "ab", "base-command": serve, "new-command": serve + " --burn 2ms",
			"args": `--method tools/call --tool echo --args '{"message":"ab"}' -c 1 -n 60 --max-rounds 10 --seed 3 --timeout 10s`})
		r.path = first.path
		r.run(a, install)
		if r.failed != "Base against new" || r.output(a, "verdict") != "fail" || r.output(a, "report") != filepath.Join(r.temp, "mcpbench", "ab.json") {
			t.Fatalf("failed step %q, verdict %q, report %q: want the ab step to fail\n%s", r.failed, r.output(a, "verdict"), r.output(a, "report"), r.dump())
		}
		if s := r.summary(); !strings.Contains(s, "## mcpbench ab: B regressed") {
			t.Errorf("summary:\n%s", s)
		}
		for _, f := range []string{"ab.html", "ab.xml", "ab-a-server.log", "ab-b-server.log"} {
			if _, err := os.Stat(filepath.Join(r.temp, "mcpbench", f)); err != nil {
				t.Errorf("no %s for the artifact: %v", f, err)
			}
		}
		if r.logs["Load"] != "" || r.logs["Gate"] != "" {
			t.Errorf("run's steps ran in mode ab")
		}
	})

	t.Run("no server at the URL", func(t *testing.T) {
		r := newRunner(t, a, map[string]string{"url": "http://" + freeAddr(t) + "/mcp", "args": "-n 10"})
		r.path = first.path
		r.run(a, install)
		if r.failed != "Load" || r.output(a, "verdict") != "error" || r.outputs["load"]["exit_code"] != "3" {
			t.Fatalf("failed step %q, verdict %q, outputs %v\n%s", r.failed, r.output(a, "verdict"), r.outputs["load"], r.dump())
		}
	})
}

// checkOutputs compares the action's figures with the report's own.
func checkOutputs(t *testing.T, a actionFile, r *runner, report string) {
	t.Helper()
	rep := readJSON(t, report)
	for _, k := range []string{"p95_ms", "p99_ms", "rps", "error_rate"} {
		got, err := strconv.ParseFloat(r.output(a, k), 64)
		if err != nil || got != rep[k].(float64) {
			t.Errorf("output %s %q, report %v", k, r.output(a, k), rep[k])
		}
	}
	if rep["ok"].(float64) != 200 {
		t.Errorf("report ok %v, want 200", rep["ok"])
	}
}

// checkStopped: the stop step ended the server server.sh started.
func checkStopped(t *testing.T, r *runner) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(r.temp, "mcpbench", "server.pid"))
	if err != nil {
		t.Fatalf("no server.pid: %v", err)
	}
	pid, _ := strconv.Atoi(strings.TrimSpace(string(b)))
	if pid > 0 && syscall.Kill(pid, 0) == nil {
		syscall.Kill(-pid, syscall.SIGKILL)
		t.Errorf("server %d still running after the stop step", pid)
	}
}

// plant writes a copy of the report twice as fast: half the latency,
// double the throughput.
func plant(t *testing.T, src, dst string) {
	t.Helper()
	m := readJSON(t, src)
	for _, k := range []string{"p50_ms", "p90_ms", "p95_ms", "p99_ms"} {
		m[k] = m[k].(float64) / 100 // far past any run's noise: latencies at the wire vary by 2x between runs of 100 requests
	}
	m["rps"] = m["rps"].(float64) * 100
	b, _ := json.Marshal(m)
	if err := os.WriteFile(dst, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// fakeGH puts a gh on the runner's PATH that logs its arguments, lists run
// 4242 and downloads dir's files as the artifact.
func fakeGH(t *testing.T, r *runner, dir string) string {
	t.Helper()
	bin := t.TempDir()
	log := filepath.Join(bin, "calls")
	script := `#!/usr/bin/env bash
echo "$*" >> "` + log + `"
case "$1 $2" in
  "run list") echo 4242 ;;
  "run download")
    while [ $# -gt 0 ]; do [ "$1" = --dir ] && d=$2; shift; done
    mkdir -p "$d" && cp "` + dir + `"/* "$d"/ ;;
  *) exit 1 ;;
esac
`
	if err := os.WriteFile(filepath.Join(bin, "gh"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	r.path = append([]string{bin}, r.path...)
	return log
}

func freeAddr(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().String()
}

func copyFile(t *testing.T, src, dst string) {
	t.Helper()
	b, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(dst, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

func readJSON(t *testing.T, file string) map[string]any {
	t.Helper()
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatalf("%s: %v", file, err)
	}
	return m
}
