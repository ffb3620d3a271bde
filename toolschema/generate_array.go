package toolschema

import (
	"fmt"
	"strconv"
)

// arrayShape is what an array schema says about its items: the positional
// schemas, the schema for the rest (and the keyword that gave it), and the
// length bounds.
type arrayShape struct {
	prefix     []any
	rest       any
	restKw     string
	minI, maxI int
	hasMax     bool
}

// readArray reads prefixItems/items (or draft-07's tuple items with
// additionalItems) and minItems/maxItems, and rejects lengths no array can
// have.
func (st *genState) readArray(m map[string]any, ptr string) (arrayShape, error) {
	a := arrayShape{restKw: "items"}
	a.prefix, _ = m["prefixItems"].([]any)
	rest, hasRest := m["items"]
	if tuple, ok := rest.([]any); ok { // draft-07 tuple form
		a.prefix, rest, a.restKw = tuple, m["additionalItems"], "additionalItems"
		_, hasRest = m["additionalItems"]
	}
	if !hasRest {
		rest = true
	}
	a.rest = rest
	a.minI, _ = intKw(m, "minItems")
	a.maxI, a.hasMax = intKw(m, "maxItems")
	if a.hasMax && a.minI > a.maxI {
		return a, st.schemaErr("minItems", pointerJoin(ptr, "minItems"),
			fmt.Sprintf("minItems %d is above maxItems %d", a.minI, a.maxI))
	}
	if a.minI > maxGenLength {
		return a, st.schemaErr("minItems", pointerJoin(ptr, "minItems"), fmt.Sprintf("minItems %d is too many to generate", a.minI))
	}
	if r, ok := rest.(bool); ok && !r {
		if a.minI > len(a.prefix) {
			return a, st.schemaErr(a.restKw, pointerJoin(ptr, a.restKw),
				fmt.Sprintf("minItems %d needs items beyond the %d allowed", a.minI, len(a.prefix)))
		}
		if !a.hasMax || a.maxI > len(a.prefix) {
			a.maxI, a.hasMax = len(a.prefix), true
		}
	}
	return a, nil
}

func (st *genState) genArray(m map[string]any, ptr string, depth int) (any, error) {
	a, err := st.readArray(m, ptr)
	if err != nil {
		return nil, err
	}
	hi := a.minI + 3
	if a.hasMax && hi > a.maxI {
		hi = a.maxI
	}
	n := a.minI
	if depth < softDepth && hi > a.minI {
		n += st.rng.IntN(hi - a.minI + 1)
	}
	unique, _ := m["uniqueItems"].(bool)
	arr, err := st.genItems(a, n, unique, ptr, depth)
	if err != nil {
		return nil, err
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
			// At maxItems, overwrite items after the prefix instead of
			// growing the array.
			if a.hasMax && len(arr) >= a.maxI && len(arr) > len(a.prefix) {
				arr[len(arr)-1-i%max(1, len(arr)-len(a.prefix))] = v
			} else {
				arr = append(arr, v)
			}
		}
	}
	return arr, nil
}

// genItems generates up to n items, each tried a few times for a value not
// yet in the array when unique is set. Items past minItems that cannot be
// made end the array early instead of failing it.
func (st *genState) genItems(a arrayShape, n int, unique bool, ptr string, depth int) ([]any, error) {
	arr := make([]any, 0, n)
	seen := map[string]bool{}
	for i := 0; i < n; i++ {
		s, sptr := a.rest, pointerJoin(ptr, a.restKw)
		if i < len(a.prefix) {
			s, sptr = a.prefix[i], pointerJoin(ptr, "prefixItems", strconv.Itoa(i))
		}
		var v any
		var err error
		ok := false
		for try := 0; try < 8 && !ok; try++ {
			if v, err = st.gen(s, sptr, depth+1); err != nil {
				if i < a.minI {
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
			if i < a.minI {
				return nil, fmt.Errorf("no %d unique items found at %s", a.minI, sptr)
			}
			break
		}
		arr = append(arr, v)
	}
	return arr, nil
}
