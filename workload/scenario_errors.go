package workload

import (
	"errors"
	"fmt"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"
)

// A scenario file's errors are read by the person who wrote the file, so
// they speak of its YAML (a list, a mapping, a duration), not of the Go
// types the file is decoded into.

// yamlTypeError is yaml.v3's wording of a value of the wrong kind.
var yamlTypeError = regexp.MustCompile("^line ([0-9]+): cannot unmarshal !!([a-z]+)(?: `(.*)`)? into (.+)$")

// yamlUnknownKey is yaml.v3's wording of a key no field takes.
var yamlUnknownKey = regexp.MustCompile(`^line ([0-9]+): field (.+) not found in type workload\.(\w+)$`)

// yamlShapes name the file's mappings that yaml.v3 decodes itself.
var yamlShapes = map[string]struct {
	what  string
	value any
}{
	"ScenarioFile": {"the file", &ScenarioFile{}}, "Scenario": {"a scenario", &Scenario{}},
	"CallStep": {"a call", &CallStep{}}, "Repeat": {"repeat", &Repeat{}}, "Expect": {"expect", &Expect{}},
	"DataSource": {"data", &DataSource{}}, "Think": {"think", &Think{}},
}

// yamlFound names what YAML found, by its tag.
var yamlFound = map[string]string{
	"seq": "a list", "map": "a mapping", "str": "text", "int": "a number", "float": "a number",
	"bool": "true or false", "null": "nothing", "timestamp": "a date",
}

// yamlWanted names what a field of the file holds, by its Go type.
var yamlWanted = map[string]string{
	"map[string]interface {}": "a mapping of names to values ({message: hi})",
	"map[string]string":       "a mapping of argument names to step.path ({message: search.structuredContent.0})",
	"[]workload.Step":         "a list of steps (- list, - call: {...})",
	"[]workload.Scenario":     "a list of scenarios (- name: ..., steps: [...])",
	"[]workload.Duration":     "a list of two durations ([20ms, 80ms])",
	"workload.Duration":       "a duration (50ms, 2s)",
	"[]string":                "a list of paths",
	"string":                  "text",
	"int":                     "a whole number",
	"float64":                 "a number",
	"bool":                    "true or false",
}

// fileTerms rewrites yaml.v3's messages about a scenario file in the
// file's own terms: "line 4: cannot unmarshal !!seq into
// map[string]interface {}" becomes "line 4: expected a mapping of names
// to values ({message: hi}), found a list".
func fileTerms(msg string) string {
	if m := yamlUnknownKey.FindStringSubmatch(msg); m != nil {
		if v, ok := yamlShapes[m[3]]; ok {
			return unknownKey(m[1], v.what, m[2], yamlKeys(reflect.TypeOf(v.value).Elem()))
		}
	}
	m := yamlTypeError.FindStringSubmatch(msg)
	if m == nil {
		return msg
	}
	found := yamlFound[m[2]]
	if found == "" {
		found = m[2]
	}
	if m[3] != "" {
		found += fmt.Sprintf(" (%s)", m[3])
	}
	want, ok := yamlWanted[m[4]]
	switch {
	case ok:
	case strings.HasPrefix(m[4], "[]"):
		want = "a list"
	case strings.HasPrefix(m[4], "map["), strings.HasPrefix(m[4], "workload."):
		want = "a mapping"
	default:
		want = m[4]
	}
	return fmt.Sprintf("line %s: expected %s, found %s", m[1], want, found)
}

// knownKeys refuses a key of mapping node n that no field of v (a
// pointer to a struct decoded from it) takes: KnownFields does not reach
// the values a custom UnmarshalYAML decodes, and a misspelt "argz" would
// otherwise be dropped without a word.
func knownKeys(n *yaml.Node, v any, what string) error {
	if n.Kind != yaml.MappingNode {
		return nil
	}
	keys := yamlKeys(reflect.TypeOf(v).Elem())
	for i := 0; i+1 < len(n.Content); i += 2 {
		if k := n.Content[i]; !slices.Contains(keys, k.Value) {
			return errors.New(unknownKey(strconv.Itoa(k.Line), what, k.Value, keys))
		}
	}
	return nil
}

// yamlKeys are the keys a struct decoded from YAML takes.
func yamlKeys(t reflect.Type) []string {
	var keys []string
	for i := range t.NumField() {
		if k, _, _ := strings.Cut(t.Field(i).Tag.Get("yaml"), ","); k != "" && k != "-" {
			keys = append(keys, k)
		}
	}
	return keys
}

func unknownKey(line, what, key string, keys []string) string {
	return fmt.Sprintf("line %s: %s has no key %q (its keys: %s)", line, what, key, strings.Join(keys, ", "))
}
