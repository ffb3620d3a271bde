package report

import (
	"io"

	"github.com/mcpbench/mcpbench/results"
)

// Format names: the file formats the --*-out flags ask for, and the human
// summary a command prints on a terminal.
const (
	FormatJSON     = "json"
	FormatMarkdown = "markdown"
	FormatSVG      = "svg"
	FormatJUnit    = "junit"
	FormatHTML     = "html"
	FormatSummary  = "summary"
)

// Format is one way to write a report of kind R.
type Format[R any] struct {
	Name  string
	Write func(io.Writer, R) error
}

// The formats of each report kind, in the order a command writes them.
// A command loops over its kind's table and writes each format that has a
// destination, so adding a format is one row here.
var (
	RunFormats = []Format[*results.RunReport]{
		{FormatJSON, WriteRunJSON},
		{FormatMarkdown, WriteRunMarkdown},
		{FormatHTML, WriteRunHTML},
		{FormatSummary, WriteRunSummary},
	}
	SweepFormats = []Format[*results.SweepReport]{
		{FormatJSON, WriteSweepJSON},
		{FormatMarkdown, WriteSweepMarkdown},
		{FormatSVG, WriteSweepSVG},
		{FormatHTML, WriteSweepHTML},
		{FormatSummary, WriteSweepTable},
	}
	ProbeFormats = []Format[*results.ProbeReport]{
		{FormatJSON, WriteProbeJSON},
		{FormatMarkdown, WriteProbeMarkdown},
		{FormatSummary, WriteProbeSummary},
	}
	PlanFormats = []Format[*results.PlanReport]{
		{FormatJSON, WritePlanJSON},
		{FormatMarkdown, WritePlanMarkdown},
		{FormatSummary, WritePlanSummary},
	}
	CompareFormats = []Format[*results.Comparison]{
		{FormatJSON, WriteCompareJSON},
		{FormatJUnit, WriteCompareJUnit},
		{FormatMarkdown, WriteCompareMarkdown},
		{FormatHTML, WriteCompareHTML},
	}
	LogscanFormats = []Format[*results.LogscanReport]{
		{FormatJSON, WriteLogscanJSON},
		{FormatMarkdown, WriteLogscanMarkdown},
		{FormatSummary, WriteLogscanSummary},
	}
)
