package main

import (
	"context"
	"math"
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
  mcpbench logscan .run/logs/mcp.log
  mcpbench logscan --from-offset 512 --json-out - .run/logs/mcp.log
`

// logscanFlags are logscan's flags.
type logscanFlags struct {
	fromOffset int64
	output     outputFlags
}

func (f *logscanFlags) flagSet() *pflag.FlagSet {
	return declare("logscan", append([]flagDecl{
		{name: "from-offset", to: &f.fromOffset, group: "Log window", rng: zeroOrMore(math.MaxInt64), usage: "byte offset where the window starts (0 = the start of the file)"},
	}, f.output.reports()...)...)
}

// logscanMain implements `mcpbench logscan`.
func logscanMain(ctx context.Context, args []string, e env) int {
	var f logscanFlags
	fs := f.flagSet()
	if done, code := parseFlags(fs, args, logscanUsage, e); done {
		return code
	}
	if fs.NArg() != 1 {
		return exitFor(e, "logscan", usagef("expected one log FILE, got %d arguments (see --help)", fs.NArg()))
	}
	outs := f.output.outputs(e)
	if err := checkOutputs(files(outs)); err != nil {
		return exitFor(e, "logscan", err)
	}
	path := fs.Arg(0)
	started := time.Now().UTC()
	from := logscan.Offset{}
	var err error
	if f.fromOffset != 0 {
		from, err = logscan.MarkAt(path, f.fromOffset)
	}
	var res logscan.WindowScan
	if err == nil {
		res, err = logscan.Scan(path, from)
	}
	if err != nil {
		return exitFor(e, "logscan", usagef("%v", err))
	}
	rep := &results.LogscanReport{
		Header:     results.Header{Schema: results.SchemaLogscan, MCPBenchVersion: buildVersion(), StartedAt: started},
		WindowScan: res,
	}
	writeErr := writeFormats(report.LogscanFormats, rep, outs, e)
	return finish(e, "logscan", writeErr, ctx.Err() != nil, false)
}
