package mcp

import "context"

// Hooks are what a load test asks of a client beyond speaking MCP. The
// client carries them out on the wire; which sessions and which requests
// is the caller's choice (harness makes them from --abandon-sessions and
// --trace). A detached client shares its parent's.
type Hooks struct {
	// Abandon, when set, is asked as each session that would send a
	// DELETE ends whether it goes away without one instead (abandon.go).
	// Being set also has net/http's connections booked, so that an
	// abandoned session can drop one (internal/connbook).
	Abandon func() bool
	// Trace, when set, sends W3C trace context on a share of the
	// requests (trace.go).
	Trace *Trace
}

// Dial negotiates with the server at o.URL, with no hooks.
func Dial(ctx context.Context, o Options) (*Client, error) {
	return DialWith(ctx, o, Hooks{})
}
