package toolschema

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Lint rule names, as they appear in Finding.Rule and in probe reports.
const (
	RuleInvalidTool        = "invalid_tool"
	RuleNameLength         = "name_length"
	RuleNameChars          = "name_chars"
	RuleNameDuplicate      = "name_duplicate"
	RuleInputSchemaMissing = "input_schema_missing"
	RuleInputSchemaType    = "input_schema_type"
	RuleInputSchemaInvalid = "input_schema_invalid"
	RuleOutputSchemaType   = "output_schema_type"
	RuleRequiredUndefined  = "required_undefined"
	RuleDescriptionLength  = "description_length"
	RuleHeaderInvalid      = "x_mcp_header_invalid"
	RuleHeaderType         = "x_mcp_header_type"
	RuleHeaderUnreachable  = "x_mcp_header_unreachable"
	RuleHeaderDuplicate    = "x_mcp_header_duplicate"
)

const (
	// MaxNameLength is the spec's upper bound on tool names.
	MaxNameLength = 128
	// MaxDescriptionLength is the seed server's description cap: longer
	// descriptions are truncated there, so the lint warns.
	MaxDescriptionLength = 140
)

// Finding is one lint result for the tool at Index in the tools/list result.
type Finding struct {
	Tool    string `json:"tool"`
	Index   int    `json:"index"`
	Rule    string `json:"rule"`
	Message string `json:"message"`
}

// RuleSeverity says whether a rule's finding breaks the spec ("error": a
// MUST, or something that makes calls fail) or is advice ("warning": a
// SHOULD, or the seed server's description cap).
func RuleSeverity(rule string) string {
	switch rule {
	case RuleNameLength, RuleNameChars, RuleNameDuplicate, RuleDescriptionLength:
		return "warning"
	}
	return "error"
}

func isNameChar(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-' || c == '.'
}

// isTchar reports RFC 9110 token characters, which x-mcp-header values use.
func isTchar(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' ||
		strings.IndexByte("!#$%&'*+-.^_`|~", c) >= 0
}

// Lint checks the tool definitions of a tools/list result against the MCP
// spec (names, schemas, x-mcp-header of 2026-07-28) and the seed server's
// description cap. Findings come in tool order, then rule order.
func Lint(tools []json.RawMessage) []Finding {
	var out []Finding
	firstIndex := map[string]int{}
	for i, raw := range tools {
		var tool map[string]json.RawMessage
		if err := json.Unmarshal(raw, &tool); err != nil || tool == nil {
			out = append(out, Finding{Index: i, Rule: RuleInvalidTool, Message: "tool definition is not a JSON object"})
			continue
		}
		var name string
		_ = json.Unmarshal(tool["name"], &name)
		add := func(rule, format string, args ...any) {
			out = append(out, Finding{Tool: name, Index: i, Rule: rule, Message: fmt.Sprintf(format, args...)})
		}

		if n := len(name); n < 1 || n > MaxNameLength {
			add(RuleNameLength, "name is %d characters; the spec allows 1 to %d", n, MaxNameLength)
		}
		for j := 0; j < len(name); j++ {
			if !isNameChar(name[j]) {
				add(RuleNameChars, "name has %q at byte %d; only A-Z a-z 0-9 _ - . are allowed", name[j], j)
				break
			}
		}
		if name != "" {
			if first, dup := firstIndex[name]; dup {
				add(RuleNameDuplicate, "name %q is also used by the tool at index %d", name, first)
			} else {
				firstIndex[name] = i
			}
		}

		var desc string
		if json.Unmarshal(tool["description"], &desc) == nil {
			if n := utf8.RuneCountInString(desc); n > MaxDescriptionLength {
				add(RuleDescriptionLength, "description is %d characters, over the %d-character cap", n, MaxDescriptionLength)
			}
		}

		in := bytes.TrimSpace(tool["inputSchema"])
		if len(in) == 0 || bytes.Equal(in, []byte("null")) {
			add(RuleInputSchemaMissing, "inputSchema is missing; a tool without parameters uses {\"type\":\"object\",\"additionalProperties\":false}")
		} else if doc, err := decodeJSON(in); err != nil {
			add(RuleInputSchemaInvalid, "inputSchema is not valid JSON: %v", err)
		} else {
			m, isObj := doc.(map[string]any)
			if t, _ := m["type"].(string); !isObj || t != "object" {
				add(RuleInputSchemaType, "inputSchema must have type \"object\" at its root")
			}
			if _, err := compileSchema(doc, false); err != nil {
				add(RuleInputSchemaInvalid, "inputSchema does not compile: %s", oneLine(err.Error()))
			}
			for _, f := range requiredUndefined(doc, "") {
				add(RuleRequiredUndefined, "%s", f)
			}
			if isObj {
				for _, f := range headerFindings(m) {
					add(f.rule, "%s", f.msg)
				}
			}
		}

		if outSchema := bytes.TrimSpace(tool["outputSchema"]); len(outSchema) > 0 && !bytes.Equal(outSchema, []byte("null")) {
			var m map[string]any
			_ = json.Unmarshal(outSchema, &m)
			if t, _ := m["type"].(string); t != "object" {
				add(RuleOutputSchemaType, "outputSchema must have type \"object\" at its root (2025-06-18 to 2025-11-25; 2026-07-28 relaxes this)")
			}
		}
	}
	sort.SliceStable(out, func(a, b int) bool { return out[a].Index < out[b].Index })
	return out
}

// requiredUndefined finds "required" names that no "properties" entry
// defines, in the root and in every nested object schema. Schemas with
// patternProperties or composition are skipped: the name may be defined
// elsewhere.
func requiredUndefined(v any, ptr string) []string {
	var out []string
	switch s := v.(type) {
	case map[string]any:
		req, _ := s["required"].([]any)
		props, hasProps := s["properties"].(map[string]any)
		_, hasPattern := s["patternProperties"]
		composed := false
		for _, k := range []string{"allOf", "anyOf", "oneOf", "$ref", "if", "dependentSchemas"} {
			if _, ok := s[k]; ok {
				composed = true
			}
		}
		if len(req) > 0 && !hasPattern && !composed && (hasProps || s["additionalProperties"] == false) {
			for _, r := range req {
				if name, ok := r.(string); ok {
					if _, ok := props[name]; !ok {
						at := ptr
						if at == "" {
							at = "(root)"
						}
						out = append(out, fmt.Sprintf("required property %q at %s is not defined in properties", name, at))
					}
				}
			}
		}
		for _, k := range sortedKeys(s) {
			if !valueKeywords[k] {
				out = append(out, requiredUndefined(s[k], pointerJoin(ptr, k))...)
			}
		}
	case []any:
		for i, x := range s {
			out = append(out, requiredUndefined(x, pointerJoin(ptr, strconv.Itoa(i)))...)
		}
	}
	return out
}

type ruleMsg struct{ rule, msg string }

// headerFindings applies the 2026-07-28 x-mcp-header constraints.
func headerFindings(root map[string]any) []ruleMsg {
	var out []ruleMsg
	seen := map[string]string{} // lower-cased value -> pointer
	var walk func(v any, ptr string, reachable bool)
	walk = func(v any, ptr string, reachable bool) {
		switch s := v.(type) {
		case map[string]any:
			if hv, ok := s["x-mcp-header"]; ok {
				out = append(out, checkHeader(s, hv, ptr, reachable, seen)...)
			}
			for _, k := range sortedKeys(s) {
				if valueKeywords[k] {
					continue
				}
				if k == "properties" && reachable {
					if props, ok := s[k].(map[string]any); ok {
						for _, name := range sortedKeys(props) {
							walk(props[name], pointerJoin(ptr, k, name), true)
						}
						continue
					}
				}
				walk(s[k], pointerJoin(ptr, k), false)
			}
		case []any:
			for i, x := range s {
				walk(x, pointerJoin(ptr, strconv.Itoa(i)), false)
			}
		}
	}
	// The root is not a parameter, but its properties are reachable.
	if props, ok := root["properties"].(map[string]any); ok {
		for _, name := range sortedKeys(props) {
			walk(props[name], pointerJoin("", "properties", name), true)
		}
	}
	for _, k := range sortedKeys(root) {
		if k != "properties" && !valueKeywords[k] {
			walk(root[k], pointerJoin("", k), false)
		}
	}
	if _, ok := root["x-mcp-header"]; ok {
		out = append(out, ruleMsg{RuleHeaderUnreachable, "x-mcp-header on the inputSchema root annotates no parameter"})
	}
	return out
}

func checkHeader(s map[string]any, hv any, ptr string, reachable bool, seen map[string]string) []ruleMsg {
	var out []ruleMsg
	val, isStr := hv.(string)
	switch {
	case !isStr:
		out = append(out, ruleMsg{RuleHeaderInvalid, fmt.Sprintf("x-mcp-header at %s is not a string", ptr)})
	case val == "":
		out = append(out, ruleMsg{RuleHeaderInvalid, fmt.Sprintf("x-mcp-header at %s is empty", ptr)})
	default:
		for j := 0; j < len(val); j++ {
			if !isTchar(val[j]) {
				out = append(out, ruleMsg{RuleHeaderInvalid, fmt.Sprintf("x-mcp-header %q at %s has %q, not an HTTP token character", val, ptr, val[j])})
				break
			}
		}
		key := strings.ToLower(val)
		if first, dup := seen[key]; dup {
			out = append(out, ruleMsg{RuleHeaderDuplicate, fmt.Sprintf("x-mcp-header %q at %s repeats the one at %s (case-insensitively)", val, ptr, first)})
		} else {
			seen[key] = ptr
		}
	}
	if !reachable {
		out = append(out, ruleMsg{RuleHeaderUnreachable, fmt.Sprintf("x-mcp-header at %s is not reachable from the root through properties alone", ptr)})
	}
	var prim []string
	for _, t := range typeList(s["type"]) {
		if t != "null" {
			prim = append(prim, t)
		}
	}
	if len(prim) != 1 || (prim[0] != "string" && prim[0] != "integer" && prim[0] != "boolean") {
		out = append(out, ruleMsg{RuleHeaderType, fmt.Sprintf("x-mcp-header at %s annotates type %v; only a single string, integer or boolean type is allowed", ptr, s["type"])})
	}
	return out
}

// compactKeys are the annotation keys the seed server drops from every
// inputSchema it lists.
var compactKeys = map[string]bool{"description": true, "examples": true, "example": true, "title": true,
	"default": true, "$comment": true, "markdownDescription": true}

// nameMaps hold member names, not keywords: a property called "title" stays.
var nameMaps = map[string]bool{"properties": true, "patternProperties": true, "$defs": true,
	"definitions": true, "dependentSchemas": true}

// CompactionSavings returns how many bytes the seed server's compaction
// saves on a tool's inputSchema: the compact JSON size minus the size with
// annotation keys (description, examples, example, title, default,
// $comment, markdownDescription) removed at every level. 0 when the tool
// has no usable inputSchema.
func CompactionSavings(tool json.RawMessage) int {
	var t map[string]json.RawMessage
	if json.Unmarshal(tool, &t) != nil {
		return 0
	}
	doc, err := decodeJSON(t["inputSchema"])
	if err != nil {
		return 0
	}
	before, err1 := canonical(doc)
	after, err2 := canonical(compact(doc, false))
	if err1 != nil || err2 != nil {
		return 0
	}
	return len(before) - len(after)
}

// compact copies a schema without annotation keys; names says v is a map of
// member names whose values are schemas.
func compact(v any, names bool) any {
	switch s := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(s))
		for k, x := range s {
			switch {
			case names:
				out[k] = compact(x, false)
			case compactKeys[k]:
			case valueKeywords[k]:
				out[k] = x
			default:
				out[k] = compact(x, nameMaps[k])
			}
		}
		return out
	case []any:
		out := make([]any, len(s))
		for i, x := range s {
			out[i] = compact(x, false)
		}
		return out
	}
	return v
}

// oneLine folds the validator's indented multi-line messages into one line
// for reports.
func oneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}
