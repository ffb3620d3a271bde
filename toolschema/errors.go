package toolschema

import (
	"fmt"
	"strings"
)

// SchemaError reports a schema that cannot be used to generate arguments:
// an unsatisfiable constraint, an unresolvable $ref, an invalid schema.
// Pointer is a JSON pointer into the tool's inputSchema.
type SchemaError struct {
	Tool    string
	Keyword string
	Pointer string
	Reason  string
	Err     error
}

func (e *SchemaError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "toolschema: tool %q: inputSchema", e.Tool)
	if e.Keyword != "" {
		fmt.Fprintf(&b, " keyword %q", e.Keyword)
	}
	ptr := e.Pointer
	if ptr == "" {
		ptr = "(root)"
	}
	fmt.Fprintf(&b, " at %s: %s", ptr, e.Reason)
	if e.Err != nil {
		fmt.Fprintf(&b, ": %v", e.Err)
	}
	return b.String()
}

func (e *SchemaError) Unwrap() error { return e.Err }

// CardinalityError says the schema admits fewer distinct argument sets than
// were asked for. Callers that can live with fewer use Available.
type CardinalityError struct {
	Tool      string
	Requested int
	Available int
}

func (e *CardinalityError) Error() string {
	return fmt.Sprintf("toolschema: tool %q: inputSchema admits only %d distinct argument set(s), %d requested",
		e.Tool, e.Available, e.Requested)
}

// pointerJoin appends reference tokens to a JSON pointer, escaping them.
func pointerJoin(ptr string, toks ...string) string {
	var b strings.Builder
	b.WriteString(ptr)
	for _, t := range toks {
		b.WriteByte('/')
		t = strings.ReplaceAll(t, "~", "~0")
		b.WriteString(strings.ReplaceAll(t, "/", "~1"))
	}
	return b.String()
}
