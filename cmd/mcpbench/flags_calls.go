package main

import (
	"encoding/json"
	"errors"
	"os"

	"github.com/spf13/pflag"

	"github.com/mcpbench/mcpbench/toolschema"
	"github.com/mcpbench/mcpbench/workload"
)

// callFlags shape tools/call traffic: generated arguments, mixes, injected
// fields and output validation.
type callFlags struct {
	genArgs     bool
	cardinality int
	mix         string
	inject      string
	noValidate  bool
}

func (f *callFlags) register(fs *pflag.FlagSet) {
	fs.BoolVar(&f.genArgs, "gen-args", false, "generate valid, varied tools/call arguments from each tool's inputSchema")
	fs.IntVar(&f.cardinality, "arg-cardinality", 16, "with --gen-args: N distinct argument sets per tool")
	fs.StringVar(&f.mix, "mix", "", "weighted mix `FILE`: JSON list of {method, tool, args, gen_args, weight}")
	fs.StringVar(&f.inject, "inject-args", "", "JSON object merged into every tools/call's arguments")
	fs.BoolVar(&f.noValidate, "no-validate", false, "do not check structuredContent against the tool's outputSchema")
}

// spec turns the workload flags into a workload.Spec, with every check
// that needs no server, so a usage error is exit 2 even when the server is
// down. Flags that replace others go into the Spec as given: workload.Build
// refuses them, after dialling, so a server that is down is reported
// first, as it always was.
func (f *callFlags) spec(w *workloadFlags) (workload.Spec, error) {
	s := workload.Spec{Method: w.method, Tool: w.tool, GenArgs: f.genArgs, Cardinality: f.cardinality,
		Seed: w.seed, Validate: !f.noValidate}
	if f.cardinality < 1 {
		return s, usagef("--arg-cardinality must be at least 1")
	}
	var err error
	if s.Inject, err = readJSONArg("--inject-args", f.inject); err != nil {
		return s, err
	}
	switch {
	case f.mix != "":
		s.Mix, err = readMix(f.mix)
		s.Args = rawArgs(w.args)
	case f.genArgs:
		s.Args = rawArgs(w.args)
	default:
		// --args is read only for tools/call, and only once the method
		// and tool are known to be right.
		if err = workloadError(s.Check()); err == nil && s.Method == "tools/call" {
			s.Args, err = readJSONArg("--args", w.args)
		}
	}
	return s, err
}

// readMix reads a --mix file.
func readMix(path string) ([]workload.MixEntry, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, usagef("--mix: %v", err)
	}
	mix, err := workload.ParseMix(b)
	if err != nil {
		return nil, usagef("--mix %s: %v", path, err)
	}
	return mix, nil
}

// rawArgs is --args as given, unread: beside --mix or --gen-args it is
// only there to be refused.
func rawArgs(v string) json.RawMessage {
	if v == "" {
		return nil
	}
	return json.RawMessage(v)
}

// workloadError puts a workload error in the command line's terms: the
// flag at fault and exit 2 for a workload that cannot be, the unreachable
// exit for a server whose tools make it impossible.
func workloadError(err error) error {
	var (
		server *workload.ServerError
		method *workload.MethodError
		tool   *workload.UnknownToolError
		inject *workload.InjectError
		card   *toolschema.CardinalityError
	)
	switch {
	case err == nil:
		return nil
	case errors.As(err, &server):
		return unreachableError{server.Msg}
	case errors.Is(err, workload.ErrMixReplaces):
		return usagef("--mix replaces --tool and --args")
	case errors.Is(err, workload.ErrGenArgsReplaces):
		return usagef("--gen-args replaces --args")
	case errors.As(err, &method):
		return usagef("--%v", method) // "--method must be ..."
	case errors.Is(err, workload.ErrToolWithoutCall):
		return usagef("--tool goes with --method tools/call")
	case errors.Is(err, workload.ErrCallWithoutTool):
		return usagef("--method tools/call needs --tool NAME")
	case errors.As(err, &tool):
		return usagef("--gen-args: the server lists no tool %q", tool.Tool)
	case errors.As(err, &inject):
		return usagef("--inject-args: %v", inject.Err)
	case errors.As(err, &card):
		return usagef("%v (lower --arg-cardinality to %d)", err, card.Available)
	}
	// A tool's inputSchema that arguments cannot be generated from, or a
	// cardinality below 1.
	return usagef("%v", err)
}
