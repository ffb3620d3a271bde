package toolschema

import (
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"math/rand/v2"
	"slices"
	"strconv"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"golang.org/x/text/language"
	"golang.org/x/text/message"
)

const (
	// softDepth: below this nesting, optional members are left out and
	// arrays kept to their minimum, so recursive schemas terminate.
	softDepth = 5
	// hardDepth: a schema still nesting here cannot terminate.
	hardDepth = 48
	// maxGenLength caps minLength/minItems that would produce huge values.
	maxGenLength = 1 << 16
	// defaultSpan is the width of a numeric range when a bound is missing.
	defaultSpan = 1000
	// maxWork caps the nodes plus string bytes of one generated value, so a
	// schema like nested huge minItems fails cleanly instead of eating memory.
	maxWork = 1 << 20
	// maxSafeInt is 2^53-1, the largest integer every JSON reader holds exactly.
	maxSafeInt = 1<<53 - 1
)

// Generator produces valid tools/call arguments for one tool's inputSchema.
// It is safe for concurrent use: every call starts from the seed again.
type Generator struct {
	tool   string
	seed   int64
	root   any
	ix     *index
	schema *jsonschema.Schema
}

// NewGenerator prepares argument generation for a tool. The schema is
// compiled once (2020-12 unless it names another draft in $schema) and its
// local references are checked up front.
func NewGenerator(toolName string, inputSchema json.RawMessage, seed int64) (*Generator, error) {
	root, err := decodeJSON(inputSchema)
	if err != nil {
		return nil, &SchemaError{Tool: toolName, Reason: "not valid JSON", Err: err}
	}
	switch root.(type) {
	case map[string]any, bool:
	default:
		return nil, &SchemaError{Tool: toolName, Reason: "a schema must be an object or a boolean"}
	}
	ix, err := newIndex(toolName, root)
	if err != nil {
		return nil, err
	}
	sch, err := compileSchema(root, true)
	if err != nil {
		return nil, &SchemaError{Tool: toolName, Reason: "does not compile", Err: err}
	}
	return &Generator{tool: toolName, seed: seed, root: root, ix: ix, schema: sch}, nil
}

// Tool returns the tool name the generator was made for.
func (g *Generator) Tool() string { return g.tool }

// genState is the per-call state: the random stream and caches.
type genState struct {
	tool    string
	ix      *index
	rng     *rand.Rand
	regexes map[string]*regexGen
	work    int
}

func (g *Generator) newState() *genState {
	// The tool name joins the seed so that two tools with one --seed do not
	// walk the same random stream.
	h := fnv.New64a()
	h.Write([]byte(g.tool))
	return &genState{
		tool:    g.tool,
		ix:      g.ix,
		rng:     rand.New(rand.NewPCG(uint64(g.seed), h.Sum64())),
		regexes: map[string]*regexGen{},
	}
}

func (st *genState) schemaErr(kw, ptr, reason string) *SchemaError {
	return &SchemaError{Tool: st.tool, Keyword: kw, Pointer: ptr, Reason: reason}
}

func (st *genState) schemaErrWrap(kw, ptr, reason string, err error) *SchemaError {
	return &SchemaError{Tool: st.tool, Keyword: kw, Pointer: ptr, Reason: reason, Err: err}
}

// Distinct returns exactly n argument sets, distinct by canonical JSON, each
// validated against the inputSchema. The same seed gives the same sets. When
// the schema admits fewer than n sets the error is a *CardinalityError.
func (g *Generator) Distinct(n int) ([]json.RawMessage, error) {
	if n <= 0 {
		return nil, nil
	}
	st := g.newState()
	// Small finite spaces are listed outright: that makes "only k sets
	// exist" exact, and finds all k when k == n without coupon collecting.
	limit := min(max(2048, 2*n), 1<<16)
	if vals, ok := st.enumerate(g.root, "", 0, limit); ok {
		sets, err := g.pickFrom(st, vals, n)
		var ce *CardinalityError
		if !errors.As(err, &ce) || ce.Available > 0 {
			return sets, err
		}
		// Nothing valid at all: random generation names the keyword at fault.
		if _, rerr := g.random(g.newState(), n); rerr != nil {
			return nil, rerr
		}
		return nil, err
	}
	return g.random(st, n)
}

// random draws values until n distinct valid ones are found, within a
// bounded number of attempts.
func (g *Generator) random(st *genState, n int) ([]json.RawMessage, error) {
	out := make([]json.RawMessage, 0, n)
	seen := make(map[string]bool, n)
	var lastErr error
	attempts := 20*n + 200
	for a := 0; a < attempts && len(out) < n; a++ {
		st.work = 0
		v, err := st.gen(g.root, "", 0)
		if err != nil {
			var se *SchemaError
			if errors.As(err, &se) {
				return nil, err
			}
			lastErr = err
			continue
		}
		b, err := canonical(v)
		if err != nil {
			lastErr = err
			continue
		}
		if seen[string(b)] {
			continue
		}
		if err := g.validate(b); err != nil {
			lastErr = err
			continue
		}
		seen[string(b)] = true
		out = append(out, json.RawMessage(b))
	}
	if len(out) < n {
		var se *SchemaError
		if errors.As(lastErr, &se) {
			// Every try failed the same way often enough to matter: report
			// the keyword that could not be met, with the tally.
			return nil, &SchemaError{Tool: se.Tool, Keyword: se.Keyword, Pointer: se.Pointer,
				Reason: fmt.Sprintf("cannot be satisfied: %s (%d of %d distinct sets after %d attempts)", se.Reason, len(out), n, attempts)}
		}
		if lastErr != nil {
			return nil, fmt.Errorf("toolschema: tool %q: %d of %d distinct valid argument sets after %d attempts: %w",
				g.tool, len(out), n, attempts, lastErr)
		}
		return nil, fmt.Errorf("toolschema: tool %q: only %d of %d distinct argument sets found after %d attempts",
			g.tool, len(out), n, attempts)
	}
	return out, nil
}

// pickFrom keeps the valid, distinct members of an enumerated space and
// draws n of them in seed order.
func (g *Generator) pickFrom(st *genState, vals []any, n int) ([]json.RawMessage, error) {
	seen := map[string]bool{}
	var valid []json.RawMessage
	for _, v := range vals {
		b, err := canonical(v)
		if err != nil || seen[string(b)] {
			continue
		}
		seen[string(b)] = true
		if g.validate(b) == nil {
			valid = append(valid, b)
		}
	}
	if len(valid) < n {
		return nil, &CardinalityError{Tool: g.tool, Requested: n, Available: len(valid)}
	}
	st.rng.Shuffle(len(valid), func(i, j int) { valid[i], valid[j] = valid[j], valid[i] })
	return valid[:n:n], nil
}

// validate checks canonical JSON bytes against the compiled schema, the
// way a server would see them on the wire.
func (g *Generator) validate(b []byte) error {
	v, err := decodeJSON(b)
	if err != nil {
		return err
	}
	err = g.schema.Validate(v)
	if err == nil {
		return nil
	}
	leaf := leafError(err)
	if leaf == nil {
		return err
	}
	ptr, kw := keywordOf(leaf)
	msg := leaf.ErrorKind.LocalizedString(message.NewPrinter(language.English))
	return &SchemaError{Tool: g.tool, Keyword: kw, Pointer: ptr,
		Reason: fmt.Sprintf("generated value fails at instance %q: %s", pointerJoin("", leaf.InstanceLocation...), msg)}
}

// gen produces one random value for subschema s found at ptr.
func (st *genState) gen(s any, ptr string, depth int) (any, error) {
	st.work++
	if st.work > maxWork {
		return nil, st.schemaErr("", ptr, fmt.Sprintf("a value would exceed %d nodes and bytes", maxWork))
	}
	if depth > hardDepth {
		return nil, st.schemaErr("$ref", ptr, fmt.Sprintf("schema nests deeper than %d levels without a way out", hardDepth))
	}
	m, err := st.normalize(s, ptr, 0)
	if err != nil {
		return nil, err
	}
	for _, kw := range []string{"oneOf", "anyOf"} {
		branches, ok := m[kw].([]any)
		if !ok || len(branches) == 0 {
			continue
		}
		delete(m, kw)
		var lastErr error
		for _, i := range st.rng.Perm(len(branches)) {
			bptr := pointerJoin(ptr, kw, strconv.Itoa(i))
			merged, err := st.withBranch(m, branches[i], bptr)
			if err != nil {
				lastErr = err
				continue
			}
			v, err := st.gen(merged, bptr, depth)
			if err == nil {
				return v, nil
			}
			lastErr = err
		}
		return nil, lastErr
	}
	if cond, ok := m["if"]; ok {
		delete(m, "if")
		then, hasThen := m["then"]
		els, hasElse := m["else"]
		delete(m, "then")
		delete(m, "else")
		var pick any
		var kw string
		if st.rng.IntN(2) == 0 && hasThen {
			pick, kw = map[string]any{"allOf": []any{cond, then}}, "then"
		} else if hasElse {
			pick, kw = els, "else"
		}
		if pick != nil {
			if merged, err := st.withBranch(m, pick, pointerJoin(ptr, kw)); err == nil {
				m = merged
			}
		}
	}
	if c, ok := m["const"]; ok {
		return c, nil
	}
	if e, ok := m["enum"]; ok {
		vals, _ := e.([]any)
		if len(vals) == 0 {
			return nil, st.schemaErr("enum", pointerJoin(ptr, "enum"), "enum lists no value")
		}
		return vals[st.rng.IntN(len(vals))], nil
	}
	types := typeSet(m)
	order := st.typeOrder(types)
	var lastErr error
	for _, t := range order {
		v, err := st.genType(t, m, ptr, depth)
		if err == nil {
			return v, nil
		}
		lastErr = err
	}
	return nil, lastErr
}

// typeOrder shuffles the allowed types, keeping null rare when there is a
// real alternative: a null argument exercises less of a server.
func (st *genState) typeOrder(types []string) []string {
	order := slices.Clone(types)
	st.rng.Shuffle(len(order), func(i, j int) { order[i], order[j] = order[j], order[i] })
	if i := slices.Index(order, "null"); i >= 0 && len(order) > 1 && st.rng.IntN(5) != 0 {
		order = append(slices.Delete(order, i, i+1), "null")
	}
	return order
}

// withBranch merges a oneOf/anyOf/then/else branch into a copy of base.
func (st *genState) withBranch(base map[string]any, branch any, ptr string) (map[string]any, error) {
	bn, err := st.normalize(branch, ptr, 0)
	if err != nil {
		return nil, err
	}
	out := make(map[string]any, len(base)+len(bn))
	for k, v := range base {
		out[k] = v
	}
	if err := st.mergeInto(out, bn, ptr); err != nil {
		return nil, err
	}
	return out, nil
}

func (st *genState) genType(t string, m map[string]any, ptr string, depth int) (any, error) {
	switch t {
	case "null":
		return nil, nil
	case "boolean":
		return st.rng.IntN(2) == 0, nil
	case "integer":
		return st.genInteger(m, ptr)
	case "number":
		return st.genNumber(m, ptr)
	case "string":
		return st.genString(m, ptr)
	case "object":
		return st.genObject(m, ptr, depth)
	case "array":
		return st.genArray(m, ptr, depth)
	}
	return nil, st.schemaErr("type", pointerJoin(ptr, "type"), fmt.Sprintf("unknown type %q", t))
}
