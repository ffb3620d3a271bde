package toolschema

import (
	"fmt"
	"regexp"
)

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
	required := requiredSet(m)
	for _, name := range sortedKeys(required) {
		if err := genMember(name); err != nil {
			return nil, err
		}
	}
	lim, err := st.memberLimits(m, ptr)
	if err != nil {
		return nil, err
	}
	skipped := st.addOptional(props, required, lim, obj, depth, genMember)
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
	for len(obj) < lim.min && len(skipped) > 0 {
		name := skipped[0]
		skipped = skipped[1:]
		_ = genMember(name)
	}
	for i := 0; (i < extra || len(obj) < lim.min) && i < maxGenLength; i++ {
		if lim.full(obj) {
			break
		}
		if err := st.addFreeMember(m, obj, ptr, depth); err != nil {
			if len(obj) < lim.min {
				return nil, err
			}
			break
		}
	}
	return obj, nil
}

// requiredSet is the set of member names an object schema requires.
func requiredSet(m map[string]any) map[string]bool {
	required := map[string]bool{}
	reqList, _ := m["required"].([]any)
	for _, r := range reqList {
		if name, ok := r.(string); ok {
			required[name] = true
		}
	}
	return required
}

// memberCount is an object's minProperties and, if it has one, its
// maxProperties.
type memberCount struct {
	min, max int
	hasMax   bool
}

// full reports whether obj has as many members as maxProperties allows.
func (c memberCount) full(obj map[string]any) bool { return c.hasMax && len(obj) >= c.max }

func (st *genState) memberLimits(m map[string]any, ptr string) (memberCount, error) {
	var c memberCount
	c.max, c.hasMax = intKw(m, "maxProperties")
	c.min, _ = intKw(m, "minProperties")
	if c.hasMax && c.min > c.max {
		return c, st.schemaErr("minProperties", pointerJoin(ptr, "minProperties"),
			fmt.Sprintf("minProperties %d is above maxProperties %d", c.min, c.max))
	}
	return c, nil
}

// addOptional adds each optional member about half the time, so argument
// sets differ in shape as well as in values, and returns the members it
// did not try, in name order. An optional member whose schema cannot be
// met is simply left out.
func (st *genState) addOptional(props map[string]any, required map[string]bool, lim memberCount,
	obj map[string]any, depth int, genMember func(string) error) []string {
	var skipped []string
	for _, name := range sortedKeys(props) {
		if required[name] {
			continue
		}
		if depth < softDepth && st.rng.IntN(2) == 0 && !lim.full(obj) {
			_ = genMember(name)
		} else {
			skipped = append(skipped, name)
		}
	}
	return skipped
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
