package toolschema

import (
	"encoding/json"
	"fmt"
	"math"
	"math/big"
	"net/url"
	"slices"
	"sort"
	"strconv"
	"strings"
)

// maxRefHops bounds chains of $ref/allOf that lead to no structure at all,
// such as {"$ref":"#"} at the root.
const maxRefHops = 64

// valueKeywords hold JSON values rather than subschemas: never walk into them.
var valueKeywords = map[string]bool{"const": true, "enum": true, "default": true, "examples": true, "example": true}

// index records what $ref resolution needs: anchors by name, the root's $id.
type index struct {
	root      any
	rootID    string
	anchors   map[string]string // anchor name -> JSON pointer
	legacyRef bool              // draft-07 and older: siblings of $ref are ignored
}

func newIndex(tool string, root any) (*index, error) {
	ix := &index{root: root, anchors: map[string]string{}}
	if m, ok := root.(map[string]any); ok {
		if id, ok := m["$id"].(string); ok {
			ix.rootID = strings.TrimSuffix(id, "#")
		}
		if s, ok := m["$schema"].(string); ok {
			for _, d := range []string{"draft-04", "draft-06", "draft-07"} {
				if strings.Contains(s, d) {
					ix.legacyRef = true
				}
			}
		}
	}
	var refs []struct{ ref, ptr string }
	var walk func(v any, ptr string)
	walk = func(v any, ptr string) {
		switch v := v.(type) {
		case map[string]any:
			for _, kw := range []string{"$anchor", "$dynamicAnchor"} {
				if a, ok := v[kw].(string); ok {
					ix.anchors[a] = ptr
				}
			}
			if r, ok := v["$ref"].(string); ok {
				refs = append(refs, struct{ ref, ptr string }{r, pointerJoin(ptr, "$ref")})
			}
			for k, sub := range v {
				if !valueKeywords[k] {
					walk(sub, pointerJoin(ptr, k))
				}
			}
		case []any:
			for i, sub := range v {
				walk(sub, pointerJoin(ptr, strconv.Itoa(i)))
			}
		}
	}
	walk(root, "")
	for _, r := range refs {
		if _, _, err := ix.resolve(r.ref); err != nil {
			return nil, &SchemaError{Tool: tool, Keyword: "$ref", Pointer: r.ptr, Reason: fmt.Sprintf("cannot resolve %q", r.ref), Err: err}
		}
	}
	return ix, nil
}

// resolve follows a local reference: "#", "#/json/pointer", "#anchor", or
// the same prefixed with the root $id.
func (ix *index) resolve(ref string) (any, string, error) {
	r := ref
	if ix.rootID != "" && strings.HasPrefix(r, ix.rootID) {
		r = r[len(ix.rootID):]
	}
	if !strings.HasPrefix(r, "#") {
		return nil, "", fmt.Errorf("only local references (#...) are resolved")
	}
	frag, err := url.PathUnescape(r[1:])
	if err != nil {
		return nil, "", fmt.Errorf("bad fragment: %w", err)
	}
	if frag != "" && frag[0] != '/' {
		p, ok := ix.anchors[frag]
		if !ok {
			return nil, "", fmt.Errorf("no $anchor %q", frag)
		}
		frag = p
	}
	cur := ix.root
	if frag == "" {
		return cur, "", nil
	}
	for _, tok := range strings.Split(frag[1:], "/") {
		tok = strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")
		switch c := cur.(type) {
		case map[string]any:
			next, ok := c[tok]
			if !ok {
				return nil, "", fmt.Errorf("no member %q", tok)
			}
			cur = next
		case []any:
			i, err := strconv.Atoi(tok)
			if err != nil || i < 0 || i >= len(c) {
				return nil, "", fmt.Errorf("no element %q", tok)
			}
			cur = c[i]
		default:
			return nil, "", fmt.Errorf("cannot descend into a scalar at %q", tok)
		}
	}
	return cur, frag, nil
}

// normalize turns a subschema into one object with every $ref and allOf
// folded in, so that generation sees all constraints at once. It returns
// a fresh map the caller may modify.
func (st *genState) normalize(s any, ptr string, hops int) (map[string]any, error) {
	if hops > maxRefHops {
		return nil, st.schemaErr("$ref", ptr, "references loop without reaching a schema")
	}
	var m map[string]any
	switch v := s.(type) {
	case nil:
		return map[string]any{}, nil
	case bool:
		if !v {
			return nil, st.schemaErr("", ptr, "the false schema admits no value")
		}
		return map[string]any{}, nil
	case map[string]any:
		m = v
	default:
		return nil, st.schemaErr("", ptr, "a schema must be an object or a boolean")
	}
	out := make(map[string]any, len(m))
	for k, v := range m {
		if k != "$ref" && k != "allOf" && k != "$dynamicRef" && k != "$recursiveRef" {
			out[k] = v
		}
	}
	for _, kw := range []string{"$ref", "$dynamicRef", "$recursiveRef"} {
		ref, ok := m[kw].(string)
		if !ok {
			continue
		}
		target, tptr, err := st.ix.resolve(ref)
		if err != nil {
			return nil, st.schemaErrWrap(kw, pointerJoin(ptr, kw), fmt.Sprintf("cannot resolve %q", ref), err)
		}
		tn, err := st.normalize(target, tptr, hops+1)
		if err != nil {
			return nil, err
		}
		if st.ix.legacyRef && kw == "$ref" {
			return tn, nil
		}
		if err := st.mergeInto(tn, out, ptr); err != nil {
			return nil, err
		}
		out = tn
	}
	if all, ok := m["allOf"].([]any); ok {
		for i, sub := range all {
			sn, err := st.normalize(sub, pointerJoin(ptr, "allOf", strconv.Itoa(i)), hops+1)
			if err != nil {
				return nil, err
			}
			if err := st.mergeInto(out, sn, pointerJoin(ptr, "allOf", strconv.Itoa(i))); err != nil {
				return nil, err
			}
		}
	}
	return out, nil
}

// mergeInto adds the constraints of src to dst (both normalized), keeping
// the tighter bound where both speak. Anything it cannot merge exactly is
// left to the validator, which rejects the rare miss.
func (st *genState) mergeInto(dst, src map[string]any, ptr string) error {
	for k, sv := range src {
		dv, both := dst[k]
		if !both {
			dst[k] = sv
			continue
		}
		switch k {
		case "properties", "patternProperties", "$defs", "definitions", "dependentSchemas":
			dm, _ := dv.(map[string]any)
			sm, _ := sv.(map[string]any)
			merged := make(map[string]any, len(dm)+len(sm))
			for n, v := range dm {
				merged[n] = v
			}
			for n, v := range sm {
				if old, ok := merged[n]; ok {
					merged[n] = map[string]any{"allOf": []any{old, v}}
				} else {
					merged[n] = v
				}
			}
			dst[k] = merged
		case "required":
			dst[k] = unionStrings(dv, sv)
		case "type":
			t := intersectTypes(typeList(dv), typeList(sv))
			if len(t) == 0 {
				return st.schemaErr("type", ptr, fmt.Sprintf("types %v and %v have nothing in common", typeList(dv), typeList(sv)))
			}
			dst[k] = t
		case "minimum", "minLength", "minItems", "minProperties", "minContains":
			if a, b, ok := twoNums(dv, sv); ok && b > a {
				dst[k] = sv
			}
		case "maximum", "maxLength", "maxItems", "maxProperties", "maxContains":
			if a, b, ok := twoNums(dv, sv); ok && b < a {
				dst[k] = sv
			}
		case "exclusiveMinimum":
			if a, b, ok := twoNums(dv, sv); ok && b > a {
				dst[k] = sv
			}
		case "exclusiveMaximum":
			if a, b, ok := twoNums(dv, sv); ok && b < a {
				dst[k] = sv
			}
		case "uniqueItems":
			if b, _ := sv.(bool); b {
				dst[k] = true
			}
		case "enum":
			dst[k] = intersectValues(dv, sv)
			if l, _ := dst[k].([]any); len(l) == 0 {
				return st.schemaErr("enum", ptr, "the enums have no value in common")
			}
		case "const":
			a, _ := canonical(dv)
			b, _ := canonical(sv)
			if string(a) != string(b) {
				return st.schemaErr("const", ptr, fmt.Sprintf("const %s conflicts with const %s", a, b))
			}
		case "not":
			dst[k] = map[string]any{"anyOf": []any{dv, sv}}
		case "items", "additionalProperties", "additionalItems", "contains", "propertyNames",
			"unevaluatedProperties", "unevaluatedItems":
			dst[k] = mergeSubschemas(dv, sv)
		case "prefixItems":
			da, _ := dv.([]any)
			sa, _ := sv.([]any)
			n := max(len(da), len(sa))
			merged := make([]any, n)
			for i := range n {
				switch {
				case i < len(da) && i < len(sa):
					merged[i] = mergeSubschemas(da[i], sa[i])
				case i < len(da):
					merged[i] = da[i]
				default:
					merged[i] = sa[i]
				}
			}
			dst[k] = merged
		}
		// Other keywords (pattern, format, anyOf/oneOf on both sides, ...)
		// keep dst's value; validation catches what that misses.
	}
	return nil
}

func mergeSubschemas(a, b any) any {
	if ab, ok := a.(bool); ok {
		if !ab {
			return false
		}
		return b
	}
	if bb, ok := b.(bool); ok {
		if !bb {
			return false
		}
		return a
	}
	return map[string]any{"allOf": []any{a, b}}
}

func typeList(v any) []string {
	switch t := v.(type) {
	case string:
		return []string{t}
	case []any:
		var out []string
		for _, x := range t {
			if s, ok := x.(string); ok {
				out = append(out, s)
			}
		}
		return out
	case []string:
		return t
	}
	return nil
}

func intersectTypes(a, b []string) []string {
	var out []string
	add := func(t string) {
		if !slices.Contains(out, t) {
			out = append(out, t)
		}
	}
	for _, x := range a {
		for _, y := range b {
			switch {
			case x == y:
				add(x)
			case x == "number" && y == "integer", x == "integer" && y == "number":
				add("integer")
			}
		}
	}
	return out
}

func unionStrings(a, b any) []any {
	var out []any
	seen := map[string]bool{}
	for _, l := range []any{a, b} {
		arr, _ := l.([]any)
		for _, x := range arr {
			if s, ok := x.(string); ok && !seen[s] {
				seen[s] = true
				out = append(out, s)
			}
		}
	}
	return out
}

func intersectValues(a, b any) []any {
	aa, _ := a.([]any)
	ba, _ := b.([]any)
	in := map[string]bool{}
	for _, v := range ba {
		c, _ := canonical(v)
		in[string(c)] = true
	}
	var out []any
	for _, v := range aa {
		c, _ := canonical(v)
		if in[string(c)] {
			out = append(out, v)
		}
	}
	return out
}

// num reads a JSON number decoded as json.Number (or a Go number).
func num(v any) (float64, bool) {
	switch n := v.(type) {
	case json.Number:
		f, err := n.Float64()
		return f, err == nil && !math.IsInf(f, 0) && !math.IsNaN(f)
	case float64:
		return n, true
	case int:
		return float64(n), true
	case int64:
		return float64(n), true
	}
	return 0, false
}

func ratOf(v any) (*big.Rat, bool) {
	switch n := v.(type) {
	case json.Number:
		return new(big.Rat).SetString(string(n))
	case float64:
		r := new(big.Rat)
		if r.SetFloat64(n) == nil {
			return nil, false
		}
		return r, true
	case int:
		return big.NewRat(int64(n), 1), true
	}
	return nil, false
}

func twoNums(a, b any) (float64, float64, bool) {
	x, ok1 := num(a)
	y, ok2 := num(b)
	return x, y, ok1 && ok2
}

// intKw reads a non-negative integer keyword such as minLength.
func intKw(m map[string]any, k string) (int, bool) {
	f, ok := num(m[k])
	if !ok || f < 0 {
		return 0, false
	}
	if f > math.MaxInt32 {
		return math.MaxInt32, true
	}
	return int(f), true
}

// typeSet is the set of JSON types a schema allows, inferred from its
// keywords when "type" is absent.
func typeSet(m map[string]any) []string {
	types := typeList(m["type"])
	if len(types) == 0 {
		has := func(kws ...string) bool {
			for _, k := range kws {
				if _, ok := m[k]; ok {
					return true
				}
			}
			return false
		}
		if has("properties", "required", "additionalProperties", "patternProperties", "minProperties",
			"maxProperties", "propertyNames", "dependentRequired") {
			types = append(types, "object")
		}
		if has("items", "prefixItems", "minItems", "maxItems", "uniqueItems", "contains") {
			types = append(types, "array")
		}
		if has("minLength", "maxLength", "pattern", "format") {
			types = append(types, "string")
		}
		if has("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf") {
			types = append(types, "number")
		}
		if len(types) == 0 {
			types = []string{"string", "integer", "boolean"}
		}
	}
	if nb, _ := m["nullable"].(bool); nb && !slices.Contains(types, "null") {
		types = append(slices.Clone(types), "null")
	}
	return types
}

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
