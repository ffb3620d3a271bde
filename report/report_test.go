package report

import (
	"bytes"
	"encoding/json"
	"errors"
	"math/rand/v2"
	"testing"
)

func TestIndentKeepsFlatArraysWhole(t *testing.T) {
	v := map[string]any{
		"a": []int{1, 2, 3},
		"b": []any{map[string]any{"x": []string{"p,q", `r"]s`}}, 4},
		"c": map[string]any{},
		"d": []int{},
		"e": "colon: and, comma [",
	}
	var b bytes.Buffer
	if err := writeIndented(&b, v); err != nil {
		t.Fatal(err)
	}
	want := `{
  "a": [1,2,3],
  "b": [
    {
      "x": ["p,q","r\"]s"]
    },
    4
  ],
  "c": {},
  "d": [],
  "e": "colon: and, comma ["
}
`
	if b.String() != want {
		t.Errorf("got\n%s\nwant\n%s", b.String(), want)
	}
}

// TestIndentRoundTrips: whatever the nesting, the output reads back as
// the same value.
func TestIndentRoundTrips(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	var gen func(depth int) any
	gen = func(depth int) any {
		switch n := rng.IntN(6); {
		case depth > 3 || n == 0:
			return rng.Float64()
		case n == 1:
			return `s"\,:[]{}` + string(rune('a'+rng.IntN(26)))
		case n <= 3:
			a := make([]any, rng.IntN(4))
			for i := range a {
				a[i] = gen(depth + 1)
			}
			return a
		default:
			m := map[string]any{}
			for i := range rng.IntN(4) {
				m[string(rune('a'+i))] = gen(depth + 1)
			}
			return m
		}
	}
	for range 200 {
		v := gen(0)
		var b bytes.Buffer
		if err := writeIndented(&b, v); err != nil {
			t.Fatal(err)
		}
		var back any
		if err := json.Unmarshal(b.Bytes(), &back); err != nil {
			t.Fatalf("%v\n%s", err, b.String())
		}
		want, _ := json.Marshal(v)
		got, _ := json.Marshal(back)
		if !bytes.Equal(want, got) {
			t.Fatalf("round trip changed the value:\n%s\n%s", want, got)
		}
	}
}

// TestIndentReportsWriteErrors: a report that cannot be written says so.
func TestIndentReportsWriteErrors(t *testing.T) {
	big := map[string]any{"s": bytes.Repeat([]byte("x"), 200<<10)}
	if err := writeIndented(failingWriter{}, big); err == nil {
		t.Error("a failed write went unreported")
	}
}

type failingWriter struct{}

func (failingWriter) Write([]byte) (int, error) { return 0, errors.New("disk full") }
