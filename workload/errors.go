package workload

import (
	"errors"
	"fmt"
)

// The errors of a Spec say which value is wrong, so a caller can put them
// in its own terms (a command line names its flags).

var (
	// ErrToolWithoutCall: a tool named for a method other than tools/call.
	ErrToolWithoutCall = errors.New("a tool goes with the method tools/call")
	// ErrCallWithoutTool: tools/call with no tool named.
	ErrCallWithoutTool = errors.New("tools/call needs a tool")
	// ErrCardinality: generated arguments with a cardinality below 1.
	ErrCardinality = errors.New("the argument cardinality must be at least 1")
	// ErrMixReplaces: a tool or arguments beside a mix, which replaces them.
	ErrMixReplaces = errors.New("a mix replaces the single tool and arguments")
	// ErrGenArgsReplaces: arguments beside generated ones.
	ErrGenArgsReplaces = errors.New("generated arguments replace the given ones")
)

// MethodError is a single operation's method the workload cannot send.
type MethodError struct{ Method string }

func (e *MethodError) Error() string {
	return fmt.Sprintf("method must be tools/list, tools/call, ping or server/discover, not %q", e.Method)
}

// UnknownToolError is a tool to generate arguments for that the server
// does not list.
type UnknownToolError struct{ Tool string }

func (e *UnknownToolError) Error() string {
	return fmt.Sprintf("the server lists no tool %q", e.Tool)
}

// InjectError is injected arguments that do not merge into an operation's.
type InjectError struct{ Err error }

func (e *InjectError) Error() string { return "injected arguments: " + e.Err.Error() }
func (e *InjectError) Unwrap() error { return e.Err }

// ServerError is a server whose tools make the workload impossible: they
// could not be listed, there are none to call, or an outputSchema does
// not compile. Msg says so in full; Err is the cause, if any.
type ServerError struct {
	Msg string
	Err error
}

func (e *ServerError) Error() string { return e.Msg }
func (e *ServerError) Unwrap() error { return e.Err }
