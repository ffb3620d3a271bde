package mcp

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

func TestMembers(t *testing.T) {
	cases := []struct {
		in   string
		ok   bool
		want [4]string
	}{
		{`{"jsonrpc":"2.0","id":7,"result":{"tools":[1,2,{"a":"b\"c"}]}}`, true, [4]string{`7`, ``, `{"tools":[1,2,{"a":"b\"c"}]}`, ``}},
		{` { "id" : "x" , "error" : {"code":-32601,"message":"no"} } `, true, [4]string{`"x"`, ``, ``, `{"code":-32601,"message":"no"}`}},
		{`{"method":"notifications/progress","params":{}}`, true, [4]string{``, `"notifications/progress"`, ``, ``}},
		{`{"id":1,"id":2}`, true, [4]string{`2`, ``, ``, ``}},
		{`{}`, true, [4]string{}},
		{`{"id":1,"result":{"a":1.5e-3,"b":[true,false,null]}}`, true, [4]string{`1`, ``, `{"a":1.5e-3,"b":[true,false,null]}`, ``}},
		{`{"id":1,"result":{"a":}}`, false, [4]string{}},
		{`{"id":1,"result":{"a":1}`, false, [4]string{}},
		{`{"id":01}`, false, [4]string{}},
		{`{"id":1} x`, false, [4]string{}},
		{`[1]`, false, [4]string{}},
		{`{"id":"\q"}`, false, [4]string{}},
		{`{"id":"\u12G4"}`, false, [4]string{}},
		{`{"id":tru}`, false, [4]string{}},
		{``, false, [4]string{}},
	}
	out := make([][]byte, 4)
	for _, c := range cases {
		err := members([]byte(c.in), replyKeys, out)
		if (err == nil) != c.ok {
			t.Errorf("%s: err %v", c.in, err)
			continue
		}
		if err == nil {
			for i := range out {
				if string(out[i]) != c.want[i] {
					t.Errorf("%s: member %s = %q, want %q", c.in, replyKeys[i], out[i], c.want[i])
				}
			}
		}
		if bytes.HasPrefix([]byte(c.in), []byte("{")) && (err == nil) != json.Valid([]byte(c.in)) {
			t.Errorf("%s: scanner says %v, encoding/json says valid=%v", c.in, err, json.Valid([]byte(c.in)))
		}
	}
}

// FuzzMembers checks the scanner against encoding/json: the same verdict on
// validity for objects, and the same member values.
func FuzzMembers(f *testing.F) {
	for _, s := range []string{`{"id":1,"result":{"x":[1,"2",{}]}}`, `{"error":{"code":1}}`, `{"a":"\u00e9\n"}`, `{`, `{"id":-0.5e+7}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		out := make([][]byte, 4)
		err := members(b, replyKeys, out)
		var obj map[string]json.RawMessage
		jerr := json.Unmarshal(b, &obj)
		if jerr == nil && obj == nil {
			jerr = errJSONSyntax // null is no object
		}
		if (err == nil) != (jerr == nil) {
			t.Fatalf("scanner err %v, encoding/json err %v on %q", err, jerr, b)
		}
		if err != nil {
			return
		}
		for i, k := range replyKeys {
			want, ok := obj[string(k)]
			if !ok {
				// encoding/json matches escaped keys too; the scanner does
				// not need to.
				if out[i] != nil && !bytes.Contains(b, []byte(`\`)) {
					t.Fatalf("member %s found by the scanner only", k)
				}
				continue
			}
			if out[i] != nil && !bytes.Equal(bytes.TrimSpace(out[i]), bytes.TrimSpace(want)) {
				t.Fatalf("member %s: %q vs %q", k, out[i], want)
			}
		}
	})
}

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
