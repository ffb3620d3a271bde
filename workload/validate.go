package workload

import (
	"bytes"
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

// conformMax bounds the content a worker keeps as found conforming: a copy
// per worker, and thousands of workers must stay affordable.
const conformMax = 16 << 10

// lastConforming is the structuredContent a worker last found conforming,
// and the tool that gave it. A server answers the same call with the same
// bytes, and the verdict on the same bytes against the same schema is the
// same, so the worker skips the schema walk (decoding the content into
// maps, then visiting them) for an answer that repeats the last. That walk
// was the client's largest cost per request of its own: about 4 µs of
// 13 against the bundled server's echo (perf, 16 connections, one core).
type lastConforming struct {
	tool    string
	content []byte
}

// check is v's verdict on structured from tool, taken from the last
// content found conforming when structured is that content.
func (c *lastConforming) check(v Validator, tool string, structured []byte) error {
	if tool == c.tool && c.content != nil && bytes.Equal(structured, c.content) {
		return nil
	}
	if err := v(tool, structured); err != nil {
		return err
	}
	if len(structured) <= conformMax {
		c.tool, c.content = tool, append(c.content[:0], structured...)
	}
	return nil
}
