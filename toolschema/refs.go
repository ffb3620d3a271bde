package toolschema

import (
	"fmt"
	"net/url"
	"strconv"
	"strings"
)

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
