package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpbench/mcpbench/target"
)

// readPage reads an HTML report and checks it is one of mcpbench's pages,
// whole and self-contained: the chart library inlined, no script or style
// fetched from anywhere.
func readPage(t *testing.T, path, title string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	page := string(b)
	for _, want := range []string{"<!DOCTYPE html>", title, "var uPlot=", `id="mcpbench-data"`, "</html>"} {
		if !strings.Contains(page, want) {
			t.Errorf("%s: no %q", path, want)
		}
	}
	for _, bad := range []string{"<script src", "<link", "@import"} {
		if strings.Contains(page, bad) {
			t.Errorf("%s refers to an outside resource (%s)", path, bad)
		}
	}
	return page
}

// --html-out on run, compare and merge writes each command's page; "-"
// puts it on stdout with nothing else there.
func TestHTMLOut(t *testing.T) {
	srv := startTarget(t, target.Config{Tools: 3})
	dir := t.TempDir()
	at := func(name string) string { return filepath.Join(dir, name) }
	for i, name := range []string{"a", "b"} {
		r := runCLI(t, nil, "run", "--url", srv.MCPURL(), "-c", "2", "-n", "200", "--shard", []string{"0/2", "1/2"}[i],
			"--json-out", at(name+".json"), "--html-out", at(name+".html"), "-q")
		if r.code != 0 {
			t.Fatalf("run: exit %d: %s", r.code, r.stderr)
		}
		readPage(t, at(name+".html"), "mcpbench run: "+srv.MCPURL())
	}
	if r := runCLI(t, nil, "compare", at("a.json"), at("b.json"), "--max-p95-regression", "off", "--max-p99-regression", "off",
		"--max-rps-regression", "off", "--html-out", at("compare.html"), "-q"); r.code != 0 {
		t.Fatalf("compare: exit %d: %s", r.code, r.stderr)
	}
	page := readPage(t, at("compare.html"), "mcpbench compare (run)")
	if !strings.Contains(page, "a.json") || !strings.Contains(page, "b.json") {
		t.Error("the compare page does not name the two reports")
	}
	if r := runCLI(t, nil, "merge", at("a.json"), at("b.json"), "--html-out", at("merged.html"), "-q"); r.code != 0 {
		t.Fatalf("merge: exit %d: %s", r.code, r.stderr)
	}
	if page := readPage(t, at("merged.html"), "mcpbench run"); !strings.Contains(page, "merged from 2 reports") {
		t.Error("the merged page does not say it was merged")
	}
	r := runCLI(t, nil, "run", "--url", srv.MCPURL(), "-c", "1", "-n", "20", "--html-out", "-")
	if r.code != 0 || !strings.HasPrefix(r.stdout, "<!DOCTYPE html>") || !strings.HasSuffix(strings.TrimSpace(r.stdout), "</html>") {
		t.Errorf("--html-out -: exit %d, stdout starts %.40q, ends %q", r.code, r.stdout, r.stdout[max(0, len(r.stdout)-20):])
	}
}
