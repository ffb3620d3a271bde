package h1

import (
	"bytes"
	"testing"
)

// The feed of a prediction, cut anywhere, matches it, and appendFed
// gives back what was fed.
func TestBodyMatchFeedInPieces(t *testing.T) {
	var m bodyMatch
	parts := [3][]byte{[]byte(`{"id":`), []byte("42"), []byte(`,"x":1}`)}
	whole := []byte(`{"id":42,"x":1}`)
	for cut := range len(whole) + 1 {
		m = bodyMatch{on: true, want: parts}
		if k := m.feed(whole[:cut]); k != cut || !m.on {
			t.Fatalf("cut %d: first piece matched %d", cut, k)
		}
		if got := m.appendFed(nil); !bytes.Equal(got, whole[:cut]) {
			t.Fatalf("cut %d: fed %q", cut, got)
		}
		if k := m.feed(whole[cut:]); k != len(whole)-cut || !m.complete() {
			t.Fatalf("cut %d: second piece matched %d, complete %v", cut, k, m.complete())
		}
	}
	m = bodyMatch{on: true, want: parts}
	if k := m.feed([]byte(`{"id":43`)); k != 6 || m.on {
		t.Fatalf("a different id matched %d bytes, on %v", k, m.on)
	}
}
