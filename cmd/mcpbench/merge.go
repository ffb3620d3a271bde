package main

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/spf13/pflag"

	"github.com/mcpbench/mcpbench/report"
	"github.com/mcpbench/mcpbench/results"
)

const mergeUsage = `Usage: mcpbench merge A.json B.json ... --json-out OUT [flags]

Combine the reports of shards (mcpbench run/sweep --shard i/N) into one.
Latency histograms are merged exactly and every percentile recomputed from
the result; counters, concurrency and rate are summed; a run's elapsed time
is the span from the first start to the last end. Sweeps are merged point
by point and analysed again.

Every shard 0..N-1 must be present exactly once (--allow-missing merges a
partial set, with a warning); reports of different workloads, targets or
kinds are refused. Open-loop uncorrected latency and schedule lag are the
largest shard's figures: upper bounds, not exact (the report says so).

Flags:
%s
Examples:
  mcpbench merge shard-0.json shard-1.json shard-2.json shard-3.json --json-out run.json
  mcpbench merge reports/*.json --json-out merged.json --md-out merged.md --html-out merged.html
`

// mergeFlags are merge's flags.
type mergeFlags struct {
	out          outputFlags
	allowMissing bool
}

func (f *mergeFlags) flagSet() *pflag.FlagSet {
	return declare("merge", slices.Concat([]flagDecl{
		{name: "json-out", to: &f.out.jsonOut, group: "Outputs", usage: "write the merged report to `FILE` (- = stdout)"},
		{name: "md-out", to: &f.out.mdOut, group: "Outputs", usage: "write the merged report's Markdown to `FILE` (- = stdout)"},
	}, f.out.html(), []flagDecl{
		{name: "allow-missing", to: &f.allowMissing, group: "Merging", usage: "merge an incomplete set of shards (warns and lists the missing ones)"},
		f.out.quietFlag("no summary on stdout"),
	})...)
}

func mergeMain(_ context.Context, args []string, e env) int {
	var f mergeFlags
	fs := f.flagSet()
	if done, code := parseFlags(fs, args, mergeUsage, e); done {
		return code
	}
	out, allowMissing := &f.out, f.allowMissing
	if fs.NArg() < 2 {
		return exitFor(e, "merge", usagef("want at least two reports to merge (got %d)", fs.NArg()))
	}
	if out.jsonOut == "" && out.mdOut == "" && out.htmlOut == "" {
		return exitFor(e, "merge", usagef("--json-out FILE is required (or --md-out, --html-out)"))
	}
	if err := checkOutputs(files(out.outputs(e))); err != nil {
		return exitFor(e, "merge", err)
	}
	var runs []*results.RunReport
	var sweeps []*results.SweepReport
	for _, path := range fs.Args() {
		r, err := readReportFile(path)
		if err != nil {
			return exitFor(e, "merge", err)
		}
		if len(runs)+len(sweeps) > 0 && (r.Sweep != nil) != (len(sweeps) > 0) {
			return exitFor(e, "merge", usagef("%s is a %s report and %s is not: merge reports of one kind", path, r.Kind(), fs.Arg(0)))
		}
		if r.Sweep != nil {
			sweeps = append(sweeps, r.Sweep)
		} else {
			runs = append(runs, r.Run)
		}
	}
	opt := results.MergeOptions{AllowMissing: allowMissing}
	if len(sweeps) > 0 {
		m, warns, err := results.MergeSweeps(sweeps, opt)
		return writeMerged(report.SweepFormats, m, warns, err, out, e)
	}
	m, warns, err := results.MergeRuns(runs, opt)
	return writeMerged(report.RunFormats, m, warns, err, out, e)
}

// writeMerged shows merge's warnings and writes the merged report m, or
// fails with err.
func writeMerged[R any](formats []report.Format[R], m R, warns []string, err error, out *outputFlags, e env) int {
	if _, ok := errors.AsType[*results.MissingShardsError](err); ok {
		return exitFor(e, "merge", usagef("%v (--allow-missing merges the ones present)", err))
	}
	if err != nil {
		// Every merge failure is about the reports given: bad input.
		return exitFor(e, "merge", usagef("%v", err))
	}
	for _, w := range warns {
		if w == results.WarnNoShard {
			w = "the reports carry no shard (--shard): merged as independent generators run at the same time"
		}
		fmt.Fprintf(e.stderr, "mcpbench merge: warning: %s\n", w)
	}
	if err := writeFormats(formats, m, out.outputs(e), e); err != nil {
		return exitFor(e, "merge", err)
	}
	return exitOK
}
