package toolschema

import (
	"encoding/json"
	"math"
	"math/big"
	"slices"
	"strconv"
)

// maxEnumDepth bounds enumeration of nested and recursive schemas; deeper
// schemas count as "not small and finite" and go to random generation.
const maxEnumDepth = 12

// enumerate lists every value the generator would consider for s when that
// space is finite and at most limit values; ok=false otherwise. Values may
// still be invalid (allOf corners, not, if/then): callers validate them.
func (st *genState) enumerate(s any, ptr string, depth, limit int) (vals []any, ok bool) {
	if depth > maxEnumDepth || limit <= 0 {
		return nil, false
	}
	m, err := st.normalize(s, ptr, 0)
	if err != nil {
		return nil, false // random generation reports the error precisely
	}
	for _, kw := range []string{"oneOf", "anyOf"} {
		branches, isList := m[kw].([]any)
		if !isList || len(branches) == 0 {
			continue
		}
		delete(m, kw)
		var out []any
		for i, b := range branches {
			bptr := pointerJoin(ptr, kw, strconv.Itoa(i))
			merged, err := st.withBranch(m, b, bptr)
			if err != nil {
				continue // this branch admits nothing
			}
			sub, ok := st.enumerate(merged, bptr, depth, limit-len(out))
			if !ok {
				return nil, false
			}
			out = append(out, sub...)
		}
		return out, len(out) <= limit
	}
	delete(m, "if")
	delete(m, "then")
	delete(m, "else")
	if c, has := m["const"]; has {
		return []any{c}, true
	}
	if e, has := m["enum"]; has {
		l, _ := e.([]any)
		return l, len(l) <= limit
	}
	var out []any
	for _, t := range typeSet(m) {
		sub, ok := st.enumType(t, m, ptr, depth, limit-len(out))
		if !ok {
			return nil, false
		}
		out = append(out, sub...)
	}
	return out, len(out) <= limit
}

func (st *genState) enumType(t string, m map[string]any, ptr string, depth, limit int) ([]any, bool) {
	switch t {
	case "null":
		return []any{nil}, limit >= 1
	case "boolean":
		return []any{true, false}, limit >= 2
	case "integer":
		return st.enumInteger(m, limit)
	case "number":
		return st.enumNumber(m, limit)
	case "string":
		return st.enumString(m, limit)
	case "object":
		return st.enumObject(m, ptr, depth, limit)
	case "array":
		return st.enumArray(m, ptr, depth, limit)
	}
	return nil, false
}

func (st *genState) enumInteger(m map[string]any, limit int) ([]any, bool) {
	b := readBounds(m)
	if !b.hasLo || !b.hasHi {
		return nil, false
	}
	lo, hi, err := st.intRange(m, "")
	if err != nil {
		return nil, false
	}
	step := int64(1)
	if mr, ok := ratOf(m["multipleOf"]); ok && mr.Sign() > 0 {
		if !mr.Num().IsInt64() {
			return nil, false
		}
		step = mr.Num().Int64()
	}
	kLo, kHi := ceilDiv(lo, step), floorDiv(hi, step)
	if kHi-kLo+1 > int64(limit) {
		return nil, false
	}
	var out []any
	for k := kLo; k <= kHi; k++ {
		out = append(out, json.Number(strconv.FormatInt(k*step, 10)))
	}
	return out, true
}

func (st *genState) enumNumber(m map[string]any, limit int) ([]any, bool) {
	b := readBounds(m)
	if !b.hasLo || !b.hasHi {
		return nil, false
	}
	if b.lo == b.hi && !b.exLo && !b.exHi {
		return []any{b.loRaw}, true
	}
	mr, ok := ratOf(m["multipleOf"])
	if !ok || mr.Sign() <= 0 {
		return nil, false
	}
	mf, _ := mr.Float64()
	kLo, kHi := math.Ceil(b.lo/mf), math.Floor(b.hi/mf)
	if kHi-kLo+1 > float64(limit) {
		return nil, false
	}
	var out []any
	for k := kLo; k <= kHi; k++ {
		v := new(big.Rat).Mul(mr, new(big.Rat).SetInt64(int64(k)))
		out = append(out, json.Number(ratDecimal(v)))
	}
	return out, true
}

func (st *genState) enumString(m map[string]any, limit int) ([]any, bool) {
	if p, ok := m["pattern"].(string); ok {
		rg, err := st.regex(p)
		if err != nil {
			return nil, false
		}
		strs, ok := rg.enumerate(limit)
		if !ok {
			return nil, false
		}
		out := make([]any, len(strs))
		for i, s := range strs {
			out[i] = s
		}
		return out, true
	}
	if maxL, ok := intKw(m, "maxLength"); ok && maxL == 0 {
		if _, hasFormat := m["format"]; !hasFormat {
			return []any{""}, true
		}
	}
	return nil, false
}

func (st *genState) enumObject(m map[string]any, ptr string, depth, limit int) ([]any, bool) {
	// Free-form members make the space open-ended.
	if _, ok := m["additionalProperties"].(map[string]any); ok {
		return nil, false
	}
	if _, ok := m["patternProperties"]; ok {
		return nil, false
	}
	props, _ := m["properties"].(map[string]any)
	required := map[string]bool{}
	reqList, _ := m["required"].([]any)
	for _, r := range reqList {
		if name, ok := r.(string); ok {
			required[name] = true
		}
	}
	if minP, _ := intKw(m, "minProperties"); minP > len(props) {
		return nil, false
	}
	names := sortedKeys(props)
	for name := range required {
		if _, ok := props[name]; !ok {
			names = append(names, name)
		}
	}
	slices.Sort(names)
	objs := []map[string]any{{}}
	for _, name := range names {
		s, ok := props[name]
		if !ok {
			if s, ok = propSchema(m, name); !ok {
				return nil, false
			}
		}
		vals, ok := st.enumerate(s, pointerJoin(ptr, "properties", name), depth+1, limit)
		if !ok {
			if required[name] {
				return nil, false
			}
			// An optional member with an open space still makes the object
			// space open, unless its schema admits nothing at all.
			if _, err := st.normalize(s, ptr, 0); err == nil {
				return nil, false
			}
			continue
		}
		width := len(vals)
		if !required[name] {
			width++
		}
		if len(objs)*width > limit {
			return nil, false
		}
		next := make([]map[string]any, 0, len(objs)*width)
		for _, o := range objs {
			if !required[name] {
				next = append(next, o)
			}
			for _, v := range vals {
				c := make(map[string]any, len(o)+1)
				for k, x := range o {
					c[k] = x
				}
				c[name] = v
				next = append(next, c)
			}
		}
		objs = next
	}
	out := make([]any, len(objs))
	for i, o := range objs {
		out[i] = o
	}
	return out, true
}

func (st *genState) enumArray(m map[string]any, ptr string, depth, limit int) ([]any, bool) {
	prefix, _ := m["prefixItems"].([]any)
	rest, hasRest := m["items"]
	if tuple, ok := rest.([]any); ok {
		prefix, rest = tuple, m["additionalItems"]
		_, hasRest = m["additionalItems"]
	}
	if !hasRest {
		rest = true
	}
	minI, _ := intKw(m, "minItems")
	maxI, hasMax := intKw(m, "maxItems")
	restClosed := false
	if r, ok := rest.(bool); ok && !r {
		restClosed = true
		if !hasMax || maxI > len(prefix) {
			maxI, hasMax = len(prefix), true
		}
	}
	var restVals []any
	if !restClosed {
		var ok bool
		if restVals, ok = st.enumerate(rest, pointerJoin(ptr, "items"), depth+1, limit); !ok {
			return nil, false
		}
		if unique, _ := m["uniqueItems"].(bool); unique && (!hasMax || maxI > len(prefix)+len(restVals)) {
			maxI, hasMax = len(prefix)+len(restVals), true
		}
	}
	if !hasMax || minI > maxI {
		return nil, false
	}
	var out []any
	seqs := [][]any{{}}
	for length := 0; length <= maxI; length++ {
		if length >= minI {
			for _, s := range seqs {
				out = append(out, s)
			}
			if len(out) > limit {
				return nil, false
			}
		}
		if length == maxI {
			break
		}
		var choices []any
		if length < len(prefix) {
			var ok bool
			if choices, ok = st.enumerate(prefix[length], pointerJoin(ptr, "prefixItems", strconv.Itoa(length)), depth+1, limit); !ok {
				return nil, false
			}
		} else {
			choices = restVals
		}
		if len(seqs)*len(choices) > limit*4 {
			return nil, false
		}
		next := make([][]any, 0, len(seqs)*len(choices))
		for _, s := range seqs {
			for _, c := range choices {
				next = append(next, append(slices.Clone(s), c))
			}
		}
		seqs = next
	}
	return out, true
}
