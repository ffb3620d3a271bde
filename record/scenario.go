package record

import (
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"strings"
	"time"

	"gopkg.in/yaml.v3"
)

// minThink is the shortest gap between an answer and the next request
// that is written as a pause: shorter ones are the client's own work.
const minThink = 5 * time.Millisecond

// Redacted replaces the argument values a --redact path names.
const Redacted = "REDACTED"

// file, scenario and step are the scenario file's shape (docs/scenarios.md)
// as the recorder writes it.
type file struct {
	Scenarios []scenario `yaml:"scenarios"`
}

type scenario struct {
	Name  string `yaml:"name"`
	Steps []step `yaml:"steps"`
}

type step struct {
	List     *struct{}    `yaml:"list,omitempty"`
	Ping     *struct{}    `yaml:"ping,omitempty"`
	Call     *callStep    `yaml:"call,omitempty"`
	Request  *requestStep `yaml:"request,omitempty"`
	Think    string       `yaml:"think,omitempty"`
	Parallel []step       `yaml:"parallel,omitempty"`
	// ServerRequests notes what the server asked the client while the
	// step was in flight (workload.Step's server_requests).
	ServerRequests []string `yaml:"server_requests,omitempty"`
}

type callStep struct {
	Tool string         `yaml:"tool"`
	Args map[string]any `yaml:"args,omitempty"`
	Data *dataRef       `yaml:"data,omitempty"`
}

type requestStep struct {
	Method string            `yaml:"method"`
	URI    string            `yaml:"uri,omitempty"`
	Prompt string            `yaml:"prompt,omitempty"`
	Args   map[string]string `yaml:"args,omitempty"`
}

// Steps turns a session's calls into steps: requests that overlapped in
// time become a parallel block, a gap of at least minThink between an
// answer and the next request a think step. The handshake is left out
// (a replayed session makes its own), and so are a listing's later pages
// (a list step follows them) and methods a scenario cannot send.
func steps(calls []Call, redact []string) []step {
	calls = slices.Clone(calls)
	slices.SortStableFunc(calls, func(a, b Call) int { return a.Sent.Compare(b.Sent) })
	var out []step
	var group []step
	var groupEnd time.Time
	flush := func() {
		switch len(group) {
		case 0:
		case 1:
			out = append(out, group[0])
		default:
			out = append(out, step{Parallel: group})
		}
		group = nil
	}
	for _, c := range calls {
		st, ok := stepOf(c, redact)
		if !ok {
			continue
		}
		st.ServerRequests = c.ServerRequests
		if len(group) > 0 && c.Sent.Before(groupEnd) {
			group = append(group, st) // sent before the others were answered
			groupEnd = later(groupEnd, c.Answer)
			continue
		}
		flush()
		if !groupEnd.IsZero() { // the pause since the last answer
			if gap := c.Sent.Sub(groupEnd); gap >= minThink {
				out = append(out, step{Think: gap.Round(time.Millisecond).String()})
			}
		}
		group, groupEnd = []step{st}, c.Answer
	}
	flush()
	return out
}

func later(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}

// stepOf is the step that sends c again, if a scenario can.
func stepOf(c Call, redact []string) (step, bool) {
	var p struct {
		Name      string          `json:"name"`
		URI       string          `json:"uri"`
		Cursor    string          `json:"cursor"`
		Arguments json.RawMessage `json:"arguments"`
		Ref       struct {
			Type, Name, URI string
		} `json:"ref"`
		Argument struct {
			Name, Value string
		} `json:"argument"`
	}
	_ = json.Unmarshal(c.Params, &p)
	if p.Cursor != "" {
		return step{}, false // a later page: the list step pages itself
	}
	switch c.Method {
	case "tools/list":
		return step{List: &struct{}{}}, true
	case "ping":
		return step{Ping: &struct{}{}}, true
	case "tools/call":
		var args map[string]any
		_ = json.Unmarshal(p.Arguments, &args)
		scrub(args, redact)
		return step{Call: &callStep{Tool: p.Name, Args: args}}, true
	case "resources/list", "resources/templates/list", "prompts/list":
		return step{Request: &requestStep{Method: c.Method}}, true
	case "resources/read":
		return step{Request: &requestStep{Method: c.Method, URI: p.URI}}, true
	case "prompts/get":
		var args map[string]string
		_ = json.Unmarshal(p.Arguments, &args)
		for _, r := range redact {
			if _, ok := args[r]; ok {
				args[r] = Redacted
			}
		}
		return step{Request: &requestStep{Method: c.Method, Prompt: p.Name, Args: args}}, true
	case "completion/complete":
		r := &requestStep{Method: c.Method, Prompt: p.Ref.Name, URI: p.Ref.URI, Args: map[string]string{p.Argument.Name: p.Argument.Value}}
		return step{Request: r}, true
	}
	return step{}, false
}

// scrub replaces the values at the dotted paths in redact ("token",
// "auth.key") with Redacted.
func scrub(args map[string]any, redact []string) {
	for _, path := range redact {
		keys := strings.Split(path, ".")
		m := args
		for i, k := range keys {
			v, ok := m[k]
			if !ok {
				break
			}
			if i == len(keys)-1 {
				m[k] = Redacted
				break
			}
			if m, ok = v.(map[string]any); !ok {
				break
			}
		}
	}
}

// Write writes sessions as a scenario file at path, one scenario each
// (session-1, session-2, ...), and beside it the data files of the tools
// called with varying arguments (pool); a session with no step to replay
// is left out.
func Write(path string, sessions [][]Call, redact []string) (int, error) {
	var f file
	for _, calls := range sessions {
		if st := steps(calls, redact); len(st) > 0 {
			f.Scenarios = append(f.Scenarios, scenario{Name: fmt.Sprintf("session-%d", len(f.Scenarios)+1), Steps: st})
		}
	}
	if len(f.Scenarios) == 0 {
		return 0, nil
	}
	data, err := pool(path, f.Scenarios)
	if err != nil {
		return 0, err
	}
	b, err := yaml.Marshal(&f)
	if err != nil {
		return 0, err
	}
	if err := writeData(path, data); err != nil {
		return 0, err
	}
	return len(f.Scenarios), os.WriteFile(path, b, 0o600)
}
