package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/mcpbench/mcpbench/logscan"
	"github.com/mcpbench/mcpbench/report"
)

// logscanReport is the JSON of `mcpbench logscan`: the common header, then
// the scan result's fields at the top level.
type logscanReport struct {
	report.Header
	logscan.Result
}

const logscanUsage = `Usage: mcpbench logscan [flags] FILE

Scan a server log for "[MCP] tools/list stats" lines and report how the
cumulative counters moved over a byte window of FILE: the whole file by
default, or from --from-offset to the current end. The last stats line before
the offset, when there is one, is the baseline for the deltas.

Flags:
%s
Examples:
  mcpbench logscan .run/logs/omni-mcp-sse-3002.log
  mcpbench logscan --from-offset 48213 --json-out - .run/logs/omni-mcp-sse-3002.log
`

// logscanMain implements `mcpbench logscan`.
func logscanMain(ctx context.Context, args []string, e env) int {
	fail := func(format string, a ...any) int {
		msg := strings.ReplaceAll(fmt.Sprintf(format, a...), "\n", " ")
		fmt.Fprintf(e.stderr, "mcpbench logscan: %s\n", msg)
		return exitUsage
	}

	fs := pflag.NewFlagSet("logscan", pflag.ContinueOnError)
	fs.SetOutput(io.Discard) // errors are reported in one line below
	fs.SetNormalizeFunc(func(_ *pflag.FlagSet, name string) pflag.NormalizedName {
		if name == "markdown-out" {
			name = "md-out"
		}
		return pflag.NormalizedName(name)
	})
	var (
		fromOffset int64
		jsonOut    string
		mdOut      string
		quiet      bool
	)
	fs.Int64Var(&fromOffset, "from-offset", 0, "byte offset where the window starts")
	fs.StringVar(&jsonOut, "json-out", "", "write the JSON report to `FILE` (- = stdout, and nothing else there)")
	fs.StringVar(&mdOut, "md-out", "", "write a Markdown summary to `FILE` (alias --markdown-out; - = stdout)")
	fs.BoolVarP(&quiet, "quiet", "q", false, "no human summary on stdout")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, pflag.ErrHelp) {
			fmt.Fprintf(e.stdout, logscanUsage, fs.FlagUsages())
			return exitOK
		}
		return fail("%v (see --help)", err)
	}
	if fs.NArg() != 1 {
		return fail("expected one log FILE, got %d arguments (see --help)", fs.NArg())
	}
	if jsonOut == "-" && mdOut == "-" {
		return fail("--json-out and --md-out cannot both be stdout")
	}
	path := fs.Arg(0)

	started := time.Now().UTC()
	from := logscan.Offset{}
	if fromOffset != 0 {
		var err error
		if from, err = logscan.MarkAt(path, fromOffset); err != nil {
			return fail("%v", err)
		}
	}
	res, err := logscan.Scan(path, from)
	if err != nil {
		return fail("%v", err)
	}
	rep := logscanReport{
		Header: report.Header{
			Schema:          report.SchemaLogscan,
			MCPBenchVersion: logscanVersion(),
			StartedAt:       started,
		},
		Result: res,
	}

	js, err := json.MarshalIndent(rep, "", "  ")
	if err != nil {
		return fail("encoding the report: %v", err)
	}
	js = append(js, '\n')
	if err := logscanWrite(e.stdout, jsonOut, js); err != nil {
		return fail("--json-out: %v", err)
	}
	if err := logscanWrite(e.stdout, mdOut, []byte(logscanMarkdown(res))); err != nil {
		return fail("--md-out: %v", err)
	}
	if !quiet && jsonOut != "-" && mdOut != "-" {
		fmt.Fprint(e.stdout, logscanSummary(res))
	}
	if ctx.Err() != nil {
		return exitInterrupted
	}
	return exitOK
}

// logscanWrite writes b to dest: nowhere when dest is empty, to stdout for
// "-", else to the file, creating its directory.
func logscanWrite(stdout io.Writer, dest string, b []byte) error {
	switch dest {
	case "":
		return nil
	case "-":
		_, err := stdout.Write(b)
		return err
	}
	if dir := filepath.Dir(dest); dir != "." {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return fmt.Errorf("creating directory: %w", err)
		}
	}
	return os.WriteFile(dest, b, 0o644)
}

// logscanVersion names the build in the report until a shared version
// package exists: the module version the binary was built from, "(devel)"
// for a local build.
func logscanVersion() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok || bi.Main.Version == "" {
		return "(devel)"
	}
	return bi.Main.Version
}

// logscanFigures lists the summary lines shared by the text and Markdown
// outputs, as label/value pairs.
func logscanFigures(r logscan.Result) [][2]string {
	w := r.Window
	window := fmt.Sprintf("bytes %d..%d (%d read)", w.StartOffset, w.EndOffset, w.Bytes)
	if w.Rotated {
		window += ", rotated"
		if w.RotatedFrom != "" {
			window += " (tail of " + w.RotatedFrom + " read)"
		}
	}
	if w.PartialLastLine {
		window += ", partial last line not read"
	}
	d := r.Delta
	figs := [][2]string{
		{"log", r.Path},
		{"window", window},
		{"stats lines", fmt.Sprintf("%d (%d malformed), baseline %s", r.StatsLines, r.MalformedStatsLines, r.Baseline)},
		{"delta", fmt.Sprintf("requests=%d cache_hits=%d cache_misses=%d build_count=%d build_failures=%d",
			d.Requests, d.CacheHits, d.CacheMisses, d.BuildCount, d.BuildFailures)},
		{"window hit rate", optFigure(r.WindowHitRatePct, "%.1f%%")},
		{"max build_max_ms", optFigure(r.MaxBuildMaxMs, "%g")},
		{"max peak_in_flight", optFigure(r.MaxPeakInFlight, "%d")},
	}
	if r.CounterReset {
		figs = append(figs, [2]string{"counter reset", "yes: the server restarted; deltas sum each run"})
	}
	if r.Last != nil {
		figs = append(figs, [2]string{"last", r.Last.String()})
	}
	figs = append(figs, [2]string{"other lines", fmt.Sprintf("%d lines, Dynamic Loader %d, tools/list served %d, too long %d",
		r.Lines, r.DynamicLoaderLines, r.ToolsListServedLines, r.SkippedLongLines)})
	return figs
}

func optFigure[T any](v *T, format string) string {
	if v == nil {
		return "n/a"
	}
	return fmt.Sprintf(format, *v)
}

func logscanSummary(r logscan.Result) string {
	var b strings.Builder
	for _, f := range logscanFigures(r) {
		fmt.Fprintf(&b, "%-19s %s\n", f[0]+":", f[1])
	}
	return b.String()
}

func logscanMarkdown(r logscan.Result) string {
	cell := strings.NewReplacer("|", `\|`, "\n", " ").Replace
	var b strings.Builder
	b.WriteString("## mcpbench logscan\n\n| figure | value |\n| --- | --- |\n")
	for _, f := range logscanFigures(r) {
		fmt.Fprintf(&b, "| %s | %s |\n", f[0], cell(f[1]))
	}
	return b.String()
}
