package mcp

import (
	"strings"
	"testing"
)

// toolsListAnswer is the reference server's tools/list answer in
// --fixed-response mode, the body of the generator benchmarks.
const toolsListAnswer = `{"jsonrpc":"2.0","id":1,"result":{"tools":[{"description":"Return the message unchanged, as text content and as structuredContent {message}.","inputSchema":{"properties":{"message":{"description":"Text to send back","maxLength":65536,"type":"string"}},"required":["message"],"type":"object"},"name":"echo","outputSchema":{"properties":{"message":{"description":"Text to send back","maxLength":65536,"type":"string"}},"required":["message"],"type":"object"},"title":"Echo"}]}}`

// BenchmarkParseToolsList is the scanner's share of a tools/list request:
// a full scan, and an answer that differs from the last one only in its id.
func BenchmarkParseToolsList(b *testing.B) {
	bodies := [][]byte{[]byte(toolsListAnswer), []byte(strings.Replace(toolsListAnswer, `"id":1`, `"id":12`, 1))}
	for _, memo := range []bool{false, true} {
		b.Run(map[bool]string{false: "scan", true: "same-but-id"}[memo], func(b *testing.B) {
			var r reply
			b.SetBytes(int64(len(bodies[0])))
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				if !memo {
					r.memo.forget()
				}
				i++
				if err := r.parse(bodies[i%2]); err != nil || len(r.Result) == 0 {
					b.Fatal(err)
				}
			}
		})
	}
}

// TestParseMemo: an answer that differs from the last only in its id is
// recalled, with the members after the id moved by the id's new length;
// any other difference is scanned in full.
func TestParseMemo(t *testing.T) {
	var r reply
	first := []byte(`{"jsonrpc":"2.0","id":9,"result":{"tools":[],"nextCursor":"c2"}}`)
	if err := r.parse(first); err != nil {
		t.Fatal(err)
	}
	var found [4][]byte
	var inner [numResultKeys][]byte
	longer := []byte(`{"jsonrpc":"2.0","id":10,"result":{"tools":[],"nextCursor":"c2"}}`)
	if !r.memo.recall(longer, &found, &inner) {
		t.Fatal("an answer with only another id was not recalled")
	}
	if string(found[0]) != "10" || string(found[2]) != `{"tools":[],"nextCursor":"c2"}` || string(inner[0]) != `"c2"` {
		t.Fatalf("recalled id %s, result %s, cursor %s", found[0], found[2], inner[0])
	}
	for _, other := range []string{
		`{"jsonrpc":"2.0","id":10,"result":{"tools":[],"nextCursor":"c3"}}`,
		`{"jsonrpc":"2.0","id":1 0,"result":{"tools":[],"nextCursor":"c2"}}`,
		`{"jsonrpc":"2.0","id":10,"result":{"tools":[],"nextCursor":"c2"}`,
		`{"jsonrpc":"2.0","id":`,
	} {
		if r.memo.recall([]byte(other), &found, &inner) {
			t.Errorf("%s was recalled", other)
		}
	}
	if err := r.parse([]byte(`{"jsonrpc":"2.0","id":1 0,"result":{}}`)); err == nil {
		t.Fatal("a malformed answer parsed")
	}
}
