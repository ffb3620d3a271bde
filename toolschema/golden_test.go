package toolschema

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

var update = flag.Bool("update", false, "rewrite testdata/generate.golden from the current output")

// TestGenerateGolden pins the exact bytes the generator gives for the
// corpus with one seed, so that reorganising the generator cannot change
// the arguments a given --seed sends without this test noticing. A
// deliberate change of the draws rewrites the file with -update.
func TestGenerateGolden(t *testing.T) {
	var out bytes.Buffer
	for _, ct := range loadCorpus(t) {
		g, err := NewGenerator(ct.Name, ct.InputSchema, 42)
		if err != nil {
			t.Fatal(err)
		}
		n := 3
		if want, limited := corpusCardinality[ct.Name]; limited {
			n = min(n, want)
		}
		sets, err := g.Distinct(n)
		var ce *CardinalityError
		if err != nil && !errors.As(err, &ce) {
			t.Fatalf("%s: %v", ct.Name, err)
		}
		fmt.Fprintf(&out, "# %s\n", ct.Name)
		for _, s := range sets {
			fmt.Fprintf(&out, "%s\n", s)
		}
	}
	path := filepath.Join("testdata", "generate.golden")
	if *update {
		if err := os.WriteFile(path, out.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if !bytes.Equal(out.Bytes(), want) {
		t.Errorf("generated arguments differ from %s; run with -update if the change is deliberate", path)
	}
}
