package main

import (
	"io"

	"github.com/mcpbench/mcpbench/harness"
	"github.com/mcpbench/mcpbench/report"
)

// output is where one format of a report goes.
type output struct {
	path string    // a file, "-" for stdout, "" for nowhere
	to   io.Writer // instead of path: where the terminal summary goes
	flag string    // the flag that gave path, named in errors
}

// writeFormats writes r in each format of its kind's table that outs gives
// a destination, in the table's order. A file that cannot be written stops
// nothing: its report goes to a fallback file (or, failing that, stdout),
// the other formats and the summary are still written, and the first such
// failure comes back, saying where the report went.
func writeFormats[R any](formats []report.Format[R], r R, outs map[string]output, e env) error {
	var failed error
	for _, f := range formats {
		o, ok := outs[f.Name]
		if !ok {
			continue
		}
		var err error
		switch {
		case o.to != nil:
			err = f.Write(o.to, r)
		case o.path == "":
		case o.path == "-":
			err = f.Write(e.stdout, r)
		default:
			err = writeReportFile(o, func(w io.Writer) error { return f.Write(e.scrubbed(w), r) }, e)
		}
		if failed == nil {
			failed = err
		}
	}
	return failed
}

// writeReportFile writes one report file, or keeps the report elsewhere
// and says where.
func writeReportFile(o output, write func(io.Writer) error, e env) error {
	fallback, err := harness.WriteReport(o.path, write)
	if err == nil {
		return nil
	}
	name := o.path
	if o.flag != "" {
		name = o.flag + " " + o.path
	}
	if fallback != "" {
		return usagef("writing %s: %v; the report went to %s instead", name, err, fallback)
	}
	if werr := write(e.stdout); werr == nil {
		return usagef("writing %s: %v; the report went to stdout instead", name, err)
	}
	return usagef("writing %s: %v", name, err)
}

// checkOutputs finds, before any load, an output that could not be
// written: a path whose directory cannot be made or whose file cannot be
// opened, two outputs on one file, or two on stdout.
func checkOutputs(outs []output) error {
	seen := map[string]string{}
	for _, o := range outs {
		if o.path == "" {
			continue
		}
		if prev, ok := seen[o.path]; ok {
			if o.path == "-" {
				return usagef("%s and %s cannot both be stdout", prev, o.flag)
			}
			return usagef("%s and %s both name %s", prev, o.flag, o.path)
		}
		seen[o.path] = o.flag
		if o.path == "-" {
			continue
		}
		if err := harness.CheckWritable(o.path); err != nil {
			return usagef("%s %s: cannot be written: %v", o.flag, o.path, err)
		}
	}
	return nil
}

// outputs are the destinations --json-out, --md-out, --html-out and
// --quiet give a report.
func (o *outputFlags) outputs(e env) map[string]output {
	return map[string]output{
		report.FormatJSON:     {path: o.jsonOut, flag: "--json-out"},
		report.FormatMarkdown: {path: o.mdOut, flag: "--md-out"},
		report.FormatHTML:     {path: o.htmlOut, flag: "--html-out"},
		report.FormatSummary:  {to: o.summaryOut(e)},
	}
}

// files lists the report files outs names, for checkOutputs.
func files(outs map[string]output) []output {
	var out []output
	for _, name := range []string{report.FormatJSON, report.FormatMarkdown, report.FormatSVG, report.FormatJUnit, report.FormatHTML} {
		if o, ok := outs[name]; ok && o.to == nil {
			out = append(out, o)
		}
	}
	return out
}
