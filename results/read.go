package results

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
)

// Report is a run or a sweep report, whichever a file held.
type Report struct {
	Run   *RunReport
	Sweep *SweepReport
}

// Kind is "run" or "sweep".
func (r Report) Kind() string {
	if r.Sweep != nil {
		return "sweep"
	}
	return "run"
}

// ReadReport reads a run or sweep report, telling them apart by schema.
func ReadReport(rd io.Reader) (Report, error) {
	b, err := io.ReadAll(rd)
	if err != nil {
		return Report{}, err
	}
	var head struct {
		Schema string `json:"schema"`
	}
	if err := json.Unmarshal(b, &head); err != nil {
		return Report{}, fmt.Errorf("not a JSON report: %w", err)
	}
	switch head.Schema {
	case SchemaRun:
		r, err := ReadRunReport(strings.NewReader(string(b)))
		return Report{Run: r}, err
	case SchemaSweep:
		r, err := ReadSweepReport(strings.NewReader(string(b)))
		return Report{Sweep: r}, err
	case "":
		return Report{}, errors.New("no schema field: not an mcpbench report")
	default:
		return Report{}, fmt.Errorf("schema %s: only run and sweep reports can be compared or merged", head.Schema)
	}
}
