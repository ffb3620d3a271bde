package workload

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/mcpbench/mcpbench/toolschema"
)

// generate makes n distinct argument sets for tool from its inputSchema,
// or as many as the schema admits when that is fewer, with a note saying
// so. A schema that admits none gives an error.
func (c catalog) generate(tool string, seed uint64, n int) ([]json.RawMessage, string, error) {
	t, ok := c.byName[tool]
	if !ok {
		return nil, "", &UnknownToolError{Tool: tool, Listed: closestFirst(tool, c.order)}
	}
	distinct := func(n int) ([]json.RawMessage, error) {
		g, err := toolschema.NewGenerator(tool, t.InputSchema, int64(seed))
		if err != nil {
			return nil, err
		}
		return g.Distinct(n)
	}
	sets, err := distinct(n)
	var card *toolschema.CardinalityError
	if !errors.As(err, &card) || card.Available < 1 {
		return sets, "", err
	}
	if sets, err = distinct(card.Available); err != nil {
		return nil, "", err
	}
	return sets, fmt.Sprintf("inputSchema admits only %d distinct argument set(s); %d asked for", card.Available, n), nil
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
