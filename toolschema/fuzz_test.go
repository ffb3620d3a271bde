package toolschema

import (
	"encoding/json"
	"testing"
)

// FuzzGenerate: for any schema bytes the generator returns an error or
// exactly n distinct sets, each valid against the schema. It never panics.
// Seeds live in testdata/fuzz/FuzzGenerate.
func FuzzGenerate(f *testing.F) {
	f.Add([]byte(`{"type":"object","properties":{"a":{"type":"string","pattern":"^x[0-9]{2}$"}},"required":["a"]}`), int64(1))
	f.Fuzz(func(t *testing.T, schema []byte, seed int64) {
		g, err := NewGenerator("fuzz", json.RawMessage(schema), seed)
		if err != nil {
			return
		}
		const n = 3
		sets, err := g.Distinct(n)
		if err != nil {
			return
		}
		if len(sets) != n {
			t.Fatalf("got %d sets, want %d", len(sets), n)
		}
		doc, _ := decodeJSON(schema)
		sch, err := compileSchema(doc, true)
		if err != nil {
			t.Fatal(err)
		}
		seen := map[string]bool{}
		for _, s := range sets {
			v, err := decodeJSON(s)
			if err != nil {
				t.Fatalf("%s: %v", s, err)
			}
			if err := sch.Validate(v); err != nil {
				t.Fatalf("%s does not validate against %s: %v", s, schema, err)
			}
			if seen[string(s)] {
				t.Fatalf("duplicate %s", s)
			}
			seen[string(s)] = true
		}
	})
}
