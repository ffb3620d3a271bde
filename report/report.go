// Package report renders what mcpbench measured for people and programs:
// it turns the values of package results into JSON, Markdown, SVG and
// JUnit, and nothing else. Each report kind lists its formats in a table
// (formats.go) that the commands loop over.
package report

import (
	"encoding/json"
	"io"
)

// writeIndented writes v as indented JSON, the form of every report.
func writeIndented(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}
