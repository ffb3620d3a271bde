// Package report turns measured values into the JSON, Markdown and SVG that
// users read, and reads them back for compare and merge.
package report

import "time"

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
