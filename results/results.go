// Package results holds what mcpbench measured, as values, and the
// arithmetic over them: the report of each command, the gates a run, a
// probe or a sweep is held to, the comparison of two reports against
// regression limits, and the merge of shard reports. It reads reports back
// from JSON, but writes nothing for people: package report renders these
// values as JSON, Markdown, SVG and JUnit.
package results

import (
	"encoding/json"
	"fmt"
	"io"
	"time"
)

// Schema names, one per report kind; readers dispatch on them.
const (
	SchemaRun     = "mcpbench.run/v1"
	SchemaSweep   = "mcpbench.sweep/v1"
	SchemaProbe   = "mcpbench.probe/v1"
	SchemaLogscan = "mcpbench.logscan/v1"
)

// Target names the server a report measured.
type Target struct {
	URL             string `json:"url"`
	Transport       string `json:"transport"`
	ProtocolVersion string `json:"protocol_version"`
	ServerName      string `json:"server_name"`
	ServerVersion   string `json:"server_version"`
}

// Header opens every report.
type Header struct {
	Schema          string    `json:"schema"`
	MCPBenchVersion string    `json:"mcpbench_version"`
	StartedAt       time.Time `json:"started_at"`
	Target          Target    `json:"target"`
}

// readReport decodes a report of the given schema into v, which must embed
// Header; kind names the report in errors.
func readReport(rd io.Reader, v any, schema func() string, want, kind string) error {
	if err := json.NewDecoder(rd).Decode(v); err != nil {
		return fmt.Errorf("not a %s report: %w", kind, err)
	}
	if got := schema(); got != want {
		return fmt.Errorf("schema is %q, want %s", got, want)
	}
	return nil
}
