package jsonscan

import (
	"bytes"
	"encoding/json"
	"testing"
)

// replyKeys are a JSON-RPC message's members, what mcp looks for.
var replyKeys = [][]byte{[]byte("id"), []byte("method"), []byte("result"), []byte("error")}

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
		err := Members([]byte(c.in), replyKeys, out)
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
		err := Members(b, replyKeys, out)
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
