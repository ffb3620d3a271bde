package textfmt

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestJSONErrorSpeaksJSON(t *testing.T) {
	type entry struct {
		Method string  `json:"method"`
		Weight float64 `json:"weight"`
	}
	var list []entry
	var obj map[string]json.RawMessage
	for _, tt := range []struct {
		in   string
		into any
		want string
	}{
		{`{"method":"x"}`, &list, "want a list, got an object"},
		{`[{"weight":"a"}]`, &list, "weight: want a number, got a string"},
		{`[{"weight":1e400}]`, &list, "weight: want a number, got 1e400, out of range"},
		{`[1,2]`, &obj, "want an object, got a list"},
		{`{"a":}`, &obj, "not valid JSON at byte 6"},
		{`{"a":`, &obj, "unexpected end of JSON input"},
	} {
		got := JSONError(json.Unmarshal([]byte(tt.in), tt.into))
		if !strings.Contains(got, tt.want) || strings.Contains(got, "Go value") || strings.Contains(got, "textfmt") {
			t.Errorf("%s: %q, want %q", tt.in, got, tt.want)
		}
	}
}
