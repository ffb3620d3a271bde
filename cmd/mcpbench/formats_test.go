package main

import (
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestReportKeptOnStdout: when neither the path nor the temporary
// directory can be written, the report goes to stdout and the error says so.
func TestReportKeptOnStdout(t *testing.T) {
	file := filepath.Join(t.TempDir(), "afile")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv("TMPDIR", file)
	var out bytes.Buffer
	e := env{stdout: &out, stderr: io.Discard}
	err := writeReportFile(output{path: filepath.Join(file, "r.json"), flag: "--json-out"},
		func(w io.Writer) error { _, err := io.WriteString(w, "{}\n"); return err }, e)
	if err == nil || !strings.Contains(err.Error(), "the report went to stdout instead") || out.String() != "{}\n" {
		t.Fatalf("error %v, stdout %q", err, out.String())
	}
}

// TestVersionUnstampedSaysHow: a binary built without a version says how
// to get one, on stderr, beside the usual line.
func TestVersionUnstampedSaysHow(t *testing.T) {
	defer func(v, c string) { version, commit = v, c }(version, commit)
	version, commit = "", ""
	var out, errb bytes.Buffer
	code := versionMain(context.Background(), nil, env{stdout: &out, stderr: &errb})
	if code != 0 || !strings.HasPrefix(out.String(), "mcpbench ") {
		t.Fatalf("exit %d, stdout %q", code, out.String())
	}
	// go test stamps no VCS information: "(devel)", commit unknown.
	if !strings.Contains(out.String(), "(devel) (commit unknown") || !strings.Contains(errb.String(), "make install") {
		t.Fatalf("stdout %q, stderr %q: want the unstamped line and the hint", out.String(), errb.String())
	}
}
