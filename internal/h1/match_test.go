package h1

import (
	"bytes"
	"strings"
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

// BenchmarkReadChunked reads a 10 KB answer in 4 KB chunks (what the Go
// SDK's server sends for eight tools' tools/list) from a read buffer: in
// place, and compared with a prediction of it as it is read.
func BenchmarkReadChunked(b *testing.B) {
	tool := `{"name":"tool","description":"` + strings.Repeat("d", 1200) + `","inputSchema":{"type":"object"}},`
	body := `{"jsonrpc":"2.0","id":1,"result":{"tools":[` + strings.Repeat(tool, 8) + `{"name":"last"}]}}`
	ans := []byte(chunkedAnswer(body, 4096))
	before, after, _ := strings.Cut(body, "1")
	for _, path := range []string{"in-place", "matched"} {
		b.Run(path, func(b *testing.B) {
			pool := NewPool(Config{Size: 1, MaxBody: 1 << 20})
			rd := bytes.NewReader(ans)
			c := NewConn(readerConn{r: rd})
			req := &Request{}
			if path == "matched" {
				req.Predict = &Prediction{MediaType: "application/json", Before: []byte(before), ID: []byte("1"), After: []byte(after)}
			}
			var cl Caller
			b.SetBytes(int64(len(ans)))
			b.ReportAllocs()
			for b.Loop() {
				rd.Reset(ans)
				c.br.Reset(c)
				var a Answer
				err := cl.Read(pool, c, req, &a)
				if err != nil || a.Matched != (path == "matched") || a.Size != len(body) {
					b.Fatalf("%v: matched %v, %d bytes", err, a.Matched, a.Size)
				}
			}
		})
	}
}
