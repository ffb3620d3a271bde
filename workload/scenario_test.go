package workload

import (
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestParseScenarios reads every form a step can take, YAML and JSON.
func TestParseScenarios(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "rows.csv"), []byte("message,n\nhello,1\nworld,2\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	f, err := ParseScenarios([]byte(`
scenarios:
  - name: agent
    weight: 2
    steps:
      - list
      - ping:
      - name: search
        call: {tool: echo, args: {message: hi}}
        expect: {present: [structuredContent.message], equals: {structuredContent.message: hi}}
      - think: 50ms
      - think: {uniform: [10ms, 20ms]}
      - think: {exponential: 1s}
      - parallel:
          - name: a
            call: {tool: echo, from: {message: search.structuredContent.message}}
          - call: {tool: echo, data: {file: rows.csv, order: random}}
      - repeat: {times: 2, steps: [ping, {call: {gen_args: true, cardinality: 3}}]}
`), dir)
	if err != nil {
		t.Fatal(err)
	}
	steps := f.Scenarios[0].Steps
	var kinds []string
	for _, s := range steps {
		kinds = append(kinds, s.kind+":"+s.Name)
	}
	if got := strings.Join(kinds, ","); got != "list:tools/list,ping:ping,call:search,think:,think:,think:,parallel:,repeat:" {
		t.Fatalf("steps %s", got)
	}
	if !f.Scenarios[0].kept["search"] || len(f.Scenarios[0].kept) != 1 {
		t.Errorf("kept %v", f.Scenarios[0].kept)
	}
	par := steps[6].Parallel
	if par[1].Name != "tools/call echo" || len(par[1].Call.Data.rows.rows) != 2 || string(par[1].Call.Data.rows.rows[1]["message"]) != `"world"` {
		t.Errorf("parallel %+v", par[1])
	}
	if steps[7].Repeat.Steps[1].Name != "tools/call *" {
		t.Errorf("repeat %+v", steps[7].Repeat.Steps)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for i := 0; i < 100; i++ {
		if d := steps[4].Think.draw(rng); d < 10*time.Millisecond || d > 20*time.Millisecond {
			t.Fatalf("uniform draw %v", d)
		}
	}
	if d := steps[3].Think.draw(rng); d != 50*time.Millisecond {
		t.Errorf("fixed draw %v", d)
	}

	j, err := ParseScenarios([]byte(`{"scenarios":[{"name":"j","steps":["ping",{"call":{"tool":"echo","args":{"message":"x"}}}]}]}`), dir)
	if err != nil || len(j.Scenarios[0].Steps) != 2 {
		t.Fatalf("JSON: %+v %v", j, err)
	}
}

// TestScenarioErrors: each mistake gets one line that says where it is.
func TestScenarioErrors(t *testing.T) {
	for in, want := range map[string]string{
		``:                             "no scenarios",
		`scenarios: []`:                "no scenarios",
		`scenarios: [{steps: [ping]}]`: "scenario 1 has no name",
		`scenarios: [{name: a}]`:       `scenario "a" has no steps`,
		`scenarios: [{name: a, steps: [ping]}, {name: a, steps: [ping]}]`:                                       `two scenarios are named "a"`,
		`scenarios: [{name: a, weight: -1, steps: [ping]}]`:                                                     `scenario "a" has a negative weight`,
		`scenarios: [{name: a, steps: [{request: {method: tools/call}}]}]`:                                      `scenario "a", step 1 (line 1): a request step's method is one of resources/list, resources/templates/list, resources/read, prompts/list, prompts/get, completion/complete, not "tools/call" (tools have list and call steps)`,
		`scenarios: [{name: a, steps: [{request: {method: resources/read}}]}]`:                                  `scenario "a", step 1 (line 1): resources/read needs a uri (or generated arguments, which read the URIs resources/list gives)`,
		`scenarios: [{name: a, steps: [{request: {method: prompts/list, prompt: p}}]}]`:                         `scenario "a", step 1 (line 1): prompts/list takes no uri, prompt, args or generated arguments`,
		`scenarios: [{name: a, steps: [jump]}]`:                                                                 `line 1: a step is a list, call, ping, request, think, parallel or repeat, not "jump"`,
		`scenarios: [{name: a, bogus: 1, steps: [ping]}]`:                                                       "line 1: a scenario has no key \"bogus\" (its keys: name, weight, steps)",
		`scenarios: [{name: a, steps: [{ping: {}, list: {}}]}]`:                                                 `scenario "a", step 1 (line 1): a step is exactly one of list, call, ping, request, think, parallel, repeat; this one has 2`,
		`scenarios: [{name: a, steps: [{call: {}}]}]`:                                                           `scenario "a", step 1 (line 1): a call names its tool, or generates arguments for any tool (gen_args: true)`,
		`scenarios: [{name: a, steps: [{name: x.y, ping: {}}]}]`:                                                `scenario "a", step "x.y" (line 1): a step name may not contain a dot (from reads step.path)`,
		`scenarios: [{name: a, steps: [{name: close, ping: {}}]}]`:                                              `scenario "a", step "close" (line 1): "close" names the session's own step; choose another name`,
		`scenarios: [{name: a, steps: [{think: 1s, expect: {present: [x]}}]}]`:                                  `scenario "a", step 1 (line 1): expect goes with a list, call, ping or request step`,
		`scenarios: [{name: a, steps: [{parallel: [{think: 1s}]}]}]`:                                            `scenario "a", step 1 (line 1): a parallel block holds list, call, ping and request steps only`,
		`scenarios: [{name: a, steps: [{think: {fixed: 1s, exponential: 2s}}]}]`:                                `scenario "a", step 1 (line 1): think is one of fixed, uniform or exponential`,
		`scenarios: [{name: a, steps: [{think: 1s, server_requests: [ping]}]}]`:                                 `scenario "a", step 1 (line 1): server_requests notes what the server asked during a request; a think step sends none`,
		`scenarios: [{name: a, steps: [{think: {uniform: [2s, 1s]}}]}]`:                                         `scenario "a", step 1 (line 1): uniform takes two durations, the shorter first`,
		`scenarios: [{name: a, steps: [{think: soon}]}]`:                                                        `line 1: "soon" is not a duration such as 50ms or 2s`,
		`scenarios: [{name: a, steps: [{repeat: {times: 0, steps: [ping]}}]}]`:                                  `scenario "a", step 1 (line 1): repeat needs times of at least 1 and steps`,
		`scenarios: [{name: a, steps: [{call: {tool: e, from: {m: later.x}}}]}]`:                                `scenario "a", step 1 (line 1): from m: no step named "later" comes before this one`,
		`scenarios: [{name: a, steps: [{call: {tool: e, from: {m: nodot}}}]}]`:                                  `scenario "a", step 1 (line 1): from m: "nodot" is not step.path`,
		`scenarios: [{name: a, steps: [{call: {tool: e, data: {file: none.jsonl}}}]}]`:                          `scenario "a", step 1 (line 1): data: open DIR/none.jsonl: no such file or directory`,
		`scenarios: [{name: a, steps: [{name: x, ping: {}}, {name: x, list: {}}]}]`:                             `scenario "a", step "x" (line 1): the name "x" is already used for ping`,
		`scenarios: [{name: a, steps: [{parallel: [{name: p, ping: {}}, {call: {tool: e, from: {m: p.x}}}]}]}]`: `scenario "a", step 2 (line 1): from m: no step named "p" comes before this one`,
		// In the file's own terms, not Go's.
		"scenarios:\n  - name: a\n    steps:\n      - call: {tool: echo, args: [1, 2]}\n":  "line 4: expected a mapping of names to values ({message: hi}), found a list",
		"scenarios:\n  - name: a\n    steps:\n      - call: {tool: echo, argz: {}}\n":      `line 4: a call has no key "argz" (its keys: tool, args, gen_args, cardinality, data, from)`,
		"scenarios:\n  - name: a\n    steps:\n      - nmae: x\n        ping:\n":            `line 4: a step has no key "nmae" (its keys: name, list, call, ping, request, think, parallel, repeat, expect, server_requests)`,
		"scenarios:\n  - name: a\n    steps: ping\n":                                       "line 3: expected a list of steps (- list, - call: {...}), found text (ping)",
		"scenarios:\n  - name: a\n    steps:\n      - repeat: {times: x, steps: [ping]}\n": "line 4: expected a whole number, found text (x)",
	} {
		dir := t.TempDir()
		_, err := ParseScenarios([]byte(in), dir)
		if err == nil || strings.ReplaceAll(err.Error(), dir, "DIR") != want {
			t.Errorf("%s:\n got %v\nwant %s", in, err, want)
		}
	}
}

// TestDataRows: JSON Lines rows in order, shared by every caller and
// wrapping round; a line that is not an object is refused with its number.
func TestDataRows(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "rows.jsonl")
	os.WriteFile(file, []byte(`{"q":1}`+"\n\n"+`{"q":2}`+"\n"), 0o600)
	d, err := readRows(file)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for range 3 {
		got = append(got, string(d.take(false, nil)["q"]))
	}
	if strings.Join(got, ",") != "1,2,1" {
		t.Fatalf("rows %v", got)
	}
	os.WriteFile(file, []byte(`{"q":1}`+"\n[2]\n"), 0o600)
	if _, err := readRows(file); err == nil || !strings.HasSuffix(err.Error(), "line 2 is not a JSON object") {
		t.Fatalf("bad line: %v", err)
	}
}

// TestExpectHolds: is_error, present and equals against a result.
func TestExpectHolds(t *testing.T) {
	yes, no := true, false
	res := []byte(`{"content":[{"type":"text","text":"hi"}],"structuredContent":{"n":3,"items":[{"id":"a"}]}}`)
	for _, c := range []struct {
		e         Expect
		toolError bool
		want      string
	}{
		{Expect{Present: []string{"structuredContent.items.0.id", "content.0.text"}}, false, ""},
		{Expect{Present: []string{"structuredContent.missing"}}, false, "expect: structuredContent.missing is absent"},
		{Expect{Equals: map[string]any{"structuredContent.n": 3, "structuredContent.items.0.id": "a"}}, false, ""},
		{Expect{Equals: map[string]any{"structuredContent.n": 4}}, false, "expect: structuredContent.n is 3"},
		{Expect{IsError: &yes}, true, ""},
		{Expect{IsError: &yes}, false, "expect: isError is false, expected true"},
		{Expect{IsError: &no}, true, "expect: isError is true, expected false"},
	} {
		err := c.e.holds(res, c.toolError)
		if got := ""; err != nil {
			got = err.Error()
			if got != c.want {
				t.Errorf("%+v: %s, want %s", c.e, got, c.want)
			}
		} else if c.want != "" {
			t.Errorf("%+v: held, want %s", c.e, c.want)
		}
	}
}
