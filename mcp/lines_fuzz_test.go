package mcp

import (
	"bytes"
	"errors"
	"io"
	"testing"
)

// FuzzLineReader checks the stdio line reader against a plain split: the
// same lines in the same order, the overlong ones skipped (one error each),
// whatever the bytes.
func FuzzLineReader(f *testing.F) {
	f.Add([]byte("{\"id\":1}\n{\"id\":2}\n"), uint8(16))
	f.Add([]byte("short\n"+string(bytes.Repeat([]byte("x"), 300))+"\nafter\nlast"), uint8(40))
	f.Fuzz(func(t *testing.T, data []byte, limit uint8) {
		max := int(limit) + 1
		var want []string
		long := 0
		parts := bytes.Split(data, []byte("\n"))
		if len(parts[len(parts)-1]) == 0 {
			parts = parts[:len(parts)-1] // a final newline ends the last line
		}
		for i, p := range parts {
			if len(p) > max {
				// An overlong line is skipped with an error of its own,
				// but one cut off by the end of the stream ends it: EOF.
				if i < len(parts)-1 || bytes.HasSuffix(data, []byte("\n")) {
					long++
				}
				continue
			}
			want = append(want, string(p))
		}
		r := newLineReader(bytes.NewReader(data), max)
		var got []string
		skipped := 0
		for {
			line, err := r.next()
			if errors.Is(err, errLineTooLong) {
				skipped++
				continue
			}
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatalf("unexpected error %v", err)
			}
			got = append(got, string(line))
		}
		if skipped != long || len(got) != len(want) {
			t.Fatalf("limit %d: got %d lines (%d skipped), a split gives %d (%d too long)", max, len(got), skipped, len(want), long)
		}
		for i := range got {
			if got[i] != want[i] {
				t.Fatalf("line %d: %q, want %q", i, got[i], want[i])
			}
		}
	})
}
