package toolschema

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"golang.org/x/text/language"
	"golang.org/x/text/message"
)

// OutputValidator checks structuredContent against a tool's outputSchema.
// It is compiled once and safe for concurrent use by every worker.
type OutputValidator struct {
	schema *jsonschema.Schema
	// intern holds the schema's member names and enum strings, which most
	// responses repeat, so decoding shares them instead of allocating.
	intern map[string]any
	// printer renders violation messages; built lazily because most runs
	// never see a violation.
	printerOnce sync.Once
	printer     *message.Printer
}

// Violation is the first place where structuredContent breaks its schema.
type Violation struct {
	// InstancePath is a JSON pointer into structuredContent ("" = the root).
	InstancePath string `json:"instance_path"`
	// SchemaPath is a JSON pointer to the failing keyword in the outputSchema.
	SchemaPath string `json:"schema_path"`
	Message    string `json:"message"`
}

func (v *Violation) Error() string {
	p := v.InstancePath
	if p == "" {
		p = "(root)"
	}
	return fmt.Sprintf("structuredContent at %s: %s", p, v.Message)
}

// CompileOutputSchema compiles an outputSchema once. "format" is treated as
// an annotation, as 2020-12 says by default.
func CompileOutputSchema(schema json.RawMessage) (*OutputValidator, error) {
	doc, err := decodeJSON(schema)
	if err != nil {
		return nil, fmt.Errorf("toolschema: outputSchema: %w", err)
	}
	sch, err := compileSchema(doc, false)
	if err != nil {
		return nil, fmt.Errorf("toolschema: outputSchema: %w", err)
	}
	intern := map[string]any{}
	collectStrings(doc, intern)
	return &OutputValidator{schema: sch, intern: intern}, nil
}

// Validate decodes structuredContent once and validates it. It returns nil
// when the content conforms. Missing content (empty bytes) is a violation:
// a tool with an outputSchema must return structured results.
func (ov *OutputValidator) Validate(structuredContent json.RawMessage) *Violation {
	if len(bytes.TrimSpace(structuredContent)) == 0 {
		return &Violation{Message: "structuredContent is missing"}
	}
	v, err := fastDecodeInterned(structuredContent, ov.intern)
	if err != nil {
		return &Violation{Message: "structuredContent is not valid JSON: " + err.Error()}
	}
	err = ov.schema.Validate(v)
	if err == nil {
		return nil
	}
	leaf := leafError(err)
	if leaf == nil {
		return &Violation{Message: err.Error()}
	}
	ov.printerOnce.Do(func() { ov.printer = message.NewPrinter(language.English) })
	ptr, _ := keywordOf(leaf)
	return &Violation{
		InstancePath: pointerJoin("", leaf.InstanceLocation...),
		SchemaPath:   ptr,
		Message:      leaf.ErrorKind.LocalizedString(ov.printer),
	}
}

// collectStrings gathers property names and enum/const strings of a schema.
func collectStrings(v any, into map[string]any) {
	switch s := v.(type) {
	case map[string]any:
		for k, x := range s {
			switch k {
			case "properties":
				if props, ok := x.(map[string]any); ok {
					for name := range props {
						into[name] = name
					}
				}
			case "required":
				if l, ok := x.([]any); ok {
					for _, n := range l {
						if name, ok := n.(string); ok {
							into[name] = name
						}
					}
				}
			case "enum", "const":
				if l, ok := x.([]any); ok {
					for _, e := range l {
						if str, ok := e.(string); ok {
							into[str] = str
						}
					}
				} else if str, ok := x.(string); ok {
					into[str] = str
				}
				continue
			}
			if !valueKeywords[k] {
				collectStrings(x, into)
			}
		}
	case []any:
		for _, x := range s {
			collectStrings(x, into)
		}
	}
}
