package report

import (
	"fmt"
	"io"

	"github.com/mcpbench/mcpbench/results"
)

// WriteSweepJSON writes the report as indented JSON.
func WriteSweepJSON(w io.Writer, r *results.SweepReport) error {
	if r.Gates == nil {
		r.Gates = []results.Gate{}
	}
	if err := writeIndented(w, r); err != nil {
		return fmt.Errorf("sweep report: %w", err)
	}
	return nil
}
