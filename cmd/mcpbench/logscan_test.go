package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/mcpbench/mcpbench/results"
)

const (
	logscanLine1 = "2026-11-22T01:00:00Z INFO [MCP] tools/list stats requests=10 hit_rate=90% cache_hits=9 cache_misses=1 build_count=1 build_failures=0 build_avg_ms=5 build_max_ms=5\n"
	logscanLine2 = "2026-11-22T01:01:00Z INFO [MCP] tools/list stats requests=30 hit_rate=93.3% cache_hits=28 cache_misses=2 build_count=2 build_failures=0 build_avg_ms=6 build_max_ms=9 in_flight=0 peak_in_flight=4 max_in_flight=90\n"
)

func runLogscan(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	e := env{stdout: &out, stderr: &errb, stdin: strings.NewReader(""), getenv: func(string) string { return "" }}
	code = logscanMain(context.Background(), args, e)
	return code, out.String(), errb.String()
}

func logscanFixture(t *testing.T) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "server.log")
	body := "boot\n" + logscanLine1 + "Dynamic Loader: 4 tools\n" + logscanLine2
	if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestLogscanJSONToStdout(t *testing.T) {
	path := logscanFixture(t)
	code, stdout, stderr := runLogscan(t, "--json-out", "-", path)
	if code != exitOK || stderr != "" {
		t.Fatalf("code %d stderr %q", code, stderr)
	}
	var rep struct {
		results.Header
		Path   string `json:"path"`
		Window struct {
			StartOffset int64 `json:"start_offset"`
			EndOffset   int64 `json:"end_offset"`
		} `json:"window"`
		StatsLines         int    `json:"stats_lines"`
		Baseline           string `json:"baseline"`
		DynamicLoaderLines int    `json:"dynamic_loader_lines"`
		Delta              struct {
			Requests int64 `json:"requests"`
		} `json:"delta"`
	}
	if err := json.Unmarshal([]byte(stdout), &rep); err != nil {
		t.Fatalf("stdout is not only JSON: %v\n%s", err, stdout)
	}
	if rep.Schema != results.SchemaLogscan || rep.MCPBenchVersion == "" || rep.StartedAt.IsZero() {
		t.Errorf("header %+v", rep.Header)
	}
	if rep.Path != path || rep.Window.StartOffset != 0 || rep.StatsLines != 2 || rep.Baseline != "first_in_window" ||
		rep.Delta.Requests != 20 || rep.DynamicLoaderLines != 1 {
		t.Errorf("report %+v", rep)
	}
}

func TestLogscanFromOffsetUsesBaseline(t *testing.T) {
	path := logscanFixture(t)
	offset := len("boot\n" + logscanLine1)
	code, stdout, _ := runLogscan(t, "--from-offset", strconv.Itoa(offset), "--json-out", "-", path)
	if code != exitOK {
		t.Fatalf("code %d", code)
	}
	var rep map[string]any
	if err := json.Unmarshal([]byte(stdout), &rep); err != nil {
		t.Fatal(err)
	}
	delta := rep["delta"].(map[string]any)
	if rep["baseline"] != "before_window" || delta["requests"] != 20.0 || rep["stats_lines"] != 1.0 {
		t.Errorf("baseline %v delta %v stats %v", rep["baseline"], delta, rep["stats_lines"])
	}
}

func TestLogscanSummaryAndFiles(t *testing.T) {
	path := logscanFixture(t)
	dir := t.TempDir()
	jsonPath := filepath.Join(dir, "out", "scan.json")
	mdPath := filepath.Join(dir, "scan.md")
	code, stdout, stderr := runLogscan(t, "--json-out", jsonPath, "--markdown-out", mdPath, path)
	if code != exitOK || stderr != "" {
		t.Fatalf("code %d stderr %q", code, stderr)
	}
	for _, want := range []string{"delta:", "requests=20", "baseline first_in_window", "window hit rate:    95.0%"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("summary lacks %q:\n%s", want, stdout)
		}
	}
	js, err := os.ReadFile(jsonPath)
	if err != nil || !json.Valid(js) || !bytes.Contains(js, []byte(`"schema": "mcpbench.logscan/v1"`)) {
		t.Errorf("json file: %v\n%s", err, js)
	}
	md, err := os.ReadFile(mdPath)
	if err != nil || !bytes.Contains(md, []byte("| delta | requests=20 ")) {
		t.Errorf("md file: %v\n%s", err, md)
	}

	code, stdout, _ = runLogscan(t, "-q", path)
	if code != exitOK || stdout != "" {
		t.Errorf("-q: code %d stdout %q", code, stdout)
	}
}

func TestLogscanHelp(t *testing.T) {
	code, stdout, stderr := runLogscan(t, "--help")
	if code != exitOK || stderr != "" || !strings.Contains(stdout, "Usage: mcpbench logscan") || !strings.Contains(stdout, "--from-offset") ||
		!strings.Contains(stdout, "Examples:") {
		t.Errorf("code %d stderr %q stdout:\n%s", code, stderr, stdout)
	}
}

func TestLogscanBadInput(t *testing.T) {
	path := logscanFixture(t)
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"no file", nil, "expected one log FILE"},
		{"two files", []string{path, path}, "expected one log FILE"},
		{"missing file", []string{filepath.Join(t.TempDir(), "nope.log")}, "no such file"},
		{"directory", []string{t.TempDir()}, "not a regular file"},
		{"bad flag", []string{"--nope", path}, "unknown flag"},
		{"bad offset", []string{"--from-offset", "abc", path}, "from-offset"},
		{"negative offset", []string{"--from-offset", "-3", path}, "0 or more"},
		{"offset past the end", []string{"--from-offset", "999999", path}, "beyond the end"},
		{"both to stdout", []string{"--json-out", "-", "--md-out", "-", path}, "both be stdout"},
		{"unwritable output", []string{"--json-out", filepath.Join(path, "x.json"), path}, "--json-out"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, _, stderr := runLogscan(t, tt.args...)
			if code != exitUsage {
				t.Errorf("code %d, want %d", code, exitUsage)
			}
			if !strings.HasPrefix(stderr, "mcpbench logscan: ") || strings.Count(stderr, "\n") != 1 || !strings.Contains(stderr, tt.want) {
				t.Errorf("stderr %q, want one line with %q", stderr, tt.want)
			}
		})
	}
}
