package workload

import (
	"encoding/json"
	"errors"
	"testing"

	"github.com/mcpbench/mcpbench/toolschema"
)

// A worker walks the schema only for content it has not just found
// conforming: the same bytes again take the last verdict, anything else
// (other bytes, another tool, content after a violation) is validated.
func TestRepeatedContentIsValidatedOnce(t *testing.T) {
	walks := 0
	broken := errors.New("broken")
	v := Validator(func(tool string, structured json.RawMessage) error {
		walks++
		if string(structured) == `{"n":"x"}` {
			return broken
		}
		return nil
	})
	var c lastConforming
	steps := []struct {
		tool, content string
		walked        bool
		err           error
	}{
		{"echo", `{"n":1}`, true, nil},
		{"echo", `{"n":1}`, false, nil},
		{"echo", `{"n":2}`, true, nil},
		{"echo", `{"n":"x"}`, true, broken},
		{"echo", `{"n":"x"}`, true, broken}, // a violation is never kept
		{"echo", `{"n":2}`, false, nil},
		{"other", `{"n":2}`, true, nil}, // same bytes, another schema
		{"echo", `{"n":2}`, true, nil},
	}
	for i, s := range steps {
		before := walks
		if err := c.check(v, s.tool, []byte(s.content)); !errors.Is(err, s.err) {
			t.Fatalf("step %d (%s %s): %v, want %v", i, s.tool, s.content, err, s.err)
		}
		if walked := walks > before; walked != s.walked {
			t.Errorf("step %d (%s %s): schema walked %v, want %v", i, s.tool, s.content, walked, s.walked)
		}
	}
	// Content past the bound is validated each time, not copied.
	big := make([]byte, conformMax+1)
	before := walks
	for range 2 {
		_ = c.check(v, "echo", big)
	}
	if walks-before != 2 {
		t.Errorf("content past %d bytes walked %d times in 2 checks, want 2", conformMax, walks-before)
	}
}

// BenchmarkOutputCheck is a worker's check of the bundled echo's
// structuredContent against its outputSchema, per request: "repeated" is
// a server's usual answer, the same bytes each time (the last verdict
// taken), "walked" alternates two contents, so each is decoded and
// walked as every answer was before workers kept their last verdict.
func BenchmarkOutputCheck(b *testing.B) {
	ov, err := toolschema.CompileOutputSchema(json.RawMessage(
		`{"type":"object","properties":{"message":{"type":"string","maxLength":65536}},"required":["message"]}`))
	if err != nil {
		b.Fatal(err)
	}
	v := Validator(func(_ string, structured json.RawMessage) error {
		if viol := ov.Validate(structured); viol != nil {
			return viol
		}
		return nil
	})
	answers := [][]byte{[]byte(`{"message":"hi"}`), []byte(`{"message":"ho"}`)}
	for _, bc := range []struct {
		name   string
		change int
	}{{"repeated", 0}, {"walked", 1}} {
		b.Run(bc.name, func(b *testing.B) {
			var c lastConforming
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				i ^= bc.change
				if err := c.check(v, "echo", answers[i]); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
