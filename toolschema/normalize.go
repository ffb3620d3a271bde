package toolschema

import (
	"fmt"
	"slices"
	"strconv"
)

// maxRefHops bounds chains of $ref/allOf that lead to no structure at all,
// such as {"$ref":"#"} at the root.
const maxRefHops = 64

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
			dst[k] = mergeMembers(dv, sv)
		case "required":
			dst[k] = unionStrings(dv, sv)
		case "type":
			t := intersectTypes(typeList(dv), typeList(sv))
			if len(t) == 0 {
				return st.schemaErr("type", ptr, fmt.Sprintf("types %v and %v have nothing in common", typeList(dv), typeList(sv)))
			}
			dst[k] = t
		case "minimum", "minLength", "minItems", "minProperties", "minContains", "exclusiveMinimum":
			if a, b, ok := twoNums(dv, sv); ok && b > a {
				dst[k] = sv
			}
		case "maximum", "maxLength", "maxItems", "maxProperties", "maxContains", "exclusiveMaximum":
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
			dst[k] = mergePrefixItems(dv, sv)
		}
		// Other keywords (pattern, format, anyOf/oneOf on both sides, ...)
		// keep dst's value; validation catches what that misses.
	}
	return nil
}

// mergeMembers merges two name -> subschema maps (properties, $defs, ...):
// a name both sides have must meet both schemas.
func mergeMembers(dv, sv any) map[string]any {
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
	return merged
}

// mergePrefixItems merges two positional item lists position by position;
// the longer list's tail is kept as it is.
func mergePrefixItems(dv, sv any) []any {
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
	return merged
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
