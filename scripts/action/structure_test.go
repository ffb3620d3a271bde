package action

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestActionStructure checks what actionlint does not (action.yml is not a
// workflow): a composite action whose run steps say their shell and call
// an executable script of this directory, whose uses steps are pinned by
// tag, whose every input is described and every expression names an input
// or step that exists, and whose outputs are the six the issue names.
func TestActionStructure(t *testing.T) {
	a := loadAction(t)
	if a.Name == "" || a.Description == "" || a.Runs.Using != "composite" {
		t.Fatalf("name %q, description %q, runs.using %q: want a described composite action", a.Name, a.Description, a.Runs.Using)
	}
	for name, in := range a.Inputs {
		if in.Description == "" || in.Required {
			t.Errorf("input %s: description %q, required %v (every input has a default)", name, in.Description, in.Required)
		}
	}
	ids := map[string]bool{}
	script := regexp.MustCompile(`^"\$GITHUB_ACTION_PATH/(scripts/action/[a-z]+\.sh)"$`)
	pinned := regexp.MustCompile(`^actions/[a-z-]+@v\d+$`)
	for _, s := range a.Runs.Steps {
		if s.Name == "" {
			t.Errorf("a step without a name: %+v", s)
		}
		if s.ID != "" {
			ids[s.ID] = true
		}
		switch {
		case s.Run != "":
			m := script.FindStringSubmatch(s.Run)
			if s.Shell != "bash" || m == nil {
				t.Errorf("step %q: shell %q, run %q: want bash running a script of scripts/action", s.Name, s.Shell, s.Run)
				continue
			}
			if fi, err := os.Stat(filepath.Join(repoRoot(t), m[1])); err != nil || fi.Mode()&0o111 == 0 {
				t.Errorf("step %q: %s is not an executable file (%v)", s.Name, m[1], err)
			}
		case !pinned.MatchString(s.Uses):
			t.Errorf("step %q uses %q: want an actions/ action pinned by tag", s.Name, s.Uses)
		}
	}
	ref := regexp.MustCompile(`\b(inputs|steps)\.([a-z0-9_-]+)`)
	check := func(where, expr string) {
		for _, m := range ref.FindAllStringSubmatch(expr, -1) {
			if _, ok := a.Inputs[m[2]]; m[1] == "inputs" && !ok {
				t.Errorf("%s names inputs.%s, which action.yml does not have", where, m[2])
			}
			if m[1] == "steps" && !ids[m[2]] {
				t.Errorf("%s names steps.%s, which no step has as id", where, m[2])
			}
		}
	}
	for _, s := range a.Runs.Steps {
		check("step "+s.Name+" if", s.If)
		for k, v := range s.Env {
			check("step "+s.Name+" env "+k, v)
		}
		for k, v := range s.With {
			check("step "+s.Name+" with "+k, v)
		}
	}
	// What the cache step keeps is where install.sh's Go builds.
	var cached string
	for _, s := range a.Runs.Steps {
		if strings.HasPrefix(s.Uses, "actions/cache@") {
			cached = s.With["path"]
		}
	}
	for _, s := range a.Runs.Steps {
		for _, k := range []string{"GOCACHE", "GOMODCACHE"} {
			if v, ok := s.Env[k]; ok && (cached == "" || !strings.HasPrefix(v, cached+"/")) {
				t.Errorf("step %q: %s=%s is not under the cached %q", s.Name, k, v, cached)
			}
		}
	}
	want := []string{"error_rate", "p95_ms", "p99_ms", "report", "rps", "verdict"}
	var got []string
	for name, o := range a.Outputs {
		got = append(got, name)
		check("output "+name, o.Value)
		if o.Description == "" || !strings.Contains(o.Value, "steps.") {
			t.Errorf("output %s: %+v", name, o)
		}
	}
	if len(got) != len(want) {
		t.Errorf("outputs %q, want %q", got, want)
	}
	for _, w := range want {
		if _, ok := a.Outputs[w]; !ok {
			t.Errorf("no output %s", w)
		}
	}
}
