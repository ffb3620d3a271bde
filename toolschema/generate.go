package toolschema

import (
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"math"
	"math/big"
	"math/rand/v2"
	"regexp"
	"slices"
	"strconv"
	"strings"

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

// numBounds reads minimum/maximum and both spellings of the exclusive
// bounds: numbers (2019-09 and later, draft-06/07) and booleans (draft-04).
type numBounds struct {
	lo, hi       float64
	hasLo, hasHi bool
	exLo, exHi   bool
	loKw, hiKw   string
	loRaw, hiRaw any
}

func readBounds(m map[string]any) numBounds {
	var b numBounds
	if v, ok := num(m["minimum"]); ok {
		b.lo, b.hasLo, b.loKw, b.loRaw = v, true, "minimum", m["minimum"]
	}
	if v, ok := num(m["maximum"]); ok {
		b.hi, b.hasHi, b.hiKw, b.hiRaw = v, true, "maximum", m["maximum"]
	}
	switch x := m["exclusiveMinimum"].(type) {
	case bool:
		b.exLo = x && b.hasLo
	default:
		if v, ok := num(x); ok && (!b.hasLo || v >= b.lo) {
			b.lo, b.hasLo, b.exLo, b.loKw, b.loRaw = v, true, true, "exclusiveMinimum", x
		}
	}
	switch x := m["exclusiveMaximum"].(type) {
	case bool:
		b.exHi = x && b.hasHi
	default:
		if v, ok := num(x); ok && (!b.hasHi || v <= b.hi) {
			b.hi, b.hasHi, b.exHi, b.hiKw, b.hiRaw = v, true, true, "exclusiveMaximum", x
		}
	}
	return b
}

// intRange is the inclusive integer range a schema allows, with a default
// width where a side is open.
func (st *genState) intRange(m map[string]any, ptr string) (lo, hi int64, err error) {
	b := readBounds(m)
	flo, fhi := b.lo, b.hi
	if b.hasLo {
		if b.exLo {
			flo = math.Floor(flo) + 1
		} else {
			flo = math.Ceil(flo)
		}
	}
	if b.hasHi {
		if b.exHi {
			fhi = math.Ceil(fhi) - 1
		} else {
			fhi = math.Floor(fhi)
		}
	}
	switch {
	case !b.hasLo && !b.hasHi:
		flo, fhi = 0, defaultSpan
	case !b.hasLo:
		flo = math.Min(0, fhi-defaultSpan)
		if fhi < 0 {
			flo = fhi - defaultSpan
		}
	case !b.hasHi:
		fhi = flo + defaultSpan
	}
	flo = math.Max(flo, -maxSafeInt)
	fhi = math.Min(fhi, maxSafeInt)
	if flo > fhi {
		kw := b.loKw
		if kw == "" {
			kw = b.hiKw
		}
		return 0, 0, st.schemaErr(kw, pointerJoin(ptr, kw),
			fmt.Sprintf("no integer lies between %s %v and %s %v", b.loKw, b.lo, b.hiKw, b.hi))
	}
	return int64(flo), int64(fhi), nil
}

func (st *genState) genInteger(m map[string]any, ptr string) (any, error) {
	lo, hi, err := st.intRange(m, ptr)
	if err != nil {
		return nil, err
	}
	step := int64(1)
	if mr, ok := ratOf(m["multipleOf"]); ok && mr.Sign() > 0 {
		// An integer is a multiple of p/q (in lowest terms) exactly when p
		// divides it.
		if !mr.Num().IsInt64() {
			return nil, st.schemaErr("multipleOf", pointerJoin(ptr, "multipleOf"), "multipleOf is too large")
		}
		step = mr.Num().Int64()
	}
	kLo := ceilDiv(lo, step)
	kHi := floorDiv(hi, step)
	if kLo > kHi {
		return nil, st.schemaErr("multipleOf", pointerJoin(ptr, "multipleOf"),
			fmt.Sprintf("no multiple of %d lies in [%d, %d]", step, lo, hi))
	}
	k := kLo + st.rng.Int64N(kHi-kLo+1)
	return json.Number(strconv.FormatInt(k*step, 10)), nil
}

func floorDiv(a, b int64) int64 {
	q := a / b
	if (a%b != 0) && ((a < 0) != (b < 0)) {
		q--
	}
	return q
}

func ceilDiv(a, b int64) int64 { return -floorDiv(-a, b) }

func (st *genState) genNumber(m map[string]any, ptr string) (any, error) {
	b := readBounds(m)
	lo, hi := b.lo, b.hi
	switch {
	case !b.hasLo && !b.hasHi:
		lo, hi = 0, defaultSpan
	case !b.hasLo:
		lo = math.Min(0, hi-defaultSpan)
	case !b.hasHi:
		hi = lo + defaultSpan
	}
	if lo > hi || (lo == hi && (b.exLo || b.exHi)) {
		return nil, st.schemaErr(b.loKw, pointerJoin(ptr, b.loKw),
			fmt.Sprintf("no number lies between %s %v and %s %v", b.loKw, b.lo, b.hiKw, b.hi))
	}
	if mr, ok := ratOf(m["multipleOf"]); ok && mr.Sign() > 0 {
		return st.multipleInRange(mr, lo, hi, b.exLo, b.exHi, ptr)
	}
	v := lo + st.rng.Float64()*(hi-lo)
	if r := math.Round(v*100) / 100; hi-lo >= 1 && r >= lo && r <= hi {
		v = r // two decimals read like real input
	}
	if (b.exLo && v <= lo) || (b.exHi && v >= hi) {
		v = lo + (hi-lo)/2
	}
	return json.Number(strconv.FormatFloat(v, 'g', -1, 64)), nil
}

// multipleInRange picks k*m within the bounds, computed exactly so that the
// validator's rational multipleOf check agrees.
func (st *genState) multipleInRange(m *big.Rat, lo, hi float64, exLo, exHi bool, ptr string) (any, error) {
	mf, _ := m.Float64()
	kLo := math.Ceil(lo / mf)
	kHi := math.Floor(hi / mf)
	if exLo && kLo*mf <= lo {
		kLo++
	}
	if exHi && kHi*mf >= hi {
		kHi--
	}
	if kLo > kHi || math.Abs(kLo) > maxSafeInt || math.Abs(kHi) > maxSafeInt {
		return nil, st.schemaErr("multipleOf", pointerJoin(ptr, "multipleOf"),
			fmt.Sprintf("no multiple of %s lies in the range [%v, %v]", m.RatString(), lo, hi))
	}
	k := int64(kLo) + st.rng.Int64N(int64(kHi-kLo)+1)
	v := new(big.Rat).Mul(m, new(big.Rat).SetInt64(k))
	return json.Number(ratDecimal(v)), nil
}

// ratDecimal writes a rational with a terminating decimal expansion exactly,
// and anything else to 12 places.
func ratDecimal(r *big.Rat) string {
	if r.IsInt() {
		return r.Num().String()
	}
	x := new(big.Rat).Set(r)
	ten := big.NewRat(10, 1)
	for d := 1; d <= 20; d++ {
		x.Mul(x, ten)
		if x.IsInt() {
			return r.FloatString(d)
		}
	}
	return r.FloatString(12)
}

func (st *genState) genString(m map[string]any, ptr string) (any, error) {
	minL, _ := intKw(m, "minLength")
	maxL, hasMax := intKw(m, "maxLength")
	if !hasMax {
		maxL = -1
	}
	if hasMax && minL > maxL {
		return nil, st.schemaErr("minLength", pointerJoin(ptr, "minLength"),
			fmt.Sprintf("minLength %d is above maxLength %d", minL, maxL))
	}
	if minL > maxGenLength {
		return nil, st.schemaErr("minLength", pointerJoin(ptr, "minLength"),
			fmt.Sprintf("minLength %d is too long to generate", minL))
	}
	st.work += minL
	if st.work > maxWork {
		return nil, st.schemaErr("minLength", pointerJoin(ptr, "minLength"), fmt.Sprintf("a value would exceed %d nodes and bytes", maxWork))
	}
	if p, ok := m["pattern"].(string); ok {
		rg, err := st.regex(p)
		if err != nil {
			return nil, st.schemaErrWrap("pattern", pointerJoin(ptr, "pattern"), "cannot generate from the pattern", err)
		}
		s, err := rg.generate(st.rng, minL, maxL)
		if errors.Is(err, errNoMatch) {
			return nil, st.schemaErrWrap("pattern", pointerJoin(ptr, "pattern"), "cannot generate from the pattern", err)
		}
		return s, err
	}
	if f, ok := m["format"].(string); ok {
		if s, ok := genFormat(st.rng, f); ok {
			return s, nil
		}
	}
	hi := maxL
	if hi < 0 || hi > minL+16 {
		hi = minL + 16
	}
	lo := max(minL, min(4, hi))
	n := lo + st.rng.IntN(hi-lo+1)
	var b strings.Builder
	b.WriteString(words[st.rng.IntN(len(words))])
	if b.Len() < n {
		b.WriteByte('-')
	}
	for b.Len() < n {
		b.WriteByte(alnum[st.rng.IntN(len(alnum))])
	}
	return b.String()[:n], nil
}

func (st *genState) regex(p string) (*regexGen, error) {
	if rg, ok := st.regexes[p]; ok {
		return rg, nil
	}
	rg, err := newRegexGen(p)
	if err != nil {
		return nil, err
	}
	st.regexes[p] = rg
	return rg, nil
}

// propSchema finds the schema for a member name not listed in properties.
func propSchema(m map[string]any, name string) (any, bool) {
	if pp, ok := m["patternProperties"].(map[string]any); ok {
		for _, p := range sortedKeys(pp) {
			if re, err := regexp.Compile(p); err == nil && re.MatchString(name) {
				return pp[p], true
			}
		}
	}
	switch a := m["additionalProperties"].(type) {
	case bool:
		return true, a
	case nil:
		return true, true
	default:
		return a, true
	}
}

func (st *genState) genObject(m map[string]any, ptr string, depth int) (any, error) {
	props, _ := m["properties"].(map[string]any)
	obj := map[string]any{}
	required := map[string]bool{}
	reqList, _ := m["required"].([]any)
	for _, r := range reqList {
		if name, ok := r.(string); ok {
			required[name] = true
		}
	}
	genMember := func(name string) error {
		s, ok := props[name]
		sptr := pointerJoin(ptr, "properties", name)
		if !ok {
			if s, ok = propSchema(m, name); !ok {
				return st.schemaErr("required", pointerJoin(ptr, "required"),
					fmt.Sprintf("required member %q is not allowed by additionalProperties: false", name))
			}
			sptr = ptr
		}
		v, err := st.gen(s, sptr, depth+1)
		if err != nil {
			return err
		}
		obj[name] = v
		return nil
	}
	reqNames := make([]string, 0, len(required))
	for name := range required {
		reqNames = append(reqNames, name)
	}
	slices.Sort(reqNames)
	for _, name := range reqNames {
		if err := genMember(name); err != nil {
			return nil, err
		}
	}
	maxP, hasMaxP := intKw(m, "maxProperties")
	minP, _ := intKw(m, "minProperties")
	if hasMaxP && minP > maxP {
		return nil, st.schemaErr("minProperties", pointerJoin(ptr, "minProperties"),
			fmt.Sprintf("minProperties %d is above maxProperties %d", minP, maxP))
	}
	var optional []string
	for _, name := range sortedKeys(props) {
		if !required[name] {
			optional = append(optional, name)
		}
	}
	// Optional members: each present about half the time, so argument sets
	// differ in shape as well as in values. An optional member whose schema
	// cannot be met is simply left out.
	var skipped []string
	for _, name := range optional {
		if depth < softDepth && st.rng.IntN(2) == 0 && (!hasMaxP || len(obj) < maxP) {
			if genMember(name) != nil {
				continue
			}
		} else {
			skipped = append(skipped, name)
		}
	}
	st.addDependencies(m, obj, genMember)
	// Map-like objects (additionalProperties or patternProperties schemas)
	// get a few free-form members.
	extra := 0
	if depth < softDepth {
		if _, ok := m["additionalProperties"].(map[string]any); ok {
			extra = st.rng.IntN(3)
		} else if _, ok := m["patternProperties"].(map[string]any); ok {
			extra = st.rng.IntN(2)
		}
	}
	for len(obj) < minP && len(skipped) > 0 {
		name := skipped[0]
		skipped = skipped[1:]
		_ = genMember(name)
	}
	for i := 0; (i < extra || len(obj) < minP) && i < maxGenLength; i++ {
		if hasMaxP && len(obj) >= maxP {
			break
		}
		if err := st.addFreeMember(m, obj, ptr, depth); err != nil {
			if len(obj) < minP {
				return nil, err
			}
			break
		}
	}
	return obj, nil
}

// addDependencies adds the members that dependentRequired (or draft-07's
// array-valued dependencies) demand of the members present.
func (st *genState) addDependencies(m map[string]any, obj map[string]any, genMember func(string) error) {
	for _, kw := range []string{"dependentRequired", "dependencies"} {
		deps, _ := m[kw].(map[string]any)
		for _, trigger := range sortedKeys(deps) {
			if _, present := obj[trigger]; !present {
				continue
			}
			list, _ := deps[trigger].([]any)
			for _, d := range list {
				if name, ok := d.(string); ok {
					if _, present := obj[name]; !present {
						_ = genMember(name)
					}
				}
			}
		}
	}
}

// addFreeMember adds one member not named in properties: a name drawn from a
// patternProperties pattern when there is one, else a made-up key.
func (st *genState) addFreeMember(m map[string]any, obj map[string]any, ptr string, depth int) error {
	if pp, ok := m["patternProperties"].(map[string]any); ok && len(pp) > 0 {
		keys := sortedKeys(pp)
		p := keys[st.rng.IntN(len(keys))]
		if rg, err := st.regex(p); err == nil {
			if name, err := rg.generate(st.rng, 1, 24); err == nil {
				if _, taken := obj[name]; !taken {
					v, err := st.gen(pp[p], pointerJoin(ptr, "patternProperties", p), depth+1)
					if err != nil {
						return err
					}
					obj[name] = v
					return nil
				}
			}
		}
	}
	if a, ok := m["additionalProperties"].(bool); ok && !a {
		return st.schemaErr("minProperties", pointerJoin(ptr, "minProperties"), "not enough members allowed to reach minProperties")
	}
	var s any = true
	if a, ok := m["additionalProperties"].(map[string]any); ok {
		s = a
	}
	name := "key_" + randomAlnum(st.rng, 5)
	if pn, ok := m["propertyNames"]; ok {
		v, err := st.gen(map[string]any{"allOf": []any{pn, map[string]any{"type": "string"}}}, pointerJoin(ptr, "propertyNames"), depth+1)
		if err != nil {
			return err
		}
		name, _ = v.(string)
	}
	if _, taken := obj[name]; taken {
		return nil
	}
	v, err := st.gen(s, pointerJoin(ptr, "additionalProperties"), depth+1)
	if err != nil {
		return err
	}
	obj[name] = v
	return nil
}

func (st *genState) genArray(m map[string]any, ptr string, depth int) (any, error) {
	prefix, _ := m["prefixItems"].([]any)
	rest, hasRest := m["items"]
	restKw := "items"
	if tuple, ok := rest.([]any); ok { // draft-07 tuple form
		prefix, rest, restKw = tuple, m["additionalItems"], "additionalItems"
		_, hasRest = m["additionalItems"]
	}
	if !hasRest {
		rest = true
	}
	minI, _ := intKw(m, "minItems")
	maxI, hasMax := intKw(m, "maxItems")
	if hasMax && minI > maxI {
		return nil, st.schemaErr("minItems", pointerJoin(ptr, "minItems"),
			fmt.Sprintf("minItems %d is above maxItems %d", minI, maxI))
	}
	if minI > maxGenLength {
		return nil, st.schemaErr("minItems", pointerJoin(ptr, "minItems"), fmt.Sprintf("minItems %d is too many to generate", minI))
	}
	if r, ok := rest.(bool); ok && !r {
		if minI > len(prefix) {
			return nil, st.schemaErr(restKw, pointerJoin(ptr, restKw),
				fmt.Sprintf("minItems %d needs items beyond the %d allowed", minI, len(prefix)))
		}
		if !hasMax || maxI > len(prefix) {
			maxI, hasMax = len(prefix), true
		}
	}
	hi := minI + 3
	if hasMax && hi > maxI {
		hi = maxI
	}
	n := minI
	if depth < softDepth && hi > minI {
		n += st.rng.IntN(hi - minI + 1)
	}
	unique, _ := m["uniqueItems"].(bool)
	arr := make([]any, 0, n)
	seen := map[string]bool{}
	for i := 0; i < n; i++ {
		s, sptr := rest, pointerJoin(ptr, restKw)
		if i < len(prefix) {
			s, sptr = prefix[i], pointerJoin(ptr, "prefixItems", strconv.Itoa(i))
		}
		var v any
		var err error
		ok := false
		for try := 0; try < 8 && !ok; try++ {
			if v, err = st.gen(s, sptr, depth+1); err != nil {
				if i < minI {
					return nil, err
				}
				break
			}
			c, _ := canonical(v)
			ok = !unique || !seen[string(c)]
			if ok {
				seen[string(c)] = true
			}
		}
		if !ok {
			if i < minI {
				return nil, fmt.Errorf("no %d unique items found at %s", minI, sptr)
			}
			break
		}
		arr = append(arr, v)
	}
	if cs, ok := m["contains"]; ok {
		need := 1
		if mc, ok := intKw(m, "minContains"); ok {
			need = mc
		}
		for i := 0; i < need; i++ {
			v, err := st.gen(cs, pointerJoin(ptr, "contains"), depth+1)
			if err != nil {
				return nil, err
			}
			if hasMax && len(arr) >= maxI && len(arr) > len(prefix) {
				arr[len(arr)-1-i%max(1, len(arr)-len(prefix))] = v
			} else {
				arr = append(arr, v)
			}
		}
	}
	return arr, nil
}
