package toolschema

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// corpusCardinality lists corpus tools whose schemas admit fewer than 7
// distinct argument sets, and exactly how many.
var corpusCardinality = map[string]int{
	"list_allowed_directories": 1,
	"read_graph":               1,
	"printEnv":                 1,
	"startElicitation":         1,
	"set_log_level":            3,
	"ping_tool":                1,
	"toggle_features":          4,
}

type corpusTool struct {
	Name        string          `json:"name"`
	InputSchema json.RawMessage `json:"inputSchema"`
}

func loadCorpus(t *testing.T) []corpusTool {
	t.Helper()
	files, err := filepath.Glob("testdata/corpus/*.json")
	if err != nil {
		t.Fatal(err)
	}
	if len(files) < 50 {
		t.Fatalf("corpus has %d schemas, want at least 50", len(files))
	}
	var tools []corpusTool
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var ct corpusTool
		if err := json.Unmarshal(b, &ct); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		tools = append(tools, ct)
	}
	return tools
}

// checkSets asserts n distinct sets, each valid against the schema compiled
// independently of the generator.
func checkSets(t *testing.T, name string, schema json.RawMessage, sets []json.RawMessage, n int) {
	t.Helper()
	if len(sets) != n {
		t.Fatalf("%s: got %d sets, want %d", name, len(sets), n)
	}
	doc, err := decodeJSON(schema)
	if err != nil {
		t.Fatal(err)
	}
	sch, err := compileSchema(doc, true)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, s := range sets {
		v, err := decodeJSON(s)
		if err != nil {
			t.Fatalf("%s: %s: %v", name, s, err)
		}
		if _, ok := v.(map[string]any); !ok {
			t.Errorf("%s: %s is not an object", name, s)
		}
		if err := sch.Validate(v); err != nil {
			t.Errorf("%s: %s does not validate: %v", name, s, err)
		}
		c, _ := canonical(v)
		if seen[string(c)] {
			t.Errorf("%s: duplicate set %s", name, c)
		}
		seen[string(c)] = true
	}
}

func TestCorpusArgCardinality7(t *testing.T) {
	const n = 7 // --arg-cardinality 7
	names := map[string]bool{}
	for _, ct := range loadCorpus(t) {
		t.Run(ct.Name, func(t *testing.T) {
			if names[ct.Name] {
				t.Fatalf("corpus tool name %q used twice", ct.Name)
			}
			names[ct.Name] = true
			g, err := NewGenerator(ct.Name, ct.InputSchema, 42)
			if err != nil {
				t.Fatal(err)
			}
			sets, err := g.Distinct(n)
			if want, limited := corpusCardinality[ct.Name]; limited {
				var ce *CardinalityError
				if !errors.As(err, &ce) || ce.Available != want || ce.Requested != n || ce.Tool != ct.Name {
					t.Fatalf("want CardinalityError{Available: %d}, got %v", want, err)
				}
				sets, err = g.Distinct(want)
				if err != nil {
					t.Fatal(err)
				}
				checkSets(t, ct.Name, ct.InputSchema, sets, want)
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			checkSets(t, ct.Name, ct.InputSchema, sets, n)

			// Repeatable with the same seed, even from a fresh generator.
			g2, _ := NewGenerator(ct.Name, ct.InputSchema, 42)
			again, err := g2.Distinct(n)
			if err != nil {
				t.Fatal(err)
			}
			for i := range sets {
				if !bytes.Equal(sets[i], again[i]) {
					t.Fatalf("seed 42 not repeatable: %s vs %s", sets[i], again[i])
				}
			}
			// Another seed: valid too, and different somewhere.
			g3, _ := NewGenerator(ct.Name, ct.InputSchema, 7)
			other, err := g3.Distinct(n)
			if err != nil {
				t.Fatal(err)
			}
			checkSets(t, ct.Name, ct.InputSchema, other, n)
			same := true
			for i := range sets {
				same = same && bytes.Equal(sets[i], other[i])
			}
			if same {
				t.Errorf("seeds 42 and 7 gave identical sets")
			}
		})
	}
}

// TestCorpusLintClean: the corpus is made of well-formed tools; the lint
// must find nothing in it.
func TestCorpusLintClean(t *testing.T) {
	var raws []json.RawMessage
	files, _ := filepath.Glob("testdata/corpus/*.json")
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		raws = append(raws, b)
	}
	for _, f := range Lint(raws) {
		t.Errorf("%s (%s): %s: %s", f.Tool, files[f.Index], f.Rule, f.Message)
	}
}
