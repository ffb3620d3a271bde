package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"gopkg.in/yaml.v3"
)

type ghWorkflow struct {
	Jobs map[string]struct {
		Env   map[string]string `yaml:"env"`
		Steps []struct {
			Name string            `yaml:"name"`
			Uses string            `yaml:"uses"`
			Run  string            `yaml:"run"`
			If   string            `yaml:"if"`
			With map[string]string `yaml:"with"`
		} `yaml:"steps"`
	} `yaml:"jobs"`
}

// TestGitHubActionsExample runs the example workflow's run: steps in order
// with bash, as a runner would (the uses: steps are checkout, setup-go and
// the artifact upload, which the test's machine stands in for): build,
// serve, sweep, and the compare gate, first against an identical baseline
// (passes) and then against a planted better one (fails with exit 1).
func TestGitHubActionsExample(t *testing.T) {
	t.Parallel() // counts, files and exit codes, no figure a busy machine changes: with the other parallel tests
	b, err := os.ReadFile("../../docs/examples/github-actions-mcpbench.yml")
	if err != nil {
		t.Fatal(err)
	}
	var wf ghWorkflow
	if err := yaml.Unmarshal(b, &wf); err != nil {
		t.Fatalf("workflow: %v", err)
	}
	job, ok := wf.Jobs["bench"]
	if !ok {
		t.Fatalf("no bench job in %v", wf.Jobs)
	}
	root, _ := filepath.Abs("../..")
	tmp := t.TempDir()
	summary, ghPath := filepath.Join(tmp, "summary.md"), filepath.Join(tmp, "path")
	baseline := filepath.Join(tmp, "baseline-sweep.json")
	out := filepath.Join(tmp, "mcpbench")
	env := map[string]string{}
	for k, v := range job.Env {
		env[k] = v
	}
	env["MCPBENCH_ADDR"] = freeAddr(t) // the runner's 3002 may be taken here
	env["BASELINE"] = baseline
	env["RUNNER_TEMP"] = tmp
	env["GITHUB_STEP_SUMMARY"] = summary
	env["GITHUB_PATH"] = ghPath
	t.Cleanup(func() {
		if b, err := os.ReadFile(filepath.Join(out, "serve.pid")); err == nil {
			if pid, err := strconv.Atoi(strings.TrimSpace(string(b))); err == nil {
				syscall.Kill(pid, syscall.SIGTERM)
			}
		}
	})

	run := func(name, script string) (int, string) {
		ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
		defer cancel()
		cmd := exec.CommandContext(ctx, "bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", script)
		cmd.Dir = root
		path := os.Getenv("PATH")
		if b, err := os.ReadFile(ghPath); err == nil {
			for _, p := range strings.Fields(string(b)) {
				path = p + string(os.PathListSeparator) + path
			}
		}
		cmd.Env = append(os.Environ(), "PATH="+path)
		for k, v := range env {
			cmd.Env = append(cmd.Env, k+"="+v)
		}
		var o bytes.Buffer
		cmd.Stdout, cmd.Stderr = &o, &o
		err := cmd.Run()
		if ctx.Err() != nil {
			t.Fatalf("step %q timed out: %s", name, o.String())
		}
		code := 0
		if ee, ok := err.(*exec.ExitError); ok {
			code = ee.ExitCode()
		} else if err != nil {
			t.Fatalf("step %q: %v", name, err)
		}
		return code, o.String()
	}

	var ran []string
	var gate string
	for _, s := range job.Steps {
		if s.Run == "" {
			continue
		}
		if strings.Contains(s.Run, "mcpbench compare") {
			gate = s.Run
			// Stand in for the committed baseline: this very sweep.
			copyFile(t, filepath.Join(out, "sweep.json"), baseline)
		}
		code, o := run(s.Name, s.Run)
		if code != 0 {
			t.Fatalf("step %q: exit %d\n%s", s.Name, code, o)
		}
		ran = append(ran, s.Name)
	}
	if gate == "" || len(ran) < 5 {
		t.Fatalf("ran %q: want build, serve, sweep, gate and stop", ran)
	}
	sum, _ := os.ReadFile(summary)
	// The SLO reached the sweep and its verdict the summary. Whether a level
	// met it is the machine's business (this test runs in the untimed
	// lane, on the CPU the timed tests leave), so the figure itself is not
	// judged here; sweep-slo.txtar judges it in the timed lane.
	for _, want := range []string{"# mcpbench sweep", "**SLO:** p95", "Max feasible concurrency:", "## mcpbench compare (sweep)", "No regression"} {
		if !strings.Contains(string(sum), want) {
			t.Errorf("step summary lacks %q:\n%s", want, sum)
		}
	}
	if _, err := os.Stat(filepath.Join(out, "compare.xml")); err != nil {
		t.Errorf("no JUnit file: %v", err)
	}

	// A baseline twice as fast at every point: the gate must fail the
	// step and still write the table to the summary.
	plant(t, filepath.Join(out, "sweep.json"), baseline, func(m map[string]any) {
		for _, p := range m["points"].([]any) {
			pt := p.(map[string]any)
			for _, k := range []string{"p95_ms", "p99_ms"} {
				pt[k] = pt[k].(float64) / 2
			}
		}
	})
	os.Remove(summary)
	code, o := run("gate against a faster baseline", gate)
	if code != 1 {
		t.Fatalf("gate: exit %d, want 1\n%s", code, o)
	}
	sum, _ = os.ReadFile(summary)
	if !strings.Contains(string(sum), "regression") || !strings.Contains(string(sum), "| concurrency 1") {
		t.Errorf("summary after a regression:\n%s", sum)
	}
	var cmp struct {
		Passed      bool `json:"passed"`
		Regressions int  `json:"regressions"`
	}
	b, _ = os.ReadFile(filepath.Join(out, "compare.json"))
	if err := json.Unmarshal(b, &cmp); err != nil || cmp.Passed || cmp.Regressions == 0 {
		t.Errorf("compare.json %s (%v)", b, err)
	}
}

func freeAddr(t *testing.T) string {
	t.Helper()
	addr, err := loopbackAddr()
	if err != nil {
		t.Fatal(err)
	}
	return addr
}

func copyFile(t *testing.T, src, dst string) {
	t.Helper()
	b, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(fmt.Errorf("copy: %w", err))
	}
	if err := os.WriteFile(dst, b, 0o644); err != nil {
		t.Fatal(err)
	}
}
