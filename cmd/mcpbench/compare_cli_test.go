package main

import (
	"encoding/json"
	"encoding/xml"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcpbench/mcpbench/target"
)

// plant writes a copy of the report at src with fn applied to its JSON.
func plant(t *testing.T, src, dst string, fn func(map[string]any)) {
	t.Helper()
	b, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	fn(m)
	if b, err = json.Marshal(m); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(dst, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

type junitDoc struct {
	Tests    int `xml:"tests,attr"`
	Failures int `xml:"failures,attr"`
	Suites   []struct {
		Name  string `xml:"name,attr"`
		Cases []struct {
			Name    string `xml:"name,attr"`
			Failure *struct {
				Message string `xml:"message,attr"`
				Type    string `xml:"type,attr"`
			} `xml:"failure"`
		} `xml:"testcase"`
	} `xml:"testsuite"`
}

func TestCompareGate(t *testing.T) {
	srv := startTarget(t, target.Config{Capacity: 8, ServiceTime: 5 * time.Millisecond})
	dir := t.TempDir()
	base := filepath.Join(dir, "base.json")
	if r := runCLI(t, nil, "run", "--url", srv.MCPURL(), "-c", "4", "-n", "200", "--json-out", base, "-q"); r.code != 0 {
		t.Fatalf("run: %s", r.stderr)
	}

	// The same report against itself passes, with the table on stdout.
	r := runCLI(t, nil, "compare", base, base)
	if r.code != 0 || !strings.Contains(r.stdout, "No regression") || !strings.Contains(r.stdout, "| run") {
		t.Fatalf("identical: exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}

	// p95 20% higher against a 10% limit fails; against 50% it passes.
	slow := filepath.Join(dir, "slow.json")
	var p95 float64
	plant(t, base, slow, func(m map[string]any) {
		p95 = m["p95_ms"].(float64)
		m["p95_ms"] = p95 * 1.2
	})
	md, junit, js := filepath.Join(dir, "cmp.md"), filepath.Join(dir, "cmp.xml"), filepath.Join(dir, "cmp.json")
	r = runCLI(t, nil, "compare", base, slow, "--max-p95-regression", "10%", "--md-out", md, "--junit-out", junit, "--json-out", js)
	if r.code != 1 {
		t.Fatalf("planted regression: exit %d, want 1\n%s", r.code, r.stderr)
	}
	if r.stdout != "" || !strings.Contains(r.stderr, "1 regression") {
		t.Errorf("stdout %q (want nothing with --md-out), stderr %q", r.stdout, r.stderr)
	}
	mdText, _ := os.ReadFile(md)
	for _, want := range []string{"❌ 1 regression", "| scope", "p95_ms", "(+20.0%)", "+10%", "**regression**", "`" + base + "`"} {
		if !strings.Contains(string(mdText), want) {
			t.Errorf("markdown lacks %q:\n%s", want, mdText)
		}
	}
	xmlText, _ := os.ReadFile(junit)
	var doc junitDoc
	if err := xml.Unmarshal(xmlText, &doc); err != nil {
		t.Fatalf("junit: %v\n%s", err, xmlText)
	}
	if doc.Tests != 4 || doc.Failures != 1 || len(doc.Suites) != 1 || len(doc.Suites[0].Cases) != 4 {
		t.Fatalf("junit counts: %+v", doc)
	}
	for _, c := range doc.Suites[0].Cases {
		if failed := c.Failure != nil; failed != (c.Name == "run: p95_ms") {
			t.Errorf("case %q failure %+v", c.Name, c.Failure)
		} else if failed && (c.Failure.Type != "regression" || !strings.Contains(c.Failure.Message, "+20.0%")) {
			t.Errorf("failure %+v", c.Failure)
		}
	}
	var cmp struct {
		Schema      string `json:"schema"`
		Passed      bool   `json:"passed"`
		Regressions int    `json:"regressions"`
	}
	b, _ := os.ReadFile(js)
	if err := json.Unmarshal(b, &cmp); err != nil || cmp.Schema != "mcpbench.compare/v1" || cmp.Passed || cmp.Regressions != 1 {
		t.Errorf("json %s (%v)", b, err)
	}
	if r := runCLI(t, nil, "compare", base, slow, "--max-p95-regression", "50%", "-q"); r.code != 0 {
		t.Errorf("within 50%%: exit %d: %s", r.code, r.stderr)
	}
	// An absolute limit: 20% of a few ms is well under 1 s.
	if r := runCLI(t, nil, "compare", base, slow, "--max-p95-regression", "1s", "-q"); r.code != 0 {
		t.Errorf("within 1s: exit %d: %s", r.code, r.stderr)
	}
	// The other way round is an improvement, never a failure.
	if r := runCLI(t, nil, "compare", slow, base, "--max-p95-regression", "0%", "-q"); r.code != 0 {
		t.Errorf("improvement: exit %d: %s", r.code, r.stderr)
	}

	// Bad input is one line and exit 2.
	sweepFile := filepath.Join(dir, "sweep.json")
	plant(t, base, sweepFile, func(m map[string]any) { m["schema"] = "mcpbench.sweep/v1"; m["points"] = []any{} })
	probe := filepath.Join(dir, "probe.json")
	plant(t, base, probe, func(m map[string]any) { m["schema"] = "mcpbench.probe/v1" })
	for _, c := range []struct {
		name string
		args []string
		want string
	}{
		{"mixed kinds", []string{base, sweepFile}, "is a run report and " + sweepFile + " a sweep report"},
		{"probe report", []string{base, probe}, "only run and sweep"},
		{"one file", []string{base}, "want two reports"},
		{"missing file", []string{base, filepath.Join(dir, "nope.json")}, "no such file"},
		{"bad limit", []string{base, base, "--max-rps-regression", "5ms"}, "--max-rps-regression"},
		{"error rate above 1", []string{base, base, "--max-error-rate-increase", "5"}, "fraction"},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := runCLI(t, nil, append([]string{"compare"}, c.args...)...)
			if r.code != 2 {
				t.Fatalf("exit %d, want 2: %s", r.code, r.stderr)
			}
			oneCleanLine(t, r)
			if !strings.Contains(r.stderr, c.want) {
				t.Fatalf("stderr %q does not say %q", r.stderr, c.want)
			}
		})
	}
}
