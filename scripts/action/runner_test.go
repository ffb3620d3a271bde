// Package action holds the tests of the GitHub Action (action.yml at the
// repository root, its steps' scripts here): a stand-in runner that runs
// the composite steps with a made-up GITHUB_* environment, the checks of
// action.yml's structure, and actionlint on every workflow. The package
// has no code of its own; outputs/ is the helper the action builds.
package action

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"gopkg.in/yaml.v3"
)

type actionFile struct {
	Name        string `yaml:"name"`
	Description string `yaml:"description"`
	Inputs      map[string]struct {
		Description string  `yaml:"description"`
		Required    bool    `yaml:"required"`
		Default     *string `yaml:"default"`
	} `yaml:"inputs"`
	Outputs map[string]struct {
		Description string `yaml:"description"`
		Value       string `yaml:"value"`
	} `yaml:"outputs"`
	Runs struct {
		Using string `yaml:"using"`
		Steps []step `yaml:"steps"`
	} `yaml:"runs"`
}

type step struct {
	Name  string            `yaml:"name"`
	ID    string            `yaml:"id"`
	If    string            `yaml:"if"`
	Uses  string            `yaml:"uses"`
	Run   string            `yaml:"run"`
	Shell string            `yaml:"shell"`
	Env   map[string]string `yaml:"env"`
	With  map[string]string `yaml:"with"`
}

func repoRoot(t *testing.T) string {
	t.Helper()
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	return root
}

func loadAction(t *testing.T) actionFile {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(repoRoot(t), "action.yml"))
	if err != nil {
		t.Fatal(err)
	}
	var a actionFile
	if err := yaml.Unmarshal(b, &a); err != nil {
		t.Fatalf("action.yml: %v", err)
	}
	return a
}

// runner runs an action's steps as GitHub's runner would: the if:
// conditions and ${{ }} expressions the action uses, env, GITHUB_OUTPUT
// per step, GITHUB_PATH carried forward, GITHUB_STEP_SUMMARY appended. The
// uses: steps (cache, upload-artifact) are GitHub's own and are skipped.
type runner struct {
	t       *testing.T
	root    string
	temp    string
	inputs  map[string]string
	outputs map[string]map[string]string // step id -> name -> value
	path    []string                     // from GITHUB_PATH
	logs    map[string]string            // step name -> its output
	failed  string                       // the step that failed, if one did
}

func newRunner(t *testing.T, a actionFile, with map[string]string) *runner {
	r := &runner{t: t, root: repoRoot(t), temp: t.TempDir(), inputs: map[string]string{}, outputs: map[string]map[string]string{}, logs: map[string]string{}}
	for name, in := range a.Inputs {
		if in.Default != nil {
			r.inputs[name] = r.eval(*in.Default)
		}
	}
	for k, v := range with {
		if _, ok := a.Inputs[k]; !ok {
			t.Fatalf("with: %s is not an input of action.yml", k)
		}
		r.inputs[k] = v
	}
	return r
}

var exprRE = regexp.MustCompile(`\$\{\{\s*(.*?)\s*\}\}`)

// eval expands the ${{ }} expressions in s.
func (r *runner) eval(s string) string {
	return exprRE.ReplaceAllStringFunc(s, func(m string) string {
		return r.value(exprRE.FindStringSubmatch(m)[1])
	})
}

// value evaluates an expression of the forms action.yml uses: a || b,
// context references, string literals.
func (r *runner) value(expr string) string {
	for _, alt := range strings.Split(expr, "||") {
		if v := r.ref(strings.TrimSpace(alt)); v != "" {
			return v
		}
	}
	return ""
}

func (r *runner) ref(e string) string {
	switch {
	case strings.HasPrefix(e, "'"):
		return strings.Trim(e, "'")
	case strings.HasPrefix(e, "inputs."):
		return r.inputs[strings.TrimPrefix(e, "inputs.")]
	case strings.HasPrefix(e, "steps."):
		f := strings.Split(e, ".") // steps ID outputs NAME
		if len(f) != 4 || f[2] != "outputs" {
			r.t.Fatalf("expression %q", e)
		}
		return r.outputs[f[1]][f[3]]
	case e == "runner.temp":
		return r.temp
	case e == "github.action_ref":
		return "v0.0.0-actiontest"
	case e == "github.token":
		return "made-up-token"
	case strings.HasPrefix(e, "github.event.pull_request.base.ref"):
		return "main"
	case strings.HasPrefix(e, "runner.") || strings.HasPrefix(e, "github."):
		return "x"
	}
	r.t.Fatalf("expression %q not known to the stand-in runner", e)
	return ""
}

// cond evaluates an if: of the forms action.yml uses: always(), and
// comparisons with == and != joined by &&. A failed step skips the rest
// unless their condition has always().
func (r *runner) cond(c string) bool {
	if c == "" {
		return r.failed == ""
	}
	ok := true
	for _, term := range strings.Split(c, "&&") {
		term = strings.TrimSpace(term)
		switch {
		case term == "always()":
			continue
		case strings.Contains(term, "!="):
			a, b, _ := strings.Cut(term, "!=")
			ok = ok && r.value(a) != r.value(b)
		case strings.Contains(term, "=="):
			a, b, _ := strings.Cut(term, "==")
			ok = ok && r.value(a) == r.value(b)
		default:
			r.t.Fatalf("condition %q not known to the stand-in runner", term)
		}
	}
	return ok && (r.failed == "" || strings.Contains(c, "always()"))
}

// run runs the action's steps, skipping those named in skip.
func (r *runner) run(a actionFile, skip ...string) {
	for _, s := range a.Runs.Steps {
		if s.Run == "" || !r.cond(s.If) || contains(skip, s.Name) {
			continue
		}
		r.step(s)
	}
}

func (r *runner) step(s step) {
	t := r.t
	outFile := filepath.Join(r.temp, "output-"+strings.ReplaceAll(s.Name, " ", "-"))
	ghPath := filepath.Join(r.temp, "path")
	env := append(os.Environ(),
		"PATH="+strings.Join(append(r.path, os.Getenv("PATH")), string(os.PathListSeparator)),
		"GITHUB_ACTION_PATH="+r.root, "GITHUB_WORKSPACE="+r.root, "RUNNER_TEMP="+r.temp,
		"GITHUB_OUTPUT="+outFile, "GITHUB_PATH="+ghPath,
		"GITHUB_STEP_SUMMARY="+filepath.Join(r.temp, "summary.md"),
		"GITHUB_REPOSITORY=example/server", "GITHUB_WORKFLOW_REF=example/server/.github/workflows/mcpbench.yml@refs/pull/7/merge")
	for k, v := range s.Env {
		env = append(env, k+"="+r.eval(v))
	}
	// The cache step (skipped: it is GitHub's) restores Go's caches into
	// the directories install.sh builds with; this machine's own caches
	// stand in for a restored one, so the test neither builds from cold
	// nor downloads modules. TestActionStructure checks the paths agree.
	if s.Env["GOCACHE"] != "" {
		env = append(env, "GOCACHE="+goEnv(t, "GOCACHE"), "GOMODCACHE="+goEnv(t, "GOMODCACHE"))
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	// GitHub runs shell: bash as bash --noprofile --norc -eo pipefail {0}.
	cmd := exec.CommandContext(ctx, "bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", r.eval(s.Run))
	cmd.Dir, cmd.Env = r.root, env
	var o bytes.Buffer
	cmd.Stdout, cmd.Stderr = &o, &o
	start := time.Now()
	err := cmd.Run()
	t.Logf("step %q: %v in %s", s.Name, err, time.Since(start).Round(time.Millisecond))
	r.logs[s.Name] = o.String()
	if ctx.Err() != nil {
		t.Fatalf("step %q timed out:\n%s", s.Name, o.String())
	}
	if err != nil {
		r.failed = s.Name
	}
	if s.ID != "" {
		r.outputs[s.ID] = readOutputs(t, outFile)
	}
	if b, err := os.ReadFile(ghPath); err == nil {
		r.path = strings.Fields(string(b))
	}
}

func readOutputs(t *testing.T, file string) map[string]string {
	m := map[string]string{}
	b, err := os.ReadFile(file)
	if os.IsNotExist(err) {
		return m
	}
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		if k, v, ok := strings.Cut(line, "="); ok {
			m[k] = v
		}
	}
	return m
}

// output is the action's output name, as its outputs: map evaluates it.
func (r *runner) output(a actionFile, name string) string {
	o, ok := a.Outputs[name]
	if !ok {
		r.t.Fatalf("action.yml has no output %s", name)
	}
	return r.eval(o.Value)
}

func (r *runner) summary() string {
	b, _ := os.ReadFile(filepath.Join(r.temp, "summary.md"))
	return string(b)
}

func (r *runner) dump() string {
	var b strings.Builder
	for name, log := range r.logs {
		fmt.Fprintf(&b, "--- %s\n%s\n", name, log)
	}
	return b.String()
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func goEnv(t *testing.T, name string) string {
	t.Helper()
	b, err := exec.Command("go", "env", name).Output()
	if err != nil {
		t.Fatalf("go env %s: %v", name, err)
	}
	return strings.TrimSpace(string(b))
}
