package toolschema

import (
	"reflect"
	"testing"
)

// FuzzDecode: the hot-path decoder must agree with encoding/json (through
// decodeJSON) on every input: same tree, or both reject.
func FuzzDecode(f *testing.F) {
	for _, s := range []string{orderPayload, `{"a":"\u00e9\ud83d\ude00","b":[1,-0.5e+3,true,null,{}],"c":"é"}`,
		`[]`, `"x"`, `01`, `1.`, `{"a":1,}`, `[1 2]`, "\"\x01\"", `{"a" 1}`, `nul`, `-`, `1e`, "\"\xff\""} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		want, werr := decodeJSON(b)
		got, gerr := fastDecode(b)
		interned, ierr := fastDecodeInterned(b, map[string]any{"a": "a", "name": "name", "": ""})
		if (ierr == nil) != (gerr == nil) || !reflect.DeepEqual(got, interned) {
			t.Fatalf("%q: interning changed the result: %#v vs %#v", b, got, interned)
		}
		if (werr == nil) != (gerr == nil) {
			t.Fatalf("%q: encoding/json err %v, fastDecode err %v", b, werr, gerr)
		}
		if werr == nil && !reflect.DeepEqual(want, got) {
			t.Fatalf("%q: encoding/json %#v, fastDecode %#v", b, want, got)
		}
	})
}
