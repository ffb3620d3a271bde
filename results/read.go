package results

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/mcpbench/mcpbench/measure"
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

// MaxReportBytes bounds a report file. A sweep report is tens of KB; a
// file far larger is no report, and reading it whole would take its size
// in memory and more.
const MaxReportBytes = 32 << 20

// ReadReport reads a run or sweep report, telling them apart by schema,
// and refuses one whose counts do not add up.
func ReadReport(rd io.Reader) (Report, error) {
	b, err := io.ReadAll(io.LimitReader(rd, MaxReportBytes+1))
	if err != nil {
		return Report{}, err
	}
	if len(b) > MaxReportBytes {
		return Report{}, fmt.Errorf("larger than %d MiB, which no mcpbench report is", MaxReportBytes>>20)
	}
	var head struct {
		Schema string `json:"schema"`
	}
	if err := json.Unmarshal(b, &head); err != nil {
		return Report{}, fmt.Errorf("not a JSON report: %w", err)
	}
	switch head.Schema {
	case SchemaRun:
		r, err := ReadRunReport(bytes.NewReader(b))
		if err == nil {
			err = checkCounts("", &r.Latency)
		}
		return Report{Run: r}, err
	case SchemaSweep:
		r, err := ReadSweepReport(bytes.NewReader(b))
		for i := 0; err == nil && i < len(r.Points); i++ {
			err = checkCounts(fmt.Sprintf("point %d: ", i+1), &r.Points[i].Latency)
		}
		return Report{Sweep: r}, err
	case "":
		return Report{}, errors.New("no schema field: not an mcpbench report")
	default:
		return Report{}, fmt.Errorf("schema %s: only run and sweep reports can be compared or merged", head.Schema)
	}
}

// checkCounts refuses counts no run produces: negative ones, or ok and
// errors (and the errors by kind) that do not sum to the requests. A
// report edited by hand that way would compare and merge into nonsense.
func checkCounts(where string, l *measure.Latency) error {
	var byKind int64
	for k, n := range l.ErrorsByKind {
		if n < 0 {
			return fmt.Errorf("%s%d errors of kind %s: a count cannot be negative", where, n, k)
		}
		byKind += n
	}
	switch {
	case l.Requests < 0 || l.OK < 0 || l.Errors < 0:
		return fmt.Errorf("%srequests %d, ok %d, errors %d: a count cannot be negative", where, l.Requests, l.OK, l.Errors)
	case l.OK+l.Errors != l.Requests:
		return fmt.Errorf("%sok %d and errors %d do not add up to requests %d", where, l.OK, l.Errors, l.Requests)
	case byKind != l.Errors:
		return fmt.Errorf("%serrors by kind add up to %d, not to errors %d", where, byKind, l.Errors)
	}
	return nil
}
