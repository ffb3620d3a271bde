package main

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mcpbench/mcpbench/target"
)

// signalCLI starts mcpbench, sends sig after wait, and returns its exit
// code and stderr; it fails if mcpbench does not stop within 20 s.
func signalCLI(t *testing.T, sig syscall.Signal, wait time.Duration, args ...string) (int, string) {
	t.Helper()
	cmd := exec.Command(binary, args...)
	var errb bytes.Buffer
	cmd.Stderr = &errb
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	time.Sleep(wait)
	_ = cmd.Process.Signal(sig)
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case <-done:
	case <-time.After(20 * time.Second):
		_ = cmd.Process.Kill()
		<-done
		t.Fatalf("mcpbench did not stop within 20 s of %v", sig)
	}
	return cmd.ProcessState.ExitCode(), errb.String()
}

// terminateWritesReport (in TestServerBound): SIGTERM (what Kubernetes and
// CI runners send) is an interrupt like Ctrl-C: the report is written,
// exit 130.
func terminateWritesReport(t *testing.T) {
	srv := startTarget(t, target.Config{ServiceTime: 5 * time.Millisecond})
	dir := t.TempDir()
	jsonPath, mdPath := filepath.Join(dir, "run.json"), filepath.Join(dir, "run.md")
	code, stderr := signalCLI(t, syscall.SIGTERM, 1500*time.Millisecond,
		"run", "--url", srv.MCPURL(), "-c", "4", "-d", "60s", "--json-out", jsonPath, "--md-out", mdPath, "-q")
	if code != exitInterrupted {
		t.Fatalf("exit %d, want 130; stderr %s", code, stderr)
	}
	var m map[string]any
	b, err := os.ReadFile(jsonPath)
	if err != nil {
		t.Fatalf("no report written: %v", err)
	}
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatalf("report is not JSON: %v", err)
	}
	if m["interrupted"] != true || m["requests"].(float64) < 10 || m["errors"].(float64) != 0 {
		t.Fatalf("interrupted %v requests %v errors %v", m["interrupted"], m["requests"], m["errors"])
	}
	if md, err := os.ReadFile(mdPath); err != nil || !strings.Contains(string(md), "p50") {
		t.Fatalf("markdown: %v\n%s", err, md)
	}
}

// interruptedSweepWritesReports (in TestServerBound): Ctrl-C during the
// second point keeps the finished first point; JSON, Markdown and SVG are
// all written, valid and marked interrupted, and the exit code is 130.
func interruptedSweepWritesReports(t *testing.T) {
	srv := startTarget(t, target.Config{ServiceTime: 5 * time.Millisecond})
	dir := t.TempDir()
	jsonPath := filepath.Join(dir, "sweep.json")
	mdPath := filepath.Join(dir, "sweep.md")
	svgPath := filepath.Join(dir, "sweep.svg")
	// Each point runs 1.5 s: the signal at 2.5 s falls in the second.
	code, stderr := signalCLI(t, syscall.SIGINT, 2500*time.Millisecond,
		"sweep", "--url", srv.MCPURL(), "--concurrency-values", "1,2,4,8", "-d", "1500ms",
		"--json-out", jsonPath, "--md-out", mdPath, "--svg-out", svgPath, "-q")
	if code != exitInterrupted {
		t.Fatalf("exit %d, want 130; stderr %s", code, stderr)
	}
	var r struct {
		Schema      string `json:"schema"`
		Interrupted bool   `json:"interrupted"`
		Points      []struct {
			Concurrency int   `json:"concurrency"`
			Requests    int64 `json:"requests"`
			Errors      int64 `json:"errors"`
			Interrupted bool  `json:"interrupted"`
		} `json:"points"`
	}
	b, err := os.ReadFile(jsonPath)
	if err != nil {
		t.Fatalf("no JSON report: %v", err)
	}
	if err := json.Unmarshal(b, &r); err != nil {
		t.Fatalf("JSON report does not parse: %v", err)
	}
	if r.Schema != "mcpbench.sweep/v1" || !r.Interrupted || len(r.Points) == 0 || len(r.Points) == 4 {
		t.Fatalf("schema %q interrupted %v, %d points: %s", r.Schema, r.Interrupted, len(r.Points), b)
	}
	first := r.Points[0]
	if first.Concurrency != 1 || first.Interrupted || first.Requests < 10 || first.Errors != 0 {
		t.Fatalf("the finished first point was not kept whole: %+v", first)
	}
	md, err := os.ReadFile(mdPath)
	if err != nil || !strings.Contains(string(md), "Interrupted") {
		t.Fatalf("markdown: %v\n%s", err, md)
	}
	svg, err := os.ReadFile(svgPath)
	if err != nil {
		t.Fatalf("no SVG: %v", err)
	}
	if root := xmlRoot(t, svg); root != "svg" {
		t.Fatalf("SVG root element %q", root)
	}
}

// xmlRoot checks data is well-formed XML and returns its root element.
func xmlRoot(t *testing.T, data []byte) string {
	t.Helper()
	d := xml.NewDecoder(bytes.NewReader(data))
	root := ""
	for {
		tok, err := d.Token()
		if errors.Is(err, io.EOF) {
			return root
		}
		if err != nil {
			t.Fatalf("not well-formed XML: %v", err)
		}
		if se, ok := tok.(xml.StartElement); ok && root == "" {
			root = se.Name.Local
		}
	}
}
