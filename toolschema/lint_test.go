package toolschema

import (
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"
)

func readToolList(t *testing.T, path string) []json.RawMessage {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var tools []json.RawMessage
	if err := json.Unmarshal(b, &tools); err != nil {
		t.Fatal(err)
	}
	return tools
}

// TestLintDefects: every planted defect is found, with its rule and index,
// and nothing else is reported.
func TestLintDefects(t *testing.T) {
	tools := readToolList(t, "testdata/lint/defects.json")
	b, err := os.ReadFile("testdata/lint/defects.expected.json")
	if err != nil {
		t.Fatal(err)
	}
	var expected [][2]any
	if err := json.Unmarshal(b, &expected); err != nil {
		t.Fatal(err)
	}
	var want, got []string
	for _, e := range expected {
		want = append(want, fmt.Sprintf("%v:%v", e[0], e[1]))
	}
	findings := Lint(tools)
	for _, f := range findings {
		got = append(got, fmt.Sprintf("%d:%s", f.Index, f.Rule))
		if f.Message == "" {
			t.Errorf("finding %+v has no message", f)
		}
		var name string
		if f.Index < len(tools) {
			_ = json.Unmarshal(tools[f.Index], &struct{ Name *string }{&name})
		}
		if f.Tool != name {
			t.Errorf("finding %+v names tool %q, want %q", f, f.Tool, name)
		}
	}
	slices.Sort(want)
	slices.Sort(got)
	if !slices.Equal(got, want) {
		t.Errorf("findings\n got %v\nwant %v", got, want)
		for _, f := range findings {
			t.Logf("%+v", f)
		}
	}
	rules := map[string]bool{}
	for _, f := range findings {
		rules[f.Rule] = true
	}
	for _, r := range []string{RuleInvalidTool, RuleNameLength, RuleNameChars, RuleNameDuplicate, RuleInputSchemaMissing,
		RuleInputSchemaType, RuleInputSchemaInvalid, RuleOutputSchemaType, RuleRequiredUndefined, RuleDescriptionLength,
		RuleHeaderInvalid, RuleHeaderType, RuleHeaderUnreachable, RuleHeaderDuplicate} {
		if !rules[r] {
			t.Errorf("no planted defect for rule %s", r)
		}
	}
}

func TestLintClean(t *testing.T) {
	for _, f := range Lint(readToolList(t, "testdata/lint/clean.json")) {
		t.Errorf("unexpected finding %+v", f)
	}
}

func TestFindingJSON(t *testing.T) {
	b, _ := json.Marshal(Finding{Tool: "t", Index: 2, Rule: RuleNameChars, Message: "m"})
	if string(b) != `{"tool":"t","index":2,"rule":"name_chars","message":"m"}` {
		t.Errorf("Finding JSON = %s", b)
	}
	if RuleSeverity(RuleDescriptionLength) != "warning" || RuleSeverity(RuleHeaderType) != "error" {
		t.Error("severities")
	}
}

func TestCompactionSavings(t *testing.T) {
	tool := `{"name":"t","description":"kept: tool level","inputSchema":{"type":"object","title":"Args","$comment":"c",
		"properties":{"title":{"type":"string","description":"a property called title stays","default":"x"},
		"n":{"type":"integer","examples":[1,2],"markdownDescription":"**n**"},
		"e":{"enum":[{"description":"values are data"}]}}}}`
	compacted := `{"type":"object","properties":{"title":{"type":"string"},"n":{"type":"integer"},"e":{"enum":[{"description":"values are data"}]}}}`
	var tv struct{ InputSchema json.RawMessage }
	_ = json.Unmarshal([]byte(tool), &tv)
	var orig, comp any
	_ = json.Unmarshal(tv.InputSchema, &orig)
	_ = json.Unmarshal([]byte(compacted), &comp)
	ob, _ := canonical(orig)
	cb, _ := canonical(comp)
	want := len(ob) - len(cb)
	if got := CompactionSavings(json.RawMessage(tool)); got != want || got <= 0 {
		t.Errorf("CompactionSavings = %d, want %d", got, want)
	}
	if got := CompactionSavings(json.RawMessage(`{"name":"t"}`)); got != 0 {
		t.Errorf("no inputSchema: %d, want 0", got)
	}
	if strings.Contains(string(cb), "Args") {
		t.Error("fixture wrong")
	}
}
