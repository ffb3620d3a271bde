package main

import (
	"fmt"
	"io"

	"github.com/mcpbench/mcpbench/report"
)

// output is where one format of a report goes.
type output struct {
	path string    // a file, "-" for stdout, "" for nowhere
	to   io.Writer // instead of path: where the terminal summary goes
	flag string    // the flag that gave path, named in errors; "" leaves them bare
}

// writeFormats writes r in each format of its kind's table that outs gives
// a destination, in the table's order.
func writeFormats[R any](formats []report.Format[R], r R, outs map[string]output, e env) error {
	for _, f := range formats {
		o, ok := outs[f.Name]
		if !ok {
			continue
		}
		write := func(w io.Writer) error { return f.Write(w, r) }
		var err error
		if o.to != nil {
			err = write(o.to)
		} else {
			err = writeFile(o.path, e, write)
		}
		if err != nil && o.flag != "" {
			return fmt.Errorf("writing %s: %w", o.flag, err)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// outputs are the destinations --json-out, --md-out, --html-out and
// --quiet give a run, sweep or probe report; flagged names the flags in
// errors.
func (o *outputFlags) outputs(e env, flagged bool) map[string]output {
	outs := map[string]output{
		report.FormatJSON:     {path: o.jsonOut},
		report.FormatMarkdown: {path: o.mdOut},
		report.FormatHTML:     {path: o.htmlOut},
		report.FormatSummary:  {to: o.summaryOut(e)},
	}
	if flagged {
		outs[report.FormatJSON] = output{path: o.jsonOut, flag: "--json-out"}
		outs[report.FormatMarkdown] = output{path: o.mdOut, flag: "--md-out"}
		outs[report.FormatHTML] = output{path: o.htmlOut, flag: "--html-out"}
	}
	return outs
}
