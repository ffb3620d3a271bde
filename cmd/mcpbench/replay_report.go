package main

import (
	"context"
	"fmt"
	"os"
	"slices"

	"github.com/spf13/pflag"

	"github.com/mcpbench/mcpbench/report"
	"github.com/mcpbench/mcpbench/telemetry"
)

const reportUsage = `Usage: mcpbench report FILE.jsonl --json-out R.json [--md-out R.md] [--html-out R.html]

Write the report of a run or sweep from the JSON Lines file its --out json=FILE
streamed. A file that ends with its summary holds the report whole. A run
killed before its end (SIGKILL, the OOM killer, a CI timeout) is rebuilt
from the intervals written, exactly: counts by outcome, the merged latency
histogram and every percentile from it, the series; the interval in progress
when it died is lost, and the report is marked interrupted. A sweep killed
midway is refused (its analysis needs every point).

Flags:
%s
Examples:
  mcpbench run --url http://127.0.0.1:3002/mcp -c 8 -d 3s --out json=run.jsonl
  mcpbench report run.jsonl --json-out run.json --html-out run.html
`

// reportFlags are report's flags.
type reportFlags struct{ out outputFlags }

func (f *reportFlags) flagSet() *pflag.FlagSet {
	return declare("report", slices.Concat([]flagDecl{
		{name: "json-out", to: &f.out.jsonOut, group: "Outputs", usage: "write the report to `FILE` (- = stdout)"},
		{name: "md-out", to: &f.out.mdOut, group: "Outputs", usage: "write the report's Markdown to `FILE` (- = stdout)"},
	}, f.out.html(), []flagDecl{f.out.quietFlag("no summary on stdout")})...)
}

func reportMain(_ context.Context, args []string, e env) int {
	var f reportFlags
	fs := f.flagSet()
	if done, code := parseFlags(fs, args, reportUsage, e); done {
		return code
	}
	if fs.NArg() != 1 {
		return exitFor(e, "report", usagef("want one JSON Lines file (got %d)", fs.NArg()))
	}
	out := &f.out
	if out.jsonOut == "" && out.mdOut == "" && out.htmlOut == "" {
		return exitFor(e, "report", usagef("--json-out FILE is required (or --md-out, --html-out)"))
	}
	if err := checkOutputs(files(out.outputs(e))); err != nil {
		return exitFor(e, "report", err)
	}
	path := fs.Arg(0)
	file, err := os.Open(path)
	if err != nil {
		return exitFor(e, "report", usagef("%v", err))
	}
	rec, err := telemetry.ReadJSONL(file)
	file.Close()
	if err != nil {
		return exitFor(e, "report", usagef("%s: %v", path, err))
	}
	if !rec.Complete() {
		fmt.Fprintf(e.stderr, "mcpbench report: %s has no summary (the %s was cut short): rebuilt from its %d intervals\n", path, rec.Command(), rec.Intervals())
	}
	if rec.Command() == "sweep" {
		r, err := rec.Sweep()
		if err != nil {
			return exitFor(e, "report", usagef("%s: %v", path, err))
		}
		return writtenOrFailed(writeFormats(report.SweepFormats, r, out.outputs(e), e), e)
	}
	r, err := rec.Run()
	if err != nil {
		return exitFor(e, "report", usagef("%s: %v", path, err))
	}
	return writtenOrFailed(writeFormats(report.RunFormats, r, out.outputs(e), e), e)
}

func writtenOrFailed(err error, e env) int {
	if err != nil {
		return exitFor(e, "report", err)
	}
	return exitOK
}
