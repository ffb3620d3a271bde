package record

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// dataRef is a call step's data file as the scenario format names it
// (workload.DataSource): rows drawn in order, all users together.
type dataRef struct {
	File string `yaml:"file"`
}

// pool moves the arguments of a tool called with more than one set of
// them into a data file beside the scenario at path, one JSON line per
// recorded call in the order they were made, and points each call step
// of that tool at it: a replay then draws the recorded arguments as
// k6's SharedArray or Gatling's feeders do, instead of repeating one
// call's. A tool always called with the same arguments keeps them
// inline. It returns the data files' contents by base name.
func pool(path string, scenarios []scenario) (map[string][]byte, error) {
	var order []string
	byTool := map[string][]*callStep{}
	var walk func([]step)
	walk = func(steps []step) {
		for i := range steps {
			if c := steps[i].Call; c != nil {
				if _, ok := byTool[c.Tool]; !ok {
					order = append(order, c.Tool)
				}
				byTool[c.Tool] = append(byTool[c.Tool], c)
			}
			walk(steps[i].Parallel)
		}
	}
	for i := range scenarios {
		walk(scenarios[i].Steps)
	}
	stem := strings.TrimSuffix(filepath.Base(path), filepath.Ext(path))
	files := map[string][]byte{}
	for _, tool := range order {
		calls := byTool[tool]
		var rows bytes.Buffer
		distinct := map[string]bool{}
		for _, c := range calls {
			row, err := json.Marshal(c.Args)
			if err != nil {
				return nil, err
			}
			if c.Args == nil {
				row = []byte("{}")
			}
			distinct[string(row)] = true
			rows.Write(row)
			rows.WriteByte('\n')
		}
		if len(distinct) < 2 {
			continue
		}
		name := dataName(stem, tool, files)
		files[name] = rows.Bytes()
		for _, c := range calls {
			c.Args, c.Data = nil, &dataRef{File: name}
		}
	}
	return files, nil
}

// dataName is the data file of tool beside the scenario named stem:
// stem.tool.jsonl, the tool's name kept to letters, digits, - and _, and
// numbered when two tools come to the same name.
func dataName(stem, tool string, taken map[string][]byte) string {
	safe := strings.Map(func(r rune) rune {
		if r == '-' || r == '_' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' {
			return r
		}
		return '_'
	}, tool)
	name := stem + "." + safe + ".jsonl"
	for n := 2; taken[name] != nil; n++ {
		name = stem + "." + safe + "-" + strconv.Itoa(n) + ".jsonl"
	}
	return name
}

// writeData writes the data files beside the scenario at path.
func writeData(path string, files map[string][]byte) error {
	dir := filepath.Dir(path)
	for name, b := range files {
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o600); err != nil {
			return err
		}
	}
	return nil
}

// AnswersFile is where WriteAnswers puts the client's answers beside the
// scenario at path: STEM.client-requests.json.
func AnswersFile(path string) string {
	return strings.TrimSuffix(path, filepath.Ext(path)) + ".client-requests.json"
}

// WriteAnswers writes the client's first answer to each kind of request
// the server sent it (answers, by method) as a --client-requests file
// beside the scenario at path, so a replay answers as the recorded client
// did; the redact paths are scrubbed in each. With no answers it writes
// nothing.
func WriteAnswers(path string, answers map[string]json.RawMessage, redact []string) error {
	if len(answers) == 0 {
		return nil
	}
	out := make(map[string]any, len(answers))
	for method, raw := range answers {
		var result map[string]any
		if json.Unmarshal(raw, &result) != nil {
			continue // not an object: --client-requests would refuse it
		}
		scrub(result, redact)
		out[method] = result
	}
	b, err := json.MarshalIndent(out, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(AnswersFile(path), append(b, '\n'), 0o600)
}
