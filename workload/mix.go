package workload

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
)

// MixEntry is one operation of a weighted mix, as a mix file writes it. A
// tools/call entry with generated arguments and no tool calls the tools the
// selection picks, which share its weight.
type MixEntry struct {
	Method string          `json:"method"`
	Tool   string          `json:"tool"`
	Args   json.RawMessage `json:"args"`
	// GenArgs generates the arguments from the tool's inputSchema.
	GenArgs bool    `json:"gen_args"`
	Weight  float64 `json:"weight"`
}

// ParseMix reads a mix file's contents: a JSON list of entries, each of
// them sound. Its errors say what is wrong with the contents; the caller
// says which file.
func ParseMix(b []byte) ([]MixEntry, error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	var mix []MixEntry
	if err := dec.Decode(&mix); err != nil {
		return nil, err
	}
	if err := checkMix(mix); err != nil {
		return nil, err
	}
	return mix, nil
}

// checkMix finds the first entry that cannot be sent.
func checkMix(mix []MixEntry) error {
	if len(mix) == 0 {
		return errors.New("no operations")
	}
	for i, m := range mix {
		switch {
		case m.Weight < 0:
			return fmt.Errorf("entry %d has a negative weight", i+1)
		case m.Method == "":
			return fmt.Errorf("entry %d has no method", i+1)
		case m.Method == "tools/call" && m.Tool == "" && !m.GenArgs:
			return fmt.Errorf("entry %d calls no tool (name one, or set gen_args to call the tools selected)", i+1)
		case m.Method == "tools/call" && m.Tool == "" && len(m.Args) > 0:
			return fmt.Errorf("entry %d: args go with a tool named", i+1)
		case m.Method != "tools/call" && (m.Tool != "" || m.GenArgs || len(m.Args) > 0):
			return fmt.Errorf("entry %d: tool, args and gen_args go with tools/call", i+1)
		}
	}
	return nil
}
