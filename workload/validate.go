package workload

import (
	"encoding/json"
	"fmt"

	"github.com/mcpbench/mcpbench/toolschema"
)

// Validator checks a tools/call's structuredContent; a non-nil error makes
// the request a schema_violation.
type Validator func(tool string, structured json.RawMessage) error

// newValidator compiles the outputSchema of every tool ops call that has
// one; nil when none has.
func newValidator(ops []Op, cat catalog) (Validator, error) {
	validators := map[string]*toolschema.OutputValidator{}
	for _, op := range ops {
		t, ok := cat.byName[op.Request.Tool]
		if !ok || len(t.OutputSchema) == 0 || validators[t.Name] != nil {
			continue
		}
		v, err := toolschema.CompileOutputSchema(t.OutputSchema)
		if err != nil {
			return nil, &ServerError{Msg: fmt.Sprintf("tool %q has an outputSchema that does not compile: %v", t.Name, err), Err: err}
		}
		validators[t.Name] = v
	}
	if len(validators) == 0 {
		return nil, nil
	}
	return func(tool string, structured json.RawMessage) error {
		v := validators[tool]
		if v == nil {
			return nil
		}
		if viol := v.Validate(structured); viol != nil {
			return viol
		}
		return nil
	}, nil
}
