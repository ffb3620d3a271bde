package main

import (
	"bytes"
	"context"
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
	"github.com/mcpbench/mcpbench/results"
)

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
	rep := &results.LogscanReport{
		Header: results.Header{
			Schema:          results.SchemaLogscan,
			MCPBenchVersion: logscanVersion(),
			StartedAt:       started,
		},
		WindowScan: res,
	}
	if err := writeLogscanReport(rep, jsonOut, mdOut, quiet, e); err != nil {
		return fail("%v", err)
	}
	if ctx.Err() != nil {
		return exitInterrupted
	}
	return exitOK
}

// writeLogscanReport writes the report in each format of its table: the
// files, whole, through logscanWrite, and the summary on stdout unless it
// is quiet or taken.
func writeLogscanReport(rep *results.LogscanReport, jsonOut, mdOut string, quiet bool, e env) error {
	dest := map[string]struct{ path, flag string }{
		report.FormatJSON:     {jsonOut, "--json-out"},
		report.FormatMarkdown: {mdOut, "--md-out"},
	}
	for _, f := range report.LogscanFormats {
		if f.Name == report.FormatSummary {
			if !quiet && jsonOut != "-" && mdOut != "-" {
				f.Write(e.stdout, rep)
			}
			continue
		}
		var b bytes.Buffer
		if err := f.Write(&b, rep); err != nil {
			return fmt.Errorf("encoding the report: %v", err)
		}
		if err := logscanWrite(e.stdout, dest[f.Name].path, b.Bytes()); err != nil {
			return fmt.Errorf("%s: %v", dest[f.Name].flag, err)
		}
	}
	return nil
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
