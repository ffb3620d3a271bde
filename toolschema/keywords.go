package toolschema

import (
	"encoding/json"
	"maps"
	"math"
	"math/big"
	"slices"
)

// valueKeywords hold JSON values rather than subschemas: never walk into them.
var valueKeywords = map[string]bool{"const": true, "enum": true, "default": true, "examples": true, "example": true}

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

// sortedKeys lists a map's keys in order, so that generation walks
// members the same way on every run.
func sortedKeys[V any](m map[string]V) []string { return slices.Sorted(maps.Keys(m)) }
