package action

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"
)

// actionlintVersion is the rhysd/actionlint the workflows are linted with,
// run with go run at that version, so it stays out of this module's
// dependencies.
const actionlintVersion = "v1.7.12"

// workflows lists every GitHub Actions workflow in the repository: YAML
// files with on: and jobs: (the scenario files in docs/examples are not).
func workflows(t *testing.T) []string {
	t.Helper()
	root := repoRoot(t)
	out, err := exec.Command("git", "-C", root, "ls-files", "--cached", "--others", "--exclude-standard", "*.yml", "*.yaml").Output()
	if err != nil {
		t.Fatalf("git ls-files: %v", err)
	}
	var files []string
	for _, f := range strings.Fields(string(out)) {
		b, err := os.ReadFile(filepath.Join(root, f))
		if err != nil {
			continue // deleted in the work tree
		}
		var doc map[string]any
		if err := yaml.Unmarshal(b, &doc); err != nil {
			t.Errorf("%s: %v", f, err)
			continue
		}
		_, on := doc["on"]
		_, jobs := doc["jobs"]
		if on && jobs {
			files = append(files, f)
		}
	}
	return files
}

// TestActionlint lints every workflow with actionlint, twice: as written,
// and as a copy that uses this checkout's action (uses: ./), so actionlint
// also checks each with: against action.yml's inputs.
func TestActionlint(t *testing.T) {
	files := workflows(t)
	if len(files) < 3 {
		t.Fatalf("workflows %q: want the example without the action and the two with it", files)
	}
	root := repoRoot(t)
	proj := t.TempDir()
	wfDir := filepath.Join(proj, ".github", "workflows")
	// actionlint finds a project (and ./'s action.yml) by its .git.
	for _, d := range []string{wfDir, filepath.Join(proj, ".git")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	copyFile(t, filepath.Join(root, "action.yml"), filepath.Join(proj, "action.yml"))
	usesAction := regexp.MustCompile(`uses: mcpbench/mcpbench@\S+`)
	local := 0
	for _, f := range files {
		b, _ := os.ReadFile(filepath.Join(root, f))
		if usesAction.Match(b) {
			local++
		}
		b = usesAction.ReplaceAll(b, []byte("uses: ./"))
		if err := os.WriteFile(filepath.Join(wfDir, filepath.Base(f)), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if local < 2 {
		t.Errorf("%d workflows use the action, want the PR gate and the nightly sweep", local)
	}
	lint := func(dir string, args ...string) {
		cmd := exec.Command("go", append([]string{"run", "github.com/rhysd/actionlint/cmd/actionlint@" + actionlintVersion, "-no-color"}, args...)...)
		cmd.Dir = dir
		if b, err := cmd.CombinedOutput(); err != nil {
			t.Errorf("actionlint in %s: %v\n%s", dir, err, b)
		}
	}
	lint(root, files...)
	lint(proj)

	// It bites: an input action.yml does not have is reported.
	bad := filepath.Join(wfDir, "bad.yml")
	b, _ := os.ReadFile(filepath.Join(root, "docs/examples/github-actions-pr-gate.yml"))
	b = usesAction.ReplaceAll(b, []byte("uses: ./"))
	b = []byte(strings.Replace(string(b), "health-url:", "health-uri:", 1))
	os.WriteFile(bad, b, 0o644)
	cmd := exec.Command("go", "run", "github.com/rhysd/actionlint/cmd/actionlint@"+actionlintVersion, "-no-color", ".github/workflows/bad.yml")
	cmd.Dir = proj
	if out, err := cmd.CombinedOutput(); err == nil || !strings.Contains(string(out), "health-uri") {
		t.Errorf("actionlint passed a misspelt input: %v\n%s", err, out)
	}
}
