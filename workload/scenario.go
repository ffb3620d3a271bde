package workload

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"gopkg.in/yaml.v3"
)

// A scenario file describes sessions the way an LLM client runs them: open
// a session, list the tools, call some in order with pauses for the model
// to think, call several at once, close the session. It is YAML (JSON is
// YAML too):
//
//	scenarios:
//	  - name: edit
//	    weight: 3
//	    steps:
//	      - list
//	      - name: search
//	        call: {tool: search, args: {query: TODO}}
//	        expect: {present: [structuredContent.matches]}
//	      - think: {exponential: 2s}
//	      - name: read
//	        call: {tool: read_file, from: {path: search.structuredContent.matches.0.path}}
//	      - parallel:
//	          - call: {tool: lint}
//	          - call: {tool: test}
//	      - repeat: {times: 3, steps: [ping]}
//
// docs/scenarios.md describes every field.

// ScenarioFile is a parsed scenario file: its scenarios, and the data
// files their steps read, loaded.
type ScenarioFile struct {
	Scenarios []Scenario `yaml:"scenarios"`
	// Stages shape the load as --stages does (users), RateStages as
	// --rate-stages (sessions per second): k6's list of durations and
	// targets. The flags win over the file.
	Stages     []FileStage `yaml:"stages"`
	RateStages []FileStage `yaml:"rate_stages"`
	// Name is the file's base name, for reports.
	Name string `yaml:"-"`
}

// Scenario is one kind of session, chosen by weight.
type Scenario struct {
	Name   string          `yaml:"name"`
	Weight float64         `yaml:"weight"`
	Steps  []Step          `yaml:"steps"`
	kept   map[string]bool // the steps whose results later steps read
}

// Step is one step of a scenario: exactly one of List, Call, Ping,
// Request, Think, Parallel and Repeat. A list, call, ping or request step
// is a request (a listing one per page); its Name keys its figures and lets later steps
// pick values from its result.
type Step struct {
	Name     string       `yaml:"name"`
	List     *struct{}    `yaml:"list"`
	Call     *CallStep    `yaml:"call"`
	Ping     *struct{}    `yaml:"ping"`
	Request  *RequestStep `yaml:"request"`
	Think    *Think       `yaml:"think"`
	Parallel []Step       `yaml:"parallel"`
	Repeat   *Repeat      `yaml:"repeat"`
	Expect   *Expect      `yaml:"expect"`
	// ServerRequests notes the requests the server sent the client while
	// this step's request was in flight when it was recorded
	// (sampling/createMessage, elicitation/create, roots/list, ping): a
	// note for the reader. The replay answers whatever the server sends
	// as --client-requests says, as any run does.
	ServerRequests []string   `yaml:"server_requests"`
	line           int        // where the step is in the file, for messages
	named          bool       // the file gave its name
	kind           string     // which of the kinds above it is
	keys           []string   // the keys it was written with
	from           []fromPath // Call.From parsed
}

// RequestStep is a request of the rest of the MCP surface (surface.go):
// resources/list, resources/templates/list, resources/read with its URI,
// prompts/list, prompts/get with its prompt and args, completion/complete
// with a prompt (or a resource template's URI) and, in args, the argument
// and its value so far.
type RequestStep struct {
	Method string            `yaml:"method"`
	URI    string            `yaml:"uri"`
	Prompt string            `yaml:"prompt"`
	Args   map[string]string `yaml:"args"`
}

// entry is the step as a mix entry, which says what is wrong with it and
// what it sends.
func (r *RequestStep) entry() MixEntry {
	m := MixEntry{Method: r.Method, URI: r.URI, Prompt: r.Prompt}
	if len(r.Args) > 0 {
		m.Args, _ = json.Marshal(r.Args)
	}
	return m
}

// CallStep is a tools/call. Its arguments are, in order of precedence:
// values From earlier steps' results, fields of a Data row, Args; or,
// with GenArgs, a set generated from the tool's inputSchema under those.
// A call that names no Tool generates arguments for any tool the
// selection admits (the same rule as generated arguments on the command
// line); naming a tool is consent to call it.
type CallStep struct {
	Tool        string         `yaml:"tool"`
	Args        map[string]any `yaml:"args"`
	GenArgs     bool           `yaml:"gen_args"`
	Cardinality int            `yaml:"cardinality"`
	Data        *DataSource    `yaml:"data"`
	// From maps an argument to "step.path": the value at path (a
	// gjson path, e.g. structuredContent.items.0.id) in the result of
	// the named earlier step of the same session.
	From map[string]string `yaml:"from"`
}

// DataSource is a file of argument rows: JSON Lines (one object a line)
// or CSV (a header line naming the fields; values are strings), read in
// order (each call takes the next row, all users together, wrapping
// round) or at random.
type DataSource struct {
	File  string `yaml:"file"`
	Order string `yaml:"order"` // "sequential" (default) or "random"
	rows  *dataRows
}

// Repeat runs its steps Times times over.
type Repeat struct {
	Times int    `yaml:"times"`
	Steps []Step `yaml:"steps"`
}

// Expect is what a step's answer must show; when it does not, the step
// counts as an expect_failed error.
type Expect struct {
	// IsError, when set, is what the answer's isError must be. With true,
	// a tool error is the expected outcome and not an error.
	IsError *bool `yaml:"is_error"`
	// Present lists paths (gjson syntax, in the result) that must exist.
	Present []string `yaml:"present"`
	// Equals maps paths to the values they must hold.
	Equals map[string]any `yaml:"equals"`
}

// Width is the most requests a session of f has in flight at once (its
// largest parallel block): the connections each session needs.
func (f *ScenarioFile) Width() int {
	var width func([]Step) int
	width = func(steps []Step) int {
		w := 1
		for _, s := range steps {
			w = max(w, len(s.Parallel))
			if s.Repeat != nil {
				w = max(w, width(s.Repeat.Steps))
			}
		}
		return w
	}
	w := 1
	for _, sc := range f.Scenarios {
		w = max(w, width(sc.Steps))
	}
	return w
}

// ReadScenarioFile reads and checks a scenario file and the data files its
// steps name (relative to its own directory).
func ReadScenarioFile(path string) (*ScenarioFile, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	f, err := ParseScenarios(b, filepath.Dir(path))
	if err != nil {
		return nil, err
	}
	f.Name = filepath.Base(path)
	return f, nil
}

// ParseScenarios reads a scenario file's contents; data files are found
// under dir. Its errors say where in the contents; the caller says which
// file.
func ParseScenarios(b []byte, dir string) (*ScenarioFile, error) {
	dec := yaml.NewDecoder(bytes.NewReader(b))
	dec.KnownFields(true)
	var f ScenarioFile
	if err := dec.Decode(&f); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, errors.New("no scenarios")
		}
		var te *yaml.TypeError
		if errors.As(err, &te) {
			msgs := make([]string, len(te.Errors))
			for i, m := range te.Errors {
				msgs[i] = fileTerms(m)
			}
			return nil, errors.New(strings.Join(msgs, "; "))
		}
		return nil, errors.New(strings.TrimPrefix(err.Error(), "yaml: "))
	}
	if err := f.check(dir); err != nil {
		return nil, err
	}
	return &f, nil
}

// UnmarshalYAML reads a step, which may be written as a bare word for the
// steps that need nothing more ("- list", "- ping"), and notes which keys
// it has so that "ping:" with no value still counts as a ping.
func (s *Step) UnmarshalYAML(n *yaml.Node) error {
	s.line = n.Line
	if n.Kind == yaml.ScalarNode {
		switch n.Value {
		case "list":
			s.List, s.kind = &struct{}{}, "list"
		case "ping":
			s.Ping, s.kind = &struct{}{}, "ping"
		default:
			return fmt.Errorf("line %d: a step is a list, call, ping, request, think, parallel or repeat, not %q", n.Line, n.Value)
		}
		return nil
	}
	type plain Step // no UnmarshalYAML: the fields decode as usual
	if err := knownKeys(n, s, "a step"); err != nil {
		return err
	}
	if err := n.Decode((*plain)(s)); err != nil {
		return err
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == "call" {
			if err := knownKeys(n.Content[i+1], &CallStep{}, "a call"); err != nil {
				return err
			}
		}
	}
	s.line = n.Line
	for i := 0; i+1 < len(n.Content); i += 2 {
		s.keys = append(s.keys, n.Content[i].Value)
	}
	return nil
}

// Think is a pause in a session, a model thinking: Fixed, Uniform between
// two durations, or Exponential with the given mean. A bare duration
// ("think: 50ms") is fixed.
type Think struct {
	Fixed       Duration   `yaml:"fixed"`
	Uniform     []Duration `yaml:"uniform"`
	Exponential Duration   `yaml:"exponential"`
	set         map[string]bool
}

// UnmarshalYAML reads a bare duration as a fixed pause.
func (t *Think) UnmarshalYAML(n *yaml.Node) error {
	if n.Kind == yaml.ScalarNode {
		t.set = map[string]bool{"fixed": true}
		return n.Decode(&t.Fixed)
	}
	type plain Think
	if err := n.Decode((*plain)(t)); err != nil {
		return err
	}
	t.set = map[string]bool{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		t.set[n.Content[i].Value] = true
	}
	return nil
}

// Duration is a time.Duration written as Go writes one ("50ms", "2s").
type Duration time.Duration

// UnmarshalYAML parses a duration.
func (d *Duration) UnmarshalYAML(n *yaml.Node) error {
	v, err := time.ParseDuration(n.Value)
	if err != nil || v < 0 {
		return fmt.Errorf("line %d: %q is not a duration such as 50ms or 2s", n.Line, n.Value)
	}
	*d = Duration(v)
	return nil
}
