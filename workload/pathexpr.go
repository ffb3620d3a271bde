package workload

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strings"

	"github.com/tidwall/gjson"
)

// Paths into a result (the "from" of a call, the "present" and "equals" of
// an expect) are gjson paths: dot-separated members and array indexes, as
// in structuredContent.items.0.id or content.0.text. gjson reads them off
// the raw answer without decoding it, and its syntax is documented and
// widely known; writing a path language here would be neither.

// checkPath refuses what gjson cannot read as a path.
func checkPath(path string) error {
	if path == "" || strings.HasPrefix(path, ".") || strings.HasSuffix(path, ".") || strings.Contains(path, "..") {
		return fmt.Errorf("%q is not a path such as structuredContent.items.0.id", path)
	}
	return nil
}

// pick returns the raw JSON at path in result, and whether it is there.
func pick(result []byte, path string) (json.RawMessage, bool) {
	r := gjson.GetBytes(result, path)
	if !r.Exists() {
		return nil, false
	}
	return json.RawMessage(r.Raw), true
}

// errExpect is the cause of an expect that did not hold.
var errExpect = errors.New("expect")

// holds checks e against a request's result; toolError says the answer
// was an isError one. A nil error means it holds.
func (e *Expect) holds(result []byte, toolError bool) error {
	if e.IsError != nil && *e.IsError != toolError {
		return fmt.Errorf("%w: isError is %v, expected %v", errExpect, toolError, *e.IsError)
	}
	for _, p := range e.Present {
		if _, ok := pick(result, p); !ok {
			return fmt.Errorf("%w: %s is absent", errExpect, p)
		}
	}
	for _, p := range slices.Sorted(maps.Keys(e.Equals)) {
		want := e.Equals[p]
		raw, ok := pick(result, p)
		if !ok {
			return fmt.Errorf("%w: %s is absent", errExpect, p)
		}
		if !sameJSON(raw, want) {
			return fmt.Errorf("%w: %s is %s", errExpect, p, raw)
		}
	}
	return nil
}

// sameJSON compares a raw value with one read from YAML, as JSON values.
func sameJSON(raw json.RawMessage, want any) bool {
	var got any
	if json.Unmarshal(raw, &got) != nil {
		return false
	}
	b, err := json.Marshal(want)
	if err != nil {
		return false
	}
	var norm any
	_ = json.Unmarshal(b, &norm)
	return reflect.DeepEqual(got, norm)
}

// check finds a path of e that is not one.
func (e *Expect) check() error {
	for _, p := range append(slices.Clip(e.Present), slices.Collect(maps.Keys(e.Equals))...) {
		if err := checkPath(p); err != nil {
			return fmt.Errorf("expect: %w", err)
		}
	}
	return nil
}
