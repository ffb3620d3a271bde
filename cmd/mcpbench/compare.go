package main

import (
	"context"
	"fmt"
	"os"

	"github.com/spf13/pflag"

	"github.com/mcpbench/mcpbench/report"
	"github.com/mcpbench/mcpbench/results"
)

const compareUsage = `Usage: mcpbench compare BASE.json NEW.json [flags]

Gate a new run or sweep report against a base one: exit 1 when a figure
moved further in the bad direction than its limit allows, 0 otherwise.
Lower latency and higher throughput are improvements, never failures.

A limit is relative to the base figure with %%, or absolute without:
  latency (p95, p99)  10%%, or 5ms / 1.5s (any Go duration), or 5 (= ms)
  throughput (rps)    10%%, or 50 (requests/s it may fall by)
  error rate          50%%, or 0.01 (a fraction: one percentage point)
  any                 off (shown, never fails)

Sweeps are compared on their recommendation (any drop in the recommended
or maximum feasible concurrency, or the maximum sustainable rate, is a
regression), their knee (shown) and every point measured at the same
concurrency or rate in both.

Two run reports with per-interval series (five whole intervals or more
each) get a line under the table saying, for rps and each percentile,
whether the change lies within the noise those intervals show, and a
note on each regression that does; the gate is unchanged. For a verdict
that tells a small change from noise, measure both servers with
mcpbench ab.

The Markdown table goes to stdout unless --md-out, --json-out - or -q say
otherwise.

Flags:
%s
Examples:
  mcpbench compare base.json new.json --max-p95-regression 10%% --max-rps-regression 5%%
  mcpbench compare baseline-sweep.json sweep.json --max-p99-regression 5ms \
      --md-out "$GITHUB_STEP_SUMMARY" --junit-out compare.xml --html-out compare.html
`

// compareFlags are compare's flags: the limits as typed, and where the
// comparison goes.
type compareFlags struct {
	p95, p99, rps, errRate            string
	jsonOut, mdOut, junitOut, htmlOut string
	quiet                             bool
}

func (f *compareFlags) flagSet() *pflag.FlagSet {
	def := results.DefaultLimits()
	return declare("compare", []flagDecl{
		{name: "max-p95-regression", to: &f.p95, def: def.P95.Text, group: "SLO and gates", usage: "largest allowed p95 rise: 10% of base, or 5ms"},
		{name: "max-p99-regression", to: &f.p99, def: def.P99.Text, group: "SLO and gates", usage: "largest allowed p99 rise: 20% of base, or 5ms"},
		{name: "max-rps-regression", to: &f.rps, def: def.RPS.Text, group: "SLO and gates", usage: "largest allowed throughput fall: 10% of base, or 50 (rps)"},
		{name: "max-error-rate-increase", to: &f.errRate, def: def.ErrorRate.Text, group: "SLO and gates", usage: "largest allowed error-rate rise: 0.01 (a fraction), or 50% of base"},
		{name: "md-out", to: &f.mdOut, group: "Outputs", usage: "write the Markdown table to `FILE`, e.g. $GITHUB_STEP_SUMMARY (- = stdout)"},
		{name: "json-out", to: &f.jsonOut, group: "Outputs", usage: "write the comparison as JSON to `FILE` (- = stdout)"},
		{name: "junit-out", to: &f.junitOut, group: "Outputs", usage: "write JUnit XML to `FILE`, one test case per gate"},
		{name: "html-out", to: &f.htmlOut, group: "Outputs", usage: "write an HTML page to `FILE`: the checks, and the two reports' charts overlaid"},
		{name: "quiet", short: "q", to: &f.quiet, group: "Outputs", usage: "no table on stdout"},
	}...)
}

// limits reads the four limits.
func (f *compareFlags) limits() (results.Limits, error) {
	var g results.Limits
	for _, l := range []struct {
		flag, val string
		kind      results.MetricKind
		dst       *results.Limit
	}{
		{"--max-p95-regression", f.p95, results.KindLatency, &g.P95},
		{"--max-p99-regression", f.p99, results.KindLatency, &g.P99},
		{"--max-rps-regression", f.rps, results.KindRPS, &g.RPS},
		{"--max-error-rate-increase", f.errRate, results.KindErrorRate, &g.ErrorRate},
	} {
		lim, err := results.ParseLimit(l.val, l.kind)
		if err != nil {
			return g, usagef("%s: %v", l.flag, err)
		}
		*l.dst = lim
	}
	return g, nil
}

// outputs are where the comparison goes. The Markdown table goes to stdout
// unless a file or stdout takes it, or another format already has stdout.
func (f *compareFlags) outputs() map[string]output {
	md := output{path: f.mdOut, flag: "--md-out"}
	if !f.quiet && f.mdOut == "" && f.jsonOut != "-" && f.junitOut != "-" && f.htmlOut != "-" {
		md = output{path: "-", flag: "the table"}
	}
	return map[string]output{
		report.FormatJSON:     {path: f.jsonOut, flag: "--json-out"},
		report.FormatJUnit:    {path: f.junitOut, flag: "--junit-out"},
		report.FormatMarkdown: md,
		report.FormatHTML:     {path: f.htmlOut, flag: "--html-out"},
	}
}

func compareMain(_ context.Context, args []string, e env) int {
	var f compareFlags
	fs := f.flagSet()
	if done, code := parseFlags(fs, args, compareUsage, e); done {
		return code
	}
	if fs.NArg() != 2 {
		return exitFor(e, "compare", usagef("want two reports, BASE.json NEW.json (got %d)", fs.NArg()))
	}
	g, err := f.limits()
	if err != nil {
		return exitFor(e, "compare", err)
	}
	outs := f.outputs()
	if err := checkOutputs(files(outs)); err != nil {
		return exitFor(e, "compare", err)
	}
	c, err := compareFiles(fs.Arg(0), fs.Arg(1), g)
	if err != nil {
		return exitFor(e, "compare", err)
	}
	writeErr := writeFormats(report.CompareFormats, c, outs, e)
	if !c.Passed && !f.quiet {
		fmt.Fprintf(e.stderr, "mcpbench compare: %d regression(s) of %s against %s\n", c.Regressions, c.New.Path, c.Base.Path)
	}
	switch {
	case writeErr != nil:
		return exitFor(e, "compare", writeErr)
	case !c.Passed:
		return exitGate
	}
	return exitOK
}

// compareFiles reads the two reports and compares them under g.
func compareFiles(basePath, newPath string, g results.Limits) (*results.Comparison, error) {
	base, err := readReportFile(basePath)
	if err != nil {
		return nil, err
	}
	cur, err := readReportFile(newPath)
	if err != nil {
		return nil, err
	}
	if base.Kind() != cur.Kind() {
		return nil, usagef("%s is a %s report and %s a %s report: compare two of the same kind", basePath, base.Kind(), newPath, cur.Kind())
	}
	var c *results.Comparison
	if base.Sweep != nil {
		c = results.CompareSweeps(base.Sweep, cur.Sweep, g)
	} else {
		c = results.CompareRuns(base.Run, cur.Run, g)
	}
	c.Base.Path, c.New.Path = basePath, newPath
	c.MCPBenchVersion = buildVersion()
	return c, nil
}

// readReportFile reads a run or sweep report; any failure is bad input.
func readReportFile(path string) (results.Report, error) {
	f, err := os.Open(path)
	if err != nil {
		return results.Report{}, usagef("%v", err)
	}
	defer f.Close()
	// A file too large is refused from its size, before any of it is read.
	if st, err := f.Stat(); err == nil && st.Mode().IsRegular() && st.Size() > results.MaxReportBytes {
		return results.Report{}, usagef("%s: %d MiB, larger than the %d MiB of any mcpbench report", path, st.Size()>>20, results.MaxReportBytes>>20)
	}
	r, err := results.ReadReport(f)
	if err != nil {
		return results.Report{}, usagef("%s: %v", path, err)
	}
	return r, nil
}
