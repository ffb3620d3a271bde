package toolschema

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// Merge shallow-merges inject (--inject-args) into one call's arguments:
// members of inject replace members of args with the same name, the rest
// are kept as they are, byte for byte. Both must be JSON objects; an empty
// or null args counts as {}. The result has sorted keys, so merging the
// same inputs always yields the same bytes.
func Merge(args json.RawMessage, inject json.RawMessage) (json.RawMessage, error) {
	base, err := objectMembers(args)
	if err != nil {
		return nil, fmt.Errorf("toolschema: merge: arguments: %w", err)
	}
	add, err := objectMembers(inject)
	if err != nil {
		return nil, fmt.Errorf("toolschema: merge: injected arguments: %w", err)
	}
	if len(add) == 0 && len(args) > 0 && len(base) > 0 {
		return args, nil
	}
	for k, v := range add {
		base[k] = v
	}
	out, err := json.Marshal(base)
	if err != nil {
		return nil, fmt.Errorf("toolschema: merge: %w", err)
	}
	return out, nil
}

func objectMembers(b json.RawMessage) (map[string]json.RawMessage, error) {
	t := bytes.TrimSpace(b)
	if len(t) == 0 || bytes.Equal(t, []byte("null")) {
		return map[string]json.RawMessage{}, nil
	}
	if t[0] != '{' {
		return nil, fmt.Errorf("not a JSON object")
	}
	m := map[string]json.RawMessage{}
	if err := json.Unmarshal(t, &m); err != nil {
		return nil, err
	}
	return m, nil
}
