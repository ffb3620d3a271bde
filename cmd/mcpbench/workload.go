package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"

	"github.com/spf13/pflag"

	"github.com/mcpbench/mcpbench/bench"
	"github.com/mcpbench/mcpbench/mcp"
	"github.com/mcpbench/mcpbench/toolschema"
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

// precheck catches bad workload flags before anything is dialled, so a
// usage error is exit 2 even when the server is down.
func (f *callFlags) precheck(w *workloadFlags) error {
	if f.cardinality < 1 {
		return usagef("--arg-cardinality must be at least 1")
	}
	if f.inject != "" {
		if _, err := readJSONArg("--inject-args", f.inject); err != nil {
			return err
		}
	}
	switch {
	case f.mix != "":
		_, err := readMix(f.mix)
		return err
	case f.genArgs:
		return nil
	}
	_, err := w.ops()
	return err
}

// mixEntry is one line of a --mix file.
type mixEntry struct {
	Method  string          `json:"method"`
	Tool    string          `json:"tool"`
	Args    json.RawMessage `json:"args"`
	GenArgs bool            `json:"gen_args"`
	Weight  float64         `json:"weight"`
}

func readMix(path string) ([]mixEntry, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, usagef("--mix: %v", err)
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	var mix []mixEntry
	if err := dec.Decode(&mix); err != nil {
		return nil, usagef("--mix %s: %v", path, err)
	}
	if len(mix) == 0 {
		return nil, usagef("--mix %s: no operations", path)
	}
	for i, m := range mix {
		switch {
		case m.Weight < 0:
			return nil, usagef("--mix %s: entry %d has a negative weight", path, i+1)
		case m.Method == "":
			return nil, usagef("--mix %s: entry %d has no method", path, i+1)
		case m.Method == "tools/call" && m.Tool == "":
			return nil, usagef("--mix %s: entry %d calls no tool", path, i+1)
		case m.Method != "tools/call" && (m.Tool != "" || m.GenArgs || len(m.Args) > 0):
			return nil, usagef("--mix %s: entry %d: tool, args and gen_args go with tools/call", path, i+1)
		}
	}
	return mix, nil
}

// buildOps turns the workload flags into operations, listing the server's
// tools when arguments are generated or results validated.
func buildOps(ctx context.Context, client *mcp.Client, w *workloadFlags, cf *callFlags) ([]bench.Op, bench.Validator, error) {
	if cf.cardinality < 1 {
		return nil, nil, usagef("--arg-cardinality must be at least 1")
	}
	var inject json.RawMessage
	if cf.inject != "" {
		var err error
		if inject, err = readJSONArg("--inject-args", cf.inject); err != nil {
			return nil, nil, err
		}
	}
	var mix []mixEntry
	switch {
	case cf.mix != "":
		if w.tool != "" || w.args != "" {
			return nil, nil, usagef("--mix replaces --tool and --args")
		}
		var err error
		if mix, err = readMix(cf.mix); err != nil {
			return nil, nil, err
		}
	case cf.genArgs:
		if w.args != "" {
			return nil, nil, usagef("--gen-args replaces --args")
		}
		mix = []mixEntry{{Method: "tools/call", Tool: w.tool, GenArgs: true}}
	default:
		ops, err := w.ops()
		if err != nil {
			return nil, nil, err
		}
		mix = []mixEntry{{Method: ops[0].Request.Method, Tool: ops[0].Request.Tool, Args: ops[0].Request.Arguments}}
	}

	needList := false
	for _, m := range mix {
		if m.Method == "tools/call" && (m.GenArgs || !cf.noValidate) {
			needList = true
		}
	}
	tools := map[string]toolDef{}
	var order []string
	if needList {
		s, err := client.NewSession(ctx)
		if err != nil {
			return nil, nil, unreachableError{fmt.Sprintf("listing tools: %v", err)}
		}
		raw, _, err := client.ListTools(ctx, s)
		_ = s.Close(ctx)
		if err != nil {
			return nil, nil, unreachableError{fmt.Sprintf("listing tools: %v", err)}
		}
		for _, r := range raw {
			var t toolDef
			if json.Unmarshal(r, &t) == nil && t.Name != "" {
				tools[t.Name] = t
				order = append(order, t.Name)
			}
		}
	}

	var ops []bench.Op
	for _, m := range mix {
		if m.Method != "tools/call" {
			ops = append(ops, bench.Op{Request: mcp.Request{Method: m.Method}, Weight: m.Weight})
			continue
		}
		names := []string{m.Tool}
		if m.Tool == "" { // --gen-args over every tool listed
			names = order
			if len(names) == 0 {
				return nil, nil, unreachableError{"the server lists no tools to call"}
			}
		}
		for _, name := range names {
			op := bench.Op{Request: mcp.Request{Method: "tools/call", Tool: name, Arguments: m.Args}, Weight: m.Weight}
			if m.GenArgs {
				t, ok := tools[name]
				if !ok {
					return nil, nil, usagef("--gen-args: the server lists no tool %q", name)
				}
				g, err := toolschema.NewGenerator(name, t.InputSchema, int64(w.seed))
				if err != nil {
					return nil, nil, usagef("%v", err)
				}
				sets, err := g.Distinct(cf.cardinality)
				var ce *toolschema.CardinalityError
				if errors.As(err, &ce) {
					return nil, nil, usagef("%v (lower --arg-cardinality to %d)", err, ce.Available)
				}
				if err != nil {
					return nil, nil, usagef("%v", err)
				}
				op.ArgSets = sets
			}
			if inject != nil {
				if err := injectInto(&op, inject); err != nil {
					return nil, nil, err
				}
			}
			ops = append(ops, op)
		}
	}
	if cf.noValidate {
		return ops, nil, nil
	}
	validators := map[string]*toolschema.OutputValidator{}
	for _, op := range ops {
		t, ok := tools[op.Request.Tool]
		if !ok || len(t.OutputSchema) == 0 || validators[t.Name] != nil {
			continue
		}
		v, err := toolschema.CompileOutputSchema(t.OutputSchema)
		if err != nil {
			return nil, nil, unreachableError{fmt.Sprintf("tool %q has an outputSchema that does not compile: %v", t.Name, err)}
		}
		validators[t.Name] = v
	}
	if len(validators) == 0 {
		return ops, nil, nil
	}
	return ops, func(tool string, structured json.RawMessage) error {
		v := validators[tool]
		if v == nil {
			return nil
		}
		if viol := v.Validate(structured); viol != nil {
			return viol
		}
		return nil
	}, nil
}

type toolDef struct {
	Name         string          `json:"name"`
	InputSchema  json.RawMessage `json:"inputSchema"`
	OutputSchema json.RawMessage `json:"outputSchema"`
}

func injectInto(op *bench.Op, inject json.RawMessage) error {
	merge := func(args json.RawMessage) (json.RawMessage, error) {
		m, err := toolschema.Merge(args, inject)
		if err != nil {
			return nil, usagef("--inject-args: %v", err)
		}
		return m, nil
	}
	var err error
	if op.Request.Arguments, err = merge(op.Request.Arguments); err != nil {
		return err
	}
	for i := range op.ArgSets {
		if op.ArgSets[i], err = merge(op.ArgSets[i]); err != nil {
			return err
		}
	}
	return nil
}
