package workload

import (
	"encoding/json"

	"github.com/mcpbench/mcpbench/toolschema"
)

// generate makes n distinct argument sets for tool from its inputSchema.
// A schema too narrow for n sets gives a *toolschema.CardinalityError.
func (c catalog) generate(tool string, seed uint64, n int) ([]json.RawMessage, error) {
	t, ok := c.byName[tool]
	if !ok {
		return nil, &UnknownToolError{Tool: tool}
	}
	g, err := toolschema.NewGenerator(tool, t.InputSchema, int64(seed))
	if err != nil {
		return nil, err
	}
	return g.Distinct(n)
}

// injectInto merges inject into op's arguments, every set of them.
func injectInto(op *Op, inject json.RawMessage) error {
	merge := func(args json.RawMessage) (json.RawMessage, error) {
		m, err := toolschema.Merge(args, inject)
		if err != nil {
			return nil, &InjectError{Err: err}
		}
		return m, nil
	}
	var err error
	if op.Request.Arguments, err = merge(op.Request.Arguments); err != nil {
		return err
	}
	for i := range op.ArgSets {
		if op.ArgSets[i], err = merge(op.ArgSets[i]); err != nil {
			return err
		}
	}
	return nil
}
