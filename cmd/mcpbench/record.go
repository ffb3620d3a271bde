package main

import (
	"context"
	"fmt"
	"time"

	"github.com/spf13/pflag"

	"github.com/mcpbench/mcpbench/harness"
)

const recordUsage = `Usage: mcpbench record --listen HOST:PORT --upstream URL --scenario-out FILE [flags]
       mcpbench record --scenario-out FILE [flags] -- CMD ARGS...

Record a real client's sessions as a scenario file: point the client at
the proxy's URL (printed first on stdout) instead of the server. Every
message is forwarded unchanged, Streamable HTTP's JSON and SSE answers,
GET streams and DELETEs alike; each session is written as a scenario of
FILE (steps with their tools and arguments, the pauses between an answer
and the next request as think steps, requests sent before the others were
answered as a parallel block). FILE is written whenever a client ends a
session and when record stops (Ctrl-C or SIGTERM). Replay it with
mcpbench run --scenario FILE (--think-scale X to change the pauses).
A tool called with varying arguments gets a data file beside FILE
(FILE's stem.TOOL.jsonl) that its steps draw from; the server's requests
to the client are noted on the step in flight (server_requests), and the
client's answers written beside FILE as STEM.client-requests.json for
the replay's --client-requests.
With a stdio server, make record the command the client launches, with
the server's own command after --: the client's lines go to it and its
lines come back unchanged, and FILE is written when the client closes.

Flags:
%s
Example:
  mcpbench record --listen 127.0.0.1:4000 --upstream http://127.0.0.1:3002/mcp --scenario-out agent.yaml
`

type recordFlags struct {
	listen, upstream, out string
	redact                []string
	minAnswer             time.Duration
}

func (f *recordFlags) flagSet() *pflag.FlagSet {
	return declare("record",
		flagDecl{name: "listen", to: &f.listen, def: "127.0.0.1:0", group: "Target and transport", usage: "where the client connects, `HOST:PORT` (port 0: any free port)"},
		flagDecl{name: "upstream", to: &f.upstream, group: "Target and transport", usage: "the server's MCP endpoint `URL`"},
		flagDecl{name: "scenario-out", to: &f.out, group: "Outputs", usage: "the scenario `FILE` to write"},
		flagDecl{name: "redact", to: &f.redact, list: true, group: "Outputs", usage: "argument `PATH`s (a.b for nested fields) whose values are written as REDACTED"},
		flagDecl{name: "min-answer-time", to: &f.minAnswer, def: 250 * time.Millisecond, group: "Target and transport", rng: pauseUpTo(time.Minute), usage: "hold answers that come sooner until `D` after their request, so that requests a client sends at once reach record before the first answer leaves, however fast the server (0: pass answers on at once)"})
}

// recordMain implements `mcpbench record`.
func recordMain(ctx context.Context, args []string, e env) int {
	var f recordFlags
	fs := f.flagSet()
	if done, code := parseFlags(fs, args, recordUsage, e); done {
		return code
	}
	stdio := fs.ArgsLenAtDash() >= 0
	switch {
	case fs.NArg() != 0 && !stdio:
		return exitFor(e, "record", usagef("unexpected argument %q (a stdio server command goes after --)", fs.Arg(0)))
	case stdio && fs.NArg() == 0:
		return exitFor(e, "record", usagef("no server command after --"))
	case stdio && f.upstream != "":
		return exitFor(e, "record", usagef("--upstream is for HTTP servers; a stdio server's command goes after -- alone"))
	case f.out == "":
		return exitFor(e, "record", usagef("--scenario-out FILE is required"))
	case stdio:
		// The client runs record as its server: stdout is the protocol's.
		err := harness.Record(ctx, harness.RecordOptions{Command: fs.Args(), Out: f.out, Redact: f.redact,
			Stdin: e.stdin, Stdout: e.stdout, Stderr: e.stderr})
		if err != nil {
			return exitFor(e, "record", usagef("%v", err))
		}
		return exitOK
	case f.upstream == "":
		return exitFor(e, "record", usagef("--upstream URL is required: the server's MCP endpoint"))
	}
	if err := checkURL(f.upstream); err != nil {
		return exitFor(e, "record", err)
	}
	err := harness.Record(ctx, harness.RecordOptions{Listen: f.listen, Upstream: f.upstream, Out: f.out, Redact: f.redact,
		MinAnswerTime: f.minAnswer,
		Ready:         func(url string) { fmt.Fprintf(e.stdout, "mcpbench record: listening on %s\n", url) },
		Wrote:         func(n int) { fmt.Fprintf(e.stderr, "mcpbench record: %s: %d session(s)\n", f.out, n) },
	})
	if err != nil {
		return exitFor(e, "record", usagef("%v", err))
	}
	return exitOK
}
