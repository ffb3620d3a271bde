// Package workload decides what a load test sends: the operations and
// their weights, the tools they call, the arguments (given, generated from
// a tool's inputSchema, or with fields injected), and the check of each
// answer against the tool's outputSchema. It adapts an mcp.Session to the
// engine's worker, so the engine (package bench) needs to know none of it.
//
// Files: spec.go (Spec, Build), mix.go (mix files), selection.go (which
// tools are called), args.go (generated and injected arguments),
// validate.go (outputSchema checks), worker.go (the engine's worker),
// errors.go (what can be wrong with a Spec or a server).
package workload

import (
	"context"
	"encoding/json"

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
	// GenArgs replaces Args with Cardinality distinct argument sets per
	// tool, generated from its inputSchema; it calls Tool, or every tool
	// the server lists when Tool is "". Method is tools/call then. Args
	// given beside it are refused (ErrGenArgsReplaces): one of the two
	// was a mistake.
	GenArgs     bool
	Cardinality int
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
	case s.GenArgs:
		return []MixEntry{{Method: "tools/call", Tool: s.Tool, GenArgs: true}}
	case s.Method == "tools/call":
		return []MixEntry{{Method: s.Method, Tool: s.Tool, Args: s.Args}}
	}
	return []MixEntry{{Method: s.Method}}
}

// Check reports what is wrong with s without asking the server.
func (s Spec) Check() error {
	switch {
	case len(s.Mix) > 0 && (s.Tool != "" || len(s.Args) > 0):
		return ErrMixReplaces
	case len(s.Mix) == 0 && s.GenArgs && len(s.Args) > 0:
		return ErrGenArgsReplaces
	case len(s.Mix) > 0:
		if err := checkMix(s.Mix); err != nil {
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
// session of its own when arguments are generated, a mix calls every
// tool, or answers are validated.
func Build(ctx context.Context, client *mcp.Client, s Spec) (*Workload, error) {
	if err := s.Check(); err != nil {
		return nil, err
	}
	entries := s.entries()
	var cat catalog
	if needsCatalog(entries, s.Validate) {
		var err error
		if cat, err = listTools(ctx, client); err != nil {
			return nil, err
		}
	}
	var ops []Op
	for _, m := range entries {
		more, err := s.expand(m, cat)
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
// their arguments.
func (s Spec) expand(m MixEntry, cat catalog) ([]Op, error) {
	if m.Method != "tools/call" {
		return []Op{{Request: mcp.Request{Method: m.Method}, Weight: m.Weight}}, nil
	}
	names, err := cat.toolsFor(m)
	if err != nil {
		return nil, err
	}
	ops := make([]Op, 0, len(names))
	for _, name := range names {
		op := Op{Request: mcp.Request{Method: "tools/call", Tool: name, Arguments: m.Args}, Weight: m.Weight}
		if m.GenArgs {
			if op.ArgSets, err = cat.generate(name, s.Seed, s.Cardinality); err != nil {
				return nil, err
			}
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
