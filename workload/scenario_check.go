package workload

import (
	"errors"
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"strings"
)

// What can be wrong with a scenario file without asking the server: each
// error names the scenario and the step (by name or number, and line).

// The step names a session run gives its own steps; a scenario's steps may
// not take them.
const (
	StepInitialize = "initialize"
	StepDiscover   = "discover"
	StepClose      = "close"
)

// stepKinds are the keys that make a step what it is.
var stepKinds = []string{"list", "call", "ping", "request", "think", "parallel", "repeat"}

// fromPath is one argument a call takes from an earlier step's result.
type fromPath struct {
	arg, step, path string
}

// checker walks a scenario's steps in order, knowing the names seen so
// far (which later steps may take values from) and what each name
// stands for.
type checker struct {
	scenario string
	dir      string
	seen     map[string]string // step name -> its operation, e.g. "tools/call echo"
	kept     map[string]bool   // step names whose results later steps read
	block    string            // "name: " inside a named parallel block, for its unnamed steps
	files    map[string]*dataRows
}

func (f *ScenarioFile) check(dir string) error {
	if len(f.Scenarios) == 0 {
		return errors.New("no scenarios")
	}
	names := map[string]bool{}
	// Steps that name the same data file share its rows and its place in
	// them, as k6's SharedArray is one per name: a file of recorded calls
	// is handed out once over, whichever step draws.
	files := map[string]*dataRows{}
	for i := range f.Scenarios {
		sc := &f.Scenarios[i]
		switch {
		case sc.Name == "":
			return fmt.Errorf("scenario %d has no name", i+1)
		case names[sc.Name]:
			return fmt.Errorf("two scenarios are named %q", sc.Name)
		case sc.Weight < 0:
			return fmt.Errorf("scenario %q has a negative weight", sc.Name)
		case len(sc.Steps) == 0:
			return fmt.Errorf("scenario %q has no steps", sc.Name)
		}
		names[sc.Name] = true
		c := &checker{scenario: sc.Name, dir: dir, seen: map[string]string{}, kept: map[string]bool{}, files: files}
		if err := c.steps(sc.Steps, false); err != nil {
			return err
		}
		sc.kept = c.kept
	}
	return nil
}

// steps checks a list of steps; inParallel says they run at once, so none
// may read another's result and only requests may be among them.
func (c *checker) steps(steps []Step, inParallel bool) error {
	var named []*Step // a parallel block's steps are seen after the block
	for i := range steps {
		s := &steps[i]
		if err := c.step(s, inParallel); err != nil {
			return c.located(s, i, err)
		}
		if !s.isRequest() {
			continue
		}
		if inParallel {
			named = append(named, s)
		} else if err := c.see(s); err != nil {
			return c.located(s, i, err)
		}
	}
	for i, s := range named {
		if err := c.see(s); err != nil {
			return c.located(s, i, err)
		}
	}
	return nil
}

// StepError is what is wrong with one step of a scenario, with where it
// is: the scenario, the step's name or number, and its line. It unwraps
// to the cause (an *UnknownToolError, a *SelectionError, ...).
type StepError struct {
	Scenario string
	Step     string // `step "search" (line 12)` or `step 3 (line 9)`
	Err      error
}

func (e *StepError) Error() string {
	return fmt.Sprintf("scenario %q, %s: %v", e.Scenario, e.Step, e.Err)
}

func (e *StepError) Unwrap() error { return e.Err }

// located says where err is: step i of a scenario's list (the innermost
// step, when steps are nested).
func located(scenario string, s *Step, i int, err error) error {
	var done *StepError
	if errors.As(err, &done) {
		return err
	}
	return &StepError{Scenario: scenario, Step: s.where(i), Err: err}
}

func (c *checker) located(s *Step, i int, err error) error { return located(c.scenario, s, i, err) }

// where names step i for a message: by the name it was given, else by
// its place.
func (s *Step) where(i int) string {
	if s.named {
		return fmt.Sprintf("step %q (line %d)", s.Name, s.line)
	}
	return fmt.Sprintf("step %d (line %d)", i+1, s.line)
}

// isRequest tells the steps that send a request.
func (s *Step) isRequest() bool {
	return s.kind == "list" || s.kind == "call" || s.kind == "ping" || s.kind == "request"
}

// see records a request step's name; a name used twice must stand for the
// same request, since it keys one set of figures.
func (c *checker) see(s *Step) error {
	op := s.operation()
	if prev, ok := c.seen[s.Name]; ok && prev != op {
		return fmt.Errorf("the name %q is already used for %s", s.Name, prev)
	}
	c.seen[s.Name] = op
	return nil
}

// operation is what a request step sends, as people write it.
func (s *Step) operation() string {
	switch s.kind {
	case "list":
		return "tools/list"
	case "ping":
		return "ping"
	case "request":
		return requestLabel(s.Request.Method, s.Request.URI+s.Request.Prompt)
	}
	if s.Call.Tool == "" {
		return "tools/call *"
	}
	return "tools/call " + s.Call.Tool
}

func (c *checker) step(s *Step, inParallel bool) error {
	if err := s.decideKind(); err != nil {
		return err
	}
	s.named = s.Name != ""
	if s.Name == "" && s.isRequest() {
		s.Name = c.block + s.operation()
	}
	switch {
	case len(s.ServerRequests) > 0 && !s.isRequest():
		return fmt.Errorf("server_requests notes what the server asked during a request; a %s step sends none", s.kind)
	case strings.Contains(s.Name, "."):
		return fmt.Errorf("a step name may not contain a dot (from reads step.path)")
	case s.Name == StepInitialize || s.Name == StepDiscover || s.Name == StepClose:
		return fmt.Errorf("%q names the session's own step; choose another name", s.Name)
	case s.Expect != nil && !s.isRequest():
		return fmt.Errorf("expect goes with a list, call, ping or request step")
	case inParallel && !s.isRequest():
		return fmt.Errorf("a parallel block holds list, call, ping and request steps only")
	}
	if s.Expect != nil {
		if err := s.Expect.check(); err != nil {
			return err
		}
	}
	switch s.kind {
	case "call":
		return c.call(s, inParallel)
	case "request":
		if !IsSurfaceMethod(s.Request.Method) {
			return fmt.Errorf("a request step's method is one of resources/list, resources/templates/list, resources/read, prompts/list, prompts/get, completion/complete, not %q (tools have list and call steps)", s.Request.Method)
		}
		if err := checkSurface(s.Request.entry()); err != nil {
			return err
		}
		_, err := givenSurface(s.Request.entry())
		return err
	case "think":
		return s.Think.check()
	case "parallel":
		if len(s.Parallel) == 0 {
			return errors.New("an empty parallel block")
		}
		// A named block labels its unnamed calls, so they are reported
		// under the name the file gave ("both: tools/call echo").
		outer := c.block
		if s.named {
			c.block = s.Name + ": "
		}
		defer func() { c.block = outer }()
		return c.steps(s.Parallel, true)
	case "repeat":
		if s.Repeat.Times < 1 || len(s.Repeat.Steps) == 0 {
			return errors.New("repeat needs times of at least 1 and steps")
		}
		return c.steps(s.Repeat.Steps, false)
	}
	return nil
}

// decideKind finds the one key that says what the step is.
func (s *Step) decideKind() error {
	if s.kind != "" {
		return nil
	}
	var kinds []string
	for _, k := range s.keys {
		for _, want := range stepKinds {
			if k == want {
				kinds = append(kinds, k)
			}
		}
	}
	if len(kinds) != 1 {
		return fmt.Errorf("a step is exactly one of %s; this one has %d", strings.Join(stepKinds, ", "), len(kinds))
	}
	s.kind = kinds[0]
	switch {
	case s.kind == "list" && s.List == nil:
		s.List = &struct{}{}
	case s.kind == "ping" && s.Ping == nil:
		s.Ping = &struct{}{}
	case s.kind == "call" && s.Call == nil, s.kind == "request" && s.Request == nil, s.kind == "think" && s.Think == nil, s.kind == "repeat" && s.Repeat == nil:
		return fmt.Errorf("%s needs a value", s.kind)
	}
	return nil
}

// call checks a call's arguments: its data file, and the steps it takes
// values from, which must be earlier ones (outside its parallel block).
func (c *checker) call(s *Step, inParallel bool) error {
	cs := s.Call
	if cs.Cardinality < 0 {
		return errors.New("cardinality must not be negative")
	}
	if cs.Tool == "" && !cs.GenArgs {
		return errors.New("a call names its tool, or generates arguments for any tool (gen_args: true)")
	}
	if d := cs.Data; d != nil {
		if d.File == "" {
			return errors.New("data needs a file")
		}
		if d.Order != "" && d.Order != "sequential" && d.Order != "random" {
			return fmt.Errorf("data order is sequential or random, not %q", d.Order)
		}
		file := d.File
		if !filepath.IsAbs(file) {
			file = filepath.Join(c.dir, file)
		}
		if d.rows = c.files[file]; d.rows == nil {
			rows, err := readRows(file)
			if err != nil {
				return fmt.Errorf("data: %w", err)
			}
			d.rows, c.files[file] = rows, rows
		}
	}
	for _, arg := range slices.Sorted(maps.Keys(cs.From)) {
		ref := cs.From[arg]
		step, path, ok := strings.Cut(ref, ".")
		if !ok || step == "" || path == "" {
			return fmt.Errorf("from %s: %q is not step.path", arg, ref)
		}
		if _, seen := c.seen[step]; !seen {
			return fmt.Errorf("from %s: no step named %q comes before this one", arg, step)
		}
		if err := checkPath(path); err != nil {
			return fmt.Errorf("from %s: %w", arg, err)
		}
		c.kept[step] = true
		s.from = append(s.from, fromPath{arg: arg, step: step, path: path})
	}
	return nil
}

// check finds a pause that is not exactly one of its forms.
func (t *Think) check() error {
	if len(t.set) != 1 {
		return errors.New("think is one of fixed, uniform or exponential")
	}
	if t.set["uniform"] && (len(t.Uniform) != 2 || t.Uniform[0] > t.Uniform[1]) {
		return errors.New("uniform takes two durations, the shorter first")
	}
	return nil
}
