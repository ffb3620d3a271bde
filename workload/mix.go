package workload

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"

	"github.com/mcpbench/mcpbench/internal/textfmt"
)

// MixEntry is one operation of a weighted mix, as a mix file writes it. A
// tools/call entry with generated arguments and no tool calls the tools the
// selection picks, which share its weight.
type MixEntry struct {
	Method string          `json:"method"`
	Tool   string          `json:"tool"`
	Args   json.RawMessage `json:"args"`
	// URI is a resources/read's resource (or a completion's resource
	// template), Prompt a prompts/get's prompt (or a completion's).
	URI    string `json:"uri"`
	Prompt string `json:"prompt"`
	// GenArgs generates the arguments from the tool's inputSchema (or
	// the URIs and prompt arguments from the server's listings).
	GenArgs bool    `json:"gen_args"`
	Weight  float64 `json:"weight"`
}

// maxWeight bounds a mix weight. Weights are relative, so any scale
// works below it; above it a sum of weights can overflow to infinity and
// send one operation only.
const maxWeight = 1e9

// mixExample is the shape a mix file takes, for errors about its shape.
const mixExample = `[{"method":"tools/list","weight":3},{"method":"tools/call","tool":"echo","args":{"message":"hi"},"weight":1}]`

// ParseMix reads a mix file's contents: a JSON list of entries, each of
// them sound. An entry without a weight weighs 1. Its errors say what is
// wrong with the contents in JSON's terms; the caller says which file.
func ParseMix(b []byte) ([]MixEntry, error) {
	var raw []json.RawMessage
	if err := json.Unmarshal(b, &raw); err != nil {
		return nil, fmt.Errorf("%s; a mix is a list of operations, e.g. %s", textfmt.JSONErrorIn(b, err), mixExample)
	}
	lines := textfmt.JSONListLines(b)
	at := func(i int) string { // entry i, with its line
		if i < len(lines) {
			return fmt.Sprintf("entry %d (line %d)", i+1, lines[i])
		}
		return fmt.Sprintf("entry %d", i+1)
	}
	mix := make([]MixEntry, len(raw))
	for i, r := range raw {
		dec := json.NewDecoder(bytes.NewReader(r))
		dec.DisallowUnknownFields()
		mix[i] = MixEntry{Weight: 1}
		if err := dec.Decode(&mix[i]); err != nil {
			return nil, fmt.Errorf("%s: %s", at(i), textfmt.JSONError(err))
		}
	}
	if err := checkMix(mix, at); err != nil {
		return nil, err
	}
	if !slices.ContainsFunc(mix, func(m MixEntry) bool { return m.Weight > 0 }) {
		return nil, errors.New("every weight is 0, so nothing would be sent: give an entry a weight above 0 (one without a weight weighs 1)")
	}
	return mix, nil
}

// checkMix finds the first entry that cannot be sent; name says which
// entry i is (nil: by its number).
func checkMix(mix []MixEntry, name func(i int) string) error {
	if name == nil {
		name = func(i int) string { return fmt.Sprintf("entry %d", i+1) }
	}
	if len(mix) == 0 {
		return errors.New("no operations")
	}
	for i, m := range mix {
		switch {
		case m.Weight < 0:
			return fmt.Errorf("%s has a negative weight", name(i))
		case m.Weight > maxWeight:
			return fmt.Errorf("%s: weight %g is above %g (weights are relative: scale them down)", name(i), m.Weight, float64(maxWeight))
		case m.Method == "":
			return fmt.Errorf("%s has no method", name(i))
		case IsSurfaceMethod(m.Method):
			if err := checkSurface(m); err != nil {
				return fmt.Errorf("%s: %w", name(i), err)
			}
		case m.Method == "tools/call" && m.Tool == "" && !m.GenArgs:
			return fmt.Errorf("%s calls no tool (name one, or set gen_args to call the tools selected)", name(i))
		case m.Method == "tools/call" && m.Tool == "" && len(m.Args) > 0:
			return fmt.Errorf("%s: args go with a tool named", name(i))
		case m.Method != "tools/call" && (m.Tool != "" || m.GenArgs || len(m.Args) > 0 || m.URI != "" || m.Prompt != ""):
			return fmt.Errorf("%s: tool, args and gen_args go with tools/call", name(i))
		}
	}
	return nil
}
