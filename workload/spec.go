// Package workload decides what a load test sends: the operations and
// their weights, the tools they call, the arguments (given, generated from
// a tool's inputSchema, or with fields injected), and the check of each
// answer against the tool's outputSchema. It adapts an mcp.Session to the
// engine's worker, so the engine (package bench) needs to know none of it.
//
// Files: spec.go (Spec, Build), mix.go (mix files), selection.go (which
// tools are called: named ones, or those the annotations allow), args.go
// (generated and injected arguments), plan.go (what will be called, said
// before anything is), validate.go (outputSchema checks), worker.go (the
// engine's worker), errors.go (what can be wrong with a Spec or a server).
// Sessions of a scenario file: scenario.go (the file), scenario_check.go
// (its checks), scenario_steps.go (the plan it compiles to),
// scenario_worker.go (the session workload), scenario_user.go (one user's
// sessions), datafile.go (argument rows), pathexpr.go (paths into
// results).
package workload

import (
	"context"
	"encoding/json"
	"slices"

	"github.com/mcpbench/mcpbench/mcp"
)

// Spec says what to send, as plain values: a command line fills one from
// its flags, a test writes one down.
type Spec struct {
	// Method, Tool and Args are a single operation. Args go with
	// tools/call only.
	Method string
	Tool   string
	Args   json.RawMessage
	// URI and Prompt name what resources/read, prompts/get and
	// completion/complete ask for (surface.go); Args go with the last two.
	URI    string
	Prompt string
	// GenArgs replaces Args with Cardinality distinct argument sets per
	// tool, generated from its inputSchema (fewer where the schema admits
	// fewer); it calls Tool, or the tools Select picks when Tool is "".
	// Method is tools/call then. Args given beside it are refused
	// (ErrGenArgsReplaces): one of the two was a mistake.
	GenArgs     bool
	Cardinality int
	// Select picks the tools of an operation that names none: by default
	// the read-only ones.
	Select Selection
	// Mix, when set, replaces all of the above: weighted operations.
	// Cardinality still counts for its entries with generated arguments.
	// A Tool or Args beside it is refused (ErrMixReplaces).
	Mix []MixEntry
	// Seed makes the generated arguments and a mix's choices repeatable.
	Seed uint64
	// Inject is a JSON object merged into every tools/call's arguments.
	Inject json.RawMessage
	// Validate checks each tools/call's structuredContent against the
	// tool's outputSchema; a mismatch is a schema_violation.
	Validate bool
}

// entries are the operations s stands for, as mix entries.
func (s Spec) entries() []MixEntry {
	switch {
	case len(s.Mix) > 0:
		return s.Mix
	case surfaceMethods[s.Method]:
		return []MixEntry{{Method: s.Method, Tool: s.Tool, URI: s.URI, Prompt: s.Prompt, Args: s.Args, GenArgs: s.GenArgs}}
	case s.GenArgs:
		return []MixEntry{{Method: "tools/call", Tool: s.Tool, GenArgs: true}}
	case s.Method == "tools/call":
		return []MixEntry{{Method: s.Method, Tool: s.Tool, Args: s.Args}}
	}
	return []MixEntry{{Method: s.Method}}
}

// Check reports what is wrong with s without asking the server.
func (s Spec) Check() error {
	if err := s.Select.check(); err != nil {
		return err
	}
	if s.Select.narrows() && !slices.ContainsFunc(s.entries(), picksTools) {
		return ErrGlobsUnused
	}
	switch {
	case len(s.Mix) > 0 && (s.Tool != "" || len(s.Args) > 0 || s.URI != "" || s.Prompt != ""):
		return ErrMixReplaces
	case len(s.Mix) == 0 && s.GenArgs && len(s.Args) > 0:
		return ErrGenArgsReplaces
	case len(s.Mix) > 0:
		if err := checkMix(s.Mix, nil); err != nil {
			return err
		}
	case s.URI != "" || s.Prompt != "":
		if !surfaceMethods[s.Method] {
			return ErrTargetUnused
		}
		if err := checkSurface(s.entries()[0]); err != nil {
			return err
		}
	case IsSurfaceMethod(s.Method):
		if err := checkSurface(s.entries()[0]); err != nil {
			return err
		}
	case !s.GenArgs:
		return checkSingle(s.Method, s.Tool)
	}
	for _, m := range s.entries() {
		if m.GenArgs && s.Cardinality < 1 {
			return ErrCardinality
		}
	}
	return nil
}

// checkSingle checks a single operation: a method the workload knows, and
// a tool exactly when it is tools/call.
func checkSingle(method, tool string) error {
	switch method {
	case "tools/list", "ping", "server/discover":
		if tool != "" {
			return ErrToolWithoutCall
		}
		return nil
	case "tools/call":
		if tool == "" {
			return ErrCallWithoutTool
		}
		return nil
	}
	return &MethodError{Method: method}
}

// Build makes the workload s describes. It lists the server's tools on a
// session of its own whenever a tool is called, and calls none.
func Build(ctx context.Context, client *mcp.Client, s Spec) (*Workload, error) {
	if err := s.Check(); err != nil {
		return nil, err
	}
	entries := s.entries()
	var cat catalog
	if needsCatalog(entries) {
		var err error
		if cat, err = listTools(ctx, client); err != nil {
			return nil, err
		}
	}
	var ops []Op
	for _, m := range entries {
		expand := func() ([]Op, error) { return s.expand(m, cat) }
		if IsSurfaceMethod(m.Method) {
			expand = func() ([]Op, error) { return s.expandSurface(ctx, client, m) }
		}
		more, err := expand()
		if err != nil {
			return nil, err
		}
		ops = append(ops, more...)
	}
	wl := &Workload{Client: client, Ops: ops, Seed: s.Seed}
	if s.Validate {
		var err error
		if wl.Validate, err = newValidator(ops, cat); err != nil {
			return nil, err
		}
	}
	return wl, nil
}

// expand turns one entry into its operations: one per tool it calls, with
// their arguments. The tools an entry picks share its weight.
func (s Spec) expand(m MixEntry, cat catalog) ([]Op, error) {
	if m.Method != "tools/call" {
		return []Op{{Request: mcp.Request{Method: m.Method}, Weight: m.Weight}}, nil
	}
	names, err := cat.toolsFor(m, s.Select)
	if err != nil {
		return nil, err
	}
	weight := m.Weight
	if picksTools(m) {
		weight /= float64(len(names))
	}
	ops := make([]Op, 0, len(names))
	for _, name := range names {
		info := cat.info(name, m.Tool != "")
		op := Op{Request: mcp.Request{Method: "tools/call", Tool: name, Arguments: m.Args}, Weight: weight, Info: &info}
		if m.GenArgs {
			if op.ArgSets, info.CardinalityNote, err = cat.generate(name, s.Seed, s.Cardinality); err != nil {
				return nil, err
			}
			info.ArgSets = len(op.ArgSets)
		}
		if s.Inject != nil {
			if err := injectInto(&op, s.Inject); err != nil {
				return nil, err
			}
		}
		ops = append(ops, op)
	}
	return ops, nil
}

// picksTools reports whether an entry leaves the choice of tools to the
// workload.
func picksTools(m MixEntry) bool { return m.Method == "tools/call" && m.Tool == "" }
