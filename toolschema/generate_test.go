package toolschema

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

// TestGenerateFeatures: each schema feature gives n distinct sets that
// validate (checkSets re-validates against an independent compile).
func TestGenerateFeatures(t *testing.T) {
	tests := []struct{ name, schema string }{
		{"all types", `{"type":"object","properties":{"s":{"type":"string"},"i":{"type":"integer"},"n":{"type":"number"},"b":{"type":"boolean"},"z":{"type":"null"},"o":{"type":"object"},"a":{"type":"array"}},"required":["s","i","n","b","z","o","a"]}`},
		{"enum and const", `{"type":"object","properties":{"e":{"enum":["x","y",1,null]},"c":{"const":{"k":[1,2]}},"s":{"type":"string"}},"required":["e","c","s"]}`},
		{"integer bounds and multipleOf", `{"type":"object","properties":{"a":{"type":"integer","minimum":-5,"maximum":500,"multipleOf":5},"b":{"type":"integer","exclusiveMinimum":10,"exclusiveMaximum":100000}},"required":["a","b"]}`},
		{"fractional multipleOf on integer", `{"type":"object","properties":{"a":{"type":"integer","multipleOf":1.5,"minimum":0,"maximum":100}},"required":["a"]}`},
		{"number decimals", `{"type":"object","properties":{"p":{"type":"number","multipleOf":0.01,"minimum":0.5,"maximum":3},"q":{"type":"number","exclusiveMinimum":-1,"exclusiveMaximum":-0.999}},"required":["p","q"]}`},
		{"draft-04 boolean exclusive bounds", `{"$schema":"http://json-schema.org/draft-04/schema#","type":"object","properties":{"a":{"type":"integer","minimum":0,"exclusiveMinimum":true,"maximum":100,"exclusiveMaximum":true}},"required":["a"]}`},
		{"string lengths", `{"type":"object","properties":{"s":{"type":"string","minLength":30,"maxLength":31},"t":{"type":"string","maxLength":2}},"required":["s","t"]}`},
		{"pattern with length", `{"type":"object","properties":{"p":{"type":"string","pattern":"^[a-f0-9]+$","minLength":8,"maxLength":10},"q":{"type":"string","pattern":"(?i)^abc[xyz]?$"},"u":{"type":"string","pattern":"ab+c"}},"required":["p","q","u"]}`},
		{"formats", `{"type":"object","properties":{"a":{"type":"string","format":"date-time"},"b":{"type":"string","format":"date"},"c":{"type":"string","format":"time"},"d":{"type":"string","format":"email"},"e":{"type":"string","format":"uri"},"f":{"type":"string","format":"uuid"},"g":{"type":"string","format":"ipv4"},"h":{"type":"string","format":"hostname"},"i":{"type":"string","format":"ipv6"},"j":{"type":"string","format":"duration"}},"required":["a","b","c","d","e","f","g","h","i","j"]}`},
		{"nested arrays unique", `{"type":"object","properties":{"m":{"type":"array","items":{"type":"array","items":{"type":"integer","minimum":0,"maximum":3},"uniqueItems":true,"minItems":2,"maxItems":4},"minItems":1,"maxItems":2}},"required":["m"]}`},
		{"additionalProperties false with optionals", `{"type":"object","properties":{"a":{"type":"string"},"b":{"type":"integer"},"c":{"type":"boolean"}},"required":["a"],"additionalProperties":false}`},
		{"oneOf anyOf allOf", `{"type":"object","properties":{"x":{"oneOf":[{"type":"integer","multipleOf":2},{"type":"integer","multipleOf":3}]},"y":{"anyOf":[{"type":"string","maxLength":3},{"type":"boolean"}]},"z":{"allOf":[{"type":"integer","minimum":3},{"maximum":9}]}},"required":["x","y","z"]}`},
		{"refs and definitions", `{"$schema":"http://json-schema.org/draft-07/schema#","type":"object","definitions":{"id":{"type":"string","pattern":"^id-[0-9]{4}$"}},"properties":{"a":{"$ref":"#/definitions/id"},"b":{"type":"array","items":{"$ref":"#/definitions/id"}}},"required":["a","b"]}`},
		{"anchor ref", `{"type":"object","$defs":{"n":{"$anchor":"num","type":"integer","minimum":1}},"properties":{"a":{"$ref":"#num"}},"required":["a"]}`},
		{"bounded recursion", `{"$defs":{"t":{"type":"object","properties":{"v":{"type":"integer"},"l":{"$ref":"#/$defs/t"},"r":{"$ref":"#/$defs/t"}},"required":["v"]}},"type":"object","properties":{"root":{"$ref":"#/$defs/t"}},"required":["root"]}`},
		{"required recursion through arrays", `{"$defs":{"t":{"type":"object","properties":{"kids":{"type":"array","items":{"$ref":"#/$defs/t"}}},"required":["kids"]}},"type":"object","properties":{"root":{"$ref":"#/$defs/t"}},"required":["root"]}`},
		{"type arrays and nullable", `{"type":"object","properties":{"a":{"type":["string","null"]},"b":{"type":"integer","nullable":true},"c":{"type":["integer","boolean"]}},"required":["a","b","c"]}`},
		{"prefixItems and tuple items", `{"type":"object","properties":{"p":{"type":"array","prefixItems":[{"const":"x"},{"type":"integer"}],"items":false},"q":{"type":"array","prefixItems":[{"type":"boolean"}],"items":{"type":"string"},"minItems":3}},"required":["p","q"]}`},
		{"minProperties from additionalProperties", `{"type":"object","properties":{"a":{"type":"string"}},"additionalProperties":{"type":"integer"},"minProperties":3}`},
		{"propertyNames", `{"type":"object","properties":{"m":{"type":"object","propertyNames":{"pattern":"^[A-Z]{2}$"},"additionalProperties":{"type":"number"},"minProperties":1}},"required":["m"]}`},
		{"not satisfiable elsewhere", `{"type":"object","properties":{"a":{"type":"integer","minimum":0,"maximum":50,"not":{"const":7}}},"required":["a"]}`},
		{"optional unsatisfiable member is left out", `{"type":"object","properties":{"a":{"type":"string"},"bad":{"type":"integer","minimum":5,"maximum":1}},"required":["a"]}`},
		{"boolean true schema members", `{"type":"object","properties":{"any":true,"s":{"type":"string"}},"required":["any","s"]}`},
		{"empty root", `{}`},
		{"true root", `true`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g, err := NewGenerator("feat", json.RawMessage(tt.schema), 3)
			if err != nil {
				t.Fatal(err)
			}
			sets, err := g.Distinct(7)
			if err != nil {
				t.Fatal(err)
			}
			if tt.schema == "{}" || tt.schema == "true" {
				return // roots that admit non-objects; checkSets wants objects
			}
			checkSets(t, tt.name, json.RawMessage(tt.schema), sets, 7)
		})
	}
}

func TestGenerateOptionalMembersVary(t *testing.T) {
	schema := `{"type":"object","properties":{"q":{"type":"string"},"a":{"type":"integer"},"b":{"type":"boolean"}},"required":["q"],"additionalProperties":false}`
	g, _ := NewGenerator("opt", json.RawMessage(schema), 11)
	sets, err := g.Distinct(40)
	if err != nil {
		t.Fatal(err)
	}
	withA, withoutA := 0, 0
	for _, s := range sets {
		var m map[string]any
		_ = json.Unmarshal(s, &m)
		if _, ok := m["q"]; !ok {
			t.Fatalf("required q missing in %s", s)
		}
		if _, ok := m["a"]; ok {
			withA++
		} else {
			withoutA++
		}
	}
	if withA == 0 || withoutA == 0 {
		t.Errorf("optional member a present in %d and absent in %d of 40 sets; want both", withA, withoutA)
	}
}

func TestGenerateErrors(t *testing.T) {
	tests := []struct {
		name, schema     string
		keyword, pointer string
	}{
		{"contradictory integer bounds", `{"type":"object","properties":{"n":{"type":"integer","minimum":10,"maximum":5}},"required":["n"]}`, "minimum", "/properties/n/minimum"},
		{"contradictory number bounds", `{"type":"object","properties":{"n":{"type":"number","exclusiveMinimum":1,"maximum":1}},"required":["n"]}`, "exclusiveMinimum", "/properties/n/exclusiveMinimum"},
		{"lengths", `{"type":"object","properties":{"s":{"type":"string","minLength":5,"maxLength":2}},"required":["s"]}`, "minLength", "/properties/s/minLength"},
		{"items", `{"type":"object","properties":{"a":{"type":"array","minItems":3,"maxItems":1}},"required":["a"]}`, "minItems", "/properties/a/minItems"},
		{"multipleOf", `{"type":"object","properties":{"n":{"type":"integer","minimum":1,"maximum":4,"multipleOf":5}},"required":["n"]}`, "multipleOf", "/properties/n/multipleOf"},
		{"unresolvable ref", `{"type":"object","properties":{"a":{"$ref":"#/$defs/missing"}},"$defs":{}}`, "$ref", "/properties/a/$ref"},
		{"remote ref", `{"type":"object","properties":{"a":{"$ref":"https://example.com/s.json"}}}`, "$ref", "/properties/a/$ref"},
		{"not unsatisfiable", `{"type":"object","properties":{"a":{"type":"string","not":{"type":"string"}}},"required":["a"]}`, "not", "/properties/a/not"},
		{"false schema required", `{"type":"object","properties":{"a":false},"required":["a"]}`, "", "/properties/a"},
		{"required but forbidden", `{"type":"object","properties":{},"required":["x"],"additionalProperties":false}`, "required", "/required"},
		{"allOf type clash", `{"type":"object","properties":{"a":{"allOf":[{"type":"string"},{"type":"integer"}]}},"required":["a"]}`, "type", "/properties/a/allOf/1"},
		{"const clash", `{"type":"object","properties":{"a":{"allOf":[{"const":1},{"const":2}]}},"required":["a"]}`, "const", "/properties/a/allOf/1"},
		{"self ref loop", `{"$ref":"#"}`, "$ref", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g, err := NewGenerator("broken_tool", json.RawMessage(tt.schema), 1)
			if err == nil {
				_, err = g.Distinct(7)
			}
			var se *SchemaError
			if !errors.As(err, &se) {
				t.Fatalf("want *SchemaError, got %v", err)
			}
			if se.Tool != "broken_tool" || se.Keyword != tt.keyword || se.Pointer != tt.pointer {
				t.Errorf("got tool %q keyword %q pointer %q (%v); want keyword %q pointer %q",
					se.Tool, se.Keyword, se.Pointer, err, tt.keyword, tt.pointer)
			}
			if !strings.Contains(err.Error(), `"broken_tool"`) {
				t.Errorf("error does not name the tool: %v", err)
			}
		})
	}
}

func TestGenerateCardinality(t *testing.T) {
	tests := []struct {
		schema string
		max    int
	}{
		{`{"type":"object","properties":{"level":{"enum":["a","b","c"]}},"required":["level"],"additionalProperties":false}`, 3},
		{`{"type":"object","additionalProperties":false}`, 1},
		{`{"type":"object","properties":{"n":{"type":"integer","minimum":1,"maximum":4},"f":{"type":"boolean"}},"required":["n"]}`, 12},
		{`{"type":"object","properties":{"c":{"type":"string","pattern":"^(GET|POST|PUT)$"}},"required":["c"]}`, 3},
		{`{"type":"object","properties":{"x":{"oneOf":[{"const":1},{"const":2},{"enum":[2,3]}]}},"required":["x"]}`, 2},
	}
	for _, tt := range tests {
		g, err := NewGenerator("small", json.RawMessage(tt.schema), 5)
		if err != nil {
			t.Fatal(err)
		}
		_, err = g.Distinct(tt.max + 1)
		var ce *CardinalityError
		if !errors.As(err, &ce) || ce.Available != tt.max || ce.Tool != "small" {
			t.Errorf("%s: want CardinalityError{Available:%d}, got %v", tt.schema, tt.max, err)
			continue
		}
		if !strings.Contains(err.Error(), `tool "small"`) || !strings.Contains(err.Error(), "admits only") {
			t.Errorf("unclear message: %v", err)
		}
		sets, err := g.Distinct(tt.max)
		if err != nil {
			t.Errorf("%s: Distinct(%d): %v", tt.schema, tt.max, err)
		}
		checkSets(t, tt.schema, json.RawMessage(tt.schema), sets, tt.max)
	}
}

func TestMerge(t *testing.T) {
	tests := []struct{ args, inject, want string }{
		{`{"orderNumber":"ORD-1","tenantId":"old"}`, `{"tenantId":"t-1","workspaceId":"w-9"}`, `{"orderNumber":"ORD-1","tenantId":"t-1","workspaceId":"w-9"}`},
		{``, `{"tenantId":"t"}`, `{"tenantId":"t"}`},
		{`null`, `{"a":1.50}`, `{"a":1.50}`},
		{`{"n":{"deep":1}}`, `{"n":{"other":2}}`, `{"n":{"other":2}}`},
		{`{"b":2,"a":1}`, ``, `{"b":2,"a":1}`},
	}
	for _, tt := range tests {
		got, err := Merge(json.RawMessage(tt.args), json.RawMessage(tt.inject))
		if err != nil {
			t.Fatalf("Merge(%s, %s): %v", tt.args, tt.inject, err)
		}
		if string(got) != tt.want {
			t.Errorf("Merge(%s, %s) = %s, want %s", tt.args, tt.inject, got, tt.want)
		}
	}
	for _, bad := range [][2]string{{`[1]`, `{}`}, {`{}`, `"x"`}, {`{`, `{}`}} {
		if _, err := Merge(json.RawMessage(bad[0]), json.RawMessage(bad[1])); err == nil {
			t.Errorf("Merge(%s, %s): want error", bad[0], bad[1])
		}
	}
}
