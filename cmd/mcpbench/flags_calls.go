package main

import (
	"encoding/json"
	"errors"
	"os"
	"strings"

	"github.com/mcpbench/mcpbench/mcp"
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
	// Which tools --gen-args (or a mix entry with no tool) may pick.
	allowWrites      bool
	allowDestructive bool
	tools            []string
	excludeTools     []string
	// dryRun prints the plan and calls nothing.
	dryRun bool
}

// flags declares how tools/call traffic is shaped.
func (f *callFlags) flags() []flagDecl {
	return []flagDecl{
		{name: "gen-args", to: &f.genArgs, group: "Workload and tools", usage: "generate valid, varied tools/call arguments from each tool's inputSchema (resources/read: URIs from resources/list and its templates; prompts/get, completion/complete: prompts and arguments from prompts/list)"},
		{name: "arg-cardinality", to: &f.cardinality, def: 16, group: "Workload and tools", rng: atLeastOne(maxCardinality), usage: "with --gen-args: N distinct argument sets per tool"},
		{name: "mix", to: &f.mix, group: "Workload and tools", usage: "weighted mix `FILE`: JSON list of {method, tool, args, gen_args, weight}"},
		{name: "inject-args", to: &f.inject, group: "Workload and tools", usage: "JSON object merged into every tools/call's arguments"},
		{name: "no-validate", to: &f.noValidate, group: "Workload and tools", usage: "do not check structuredContent against the tool's outputSchema"},
		{name: "allow-writes", to: &f.allowWrites, group: "Workload and tools", usage: "with --gen-args: also call tools that may write but are annotated destructiveHint: false (by default only readOnlyHint: true tools are called)"},
		{name: "allow-destructive", to: &f.allowDestructive, group: "Workload and tools", usage: "with --gen-args: also call tools that may destroy data (annotated so, or not annotated at all)"},
		{name: "tools", to: &f.tools, list: true, group: "Workload and tools", usage: "with --gen-args: call only the tools matching one of these `GLOB`s, e.g. 'read_*,list_*'"},
		{name: "exclude-tools", to: &f.excludeTools, list: true, group: "Workload and tools", usage: "with --gen-args: never call the tools matching one of these `GLOB`s"},
		{name: "dry-run", to: &f.dryRun, group: "Workload and tools", usage: "connect, list the tools and print the plan (tools, annotations, sample arguments, load), then exit without calling any tool"},
	}
}

// spec turns the workload flags into a workload.Spec, with every check
// that needs no server, so a usage error is exit 2 even when the server is
// down. Flags that replace others go into the Spec as given: building it
// refuses them, after dialling, so a server that is down is reported
// first, as it always was.
func (f *callFlags) spec(w *workloadFlags) (workload.Spec, error) {
	s := workload.Spec{Method: w.method, Tool: w.tool, URI: w.uri, Prompt: w.prompt, GenArgs: f.genArgs, Cardinality: f.cardinality,
		Seed: w.seed, Validate: !f.noValidate, Select: f.selection()}
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
		if err = workloadError(s.Check()); err == nil && (s.Method == "tools/call" || s.Method == "prompts/get" || s.Method == "completion/complete") {
			s.Args, err = readJSONArg("--args", w.args)
		}
	}
	return s, err
}

// scenarioError is a scenario step the server's tools make impossible:
// the file names the step, the flags only the selection.
func scenarioError(err *workload.StepError) error {
	var sel *workload.SelectionError
	if errors.As(err, &sel) {
		hint := strings.ReplaceAll(selectionHint(sel), "name a tool with --tool", "name the tool in the step")
		return usagef("--scenario: %v: %s", err, hint)
	}
	return usagef("--scenario: %v", err)
}

// selection is which tools a workload may pick itself: by --gen-args, a
// mix entry or a scenario step that names no tool.
func (f *callFlags) selection() workload.Selection {
	return workload.Selection{AllowWrites: f.allowWrites, AllowDestructive: f.allowDestructive, Include: f.tools, Exclude: f.excludeTools}
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
		sel    *workload.SelectionError
		glob   *workload.GlobError
	)
	var step *workload.StepError
	switch {
	case err == nil:
		return nil
	case errors.As(err, &server):
		return serverError(server)
	case errors.As(err, &step):
		return scenarioError(step)
	case errors.Is(err, workload.ErrMixReplaces):
		return usagef("--mix replaces --tool and --args")
	case errors.Is(err, workload.ErrGenArgsReplaces):
		return usagef("--gen-args replaces --args")
	case errors.As(err, &method):
		return usagef("--%v", method) // "--method must be ..."
	case errors.Is(err, workload.ErrTargetUnused):
		return usagef("--uri and --prompt go with --method resources/read, prompts/get or completion/complete")
	case errors.Is(err, workload.ErrToolWithoutCall):
		return usagef("--tool goes with --method tools/call")
	case errors.Is(err, workload.ErrCallWithoutTool):
		return usagef("--method tools/call needs --tool NAME")
	case errors.Is(err, workload.ErrGlobsUnused):
		return usagef("--tools and --exclude-tools narrow the tools --gen-args picks; here every tool is named (--tool, or the mix)")
	case errors.As(err, &glob):
		return usagef("--tools/--exclude-tools: bad glob %q", glob.Glob)
	case errors.As(err, &tool):
		return usagef("%v", err) // a --tool or a mix entry: the name says which
	case errors.As(err, &sel):
		return usagef("--gen-args: %v: %s", err, selectionHint(sel))
	case errors.As(err, &inject):
		return usagef("--inject-args: %v", inject.Err)
	case errors.As(err, &card):
		return usagef("%v (lower --arg-cardinality to %d)", err, card.Available)
	}
	// A tool's inputSchema that arguments cannot be generated from, or a
	// cardinality below 1.
	return usagef("%v", err)
}

// selectionHint names the flags that would let --gen-args call the tools
// it left out.
func selectionHint(sel *workload.SelectionError) string {
	writes, destructive := sel.Left[workload.Additive], sel.Left[workload.Destructive]
	switch {
	case writes == 0 && destructive == 0:
		return "widen --tools or --exclude-tools, or name a tool with --tool"
	case destructive == 0:
		return "--allow-writes calls them, or name a tool with --tool"
	case writes == 0:
		return "--allow-destructive calls them (only against a server whose data may be lost), or name a tool with --tool"
	}
	return "--allow-writes calls those that may write, --allow-destructive all of them (only against a server whose data may be lost), or name a tool with --tool"
}

// serverError is a server whose tools make the workload impossible: the
// unreachable exit, with the auth hint when credentials were the trouble.
func serverError(e *workload.ServerError) error {
	if _, ok := errors.AsType[*mcp.AuthError](e); ok {
		return authError(e.Msg)
	}
	return unreachableError{e.Msg}
}
