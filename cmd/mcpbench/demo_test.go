package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"testing"
)

// TestDemo runs `make demo`'s script as a newcomer's first command: its
// reports carry fixed names (a second demo replaces them, instead of piling
// up under a new port's name), and what it says the sweep found is what the
// report says (issue 19, point 11).
func TestDemo(t *testing.T) {
	t.Parallel() // counts, files and exit codes, no figure a busy machine changes: with the other parallel tests
	out := t.TempDir()
	r := runProgram(t, []string{"MCPBENCH_BIN=" + binary, "OUT_DIR=" + out, "MCPBENCH_URL="}, "bash", "../../scripts/demo.sh")
	if r.code != 0 {
		t.Fatalf("demo: exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	entries, _ := os.ReadDir(out)
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	if !slices.Equal(names, []string{"demo-sweep.html", "demo-sweep.json", "demo-sweep.md", "demo-sweep.svg"}) {
		t.Fatalf("reports %v, want demo-sweep.{html,json,md,svg}", names)
	}
	m := regexp.MustCompile(`demo: the sweep found the knee at concurrency (\S+), recommends concurrency (\S+) and peaked at (\d+) rps`).FindStringSubmatch(r.stdout)
	if m == nil {
		t.Fatalf("no findings line in:\n%s", r.stdout)
	}
	var rep struct {
		Knee    *struct{ Concurrency int } `json:"knee"`
		Summary struct {
			PeakRPS float64 `json:"peak_rps"`
		} `json:"summary"`
		Recommendation struct {
			Recommended *int `json:"recommended_concurrency"`
		} `json:"recommendation"`
	}
	b, err := os.ReadFile(filepath.Join(out, "demo-sweep.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &rep); err != nil {
		t.Fatal(err)
	}
	orNone := func(v *int) string {
		if v == nil {
			return "none"
		}
		return strconv.Itoa(*v)
	}
	var knee *int
	if rep.Knee != nil {
		knee = &rep.Knee.Concurrency
	}
	want := []string{orNone(knee), orNone(rep.Recommendation.Recommended), fmt.Sprint(int(rep.Summary.PeakRPS))}
	if got := m[1:]; !slices.Equal(got, want) {
		t.Errorf("the demo says knee, recommended, peak = %v; the report says %v", got, want)
	}
}
