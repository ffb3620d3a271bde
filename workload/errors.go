package workload

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/agnivade/levenshtein"
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
	// ErrGlobsUnused: tool globs, but every tool is named, so there is
	// nothing for them to narrow.
	ErrGlobsUnused = errors.New("tool globs narrow the tools a workload picks itself, and every tool here is named")
	// ErrMixReplaces: a tool or arguments beside a mix, which replaces them.
	ErrMixReplaces = errors.New("a mix replaces the single tool and arguments")
	// ErrTargetUnused: a URI or prompt for a method that names neither.
	ErrTargetUnused = errors.New("a uri or prompt goes with resources/read, prompts/get or completion/complete")
	// ErrGenArgsReplaces: arguments beside generated ones.
	ErrGenArgsReplaces = errors.New("generated arguments replace the given ones")
)

// MethodError is a single operation's method the workload cannot send.
type MethodError struct{ Method string }

func (e *MethodError) Error() string {
	return fmt.Sprintf("method must be one of %s, not %q", strings.Join(Methods(), ", "), e.Method)
}

// UnknownToolError is a tool named that the server does not list. Listed
// is what it lists, the names closest to Tool first.
type UnknownToolError struct {
	Tool   string
	Listed []string
}

// shownNames is how many listed names an error spells out.
const shownNames = 12

func (e *UnknownToolError) Error() string {
	if len(e.Listed) == 0 {
		return fmt.Sprintf("the server lists no tool %q, and no tools at all", e.Tool)
	}
	return fmt.Sprintf("the server lists no tool %q; it lists (closest first) %s", e.Tool, nameList(e.Listed, shownNames))
}

// nameList joins names with commas, the first n of them, saying how many
// more there are.
func nameList(names []string, n int) string {
	if len(names) <= n {
		return strings.Join(names, ", ")
	}
	return fmt.Sprintf("%s … and %d more", strings.Join(names[:n], ", "), len(names)-n)
}

// closestFirst orders names by edit distance to name, the nearest first;
// names as near keep the server's order.
func closestFirst(name string, names []string) []string {
	out := slices.Clone(names)
	dist := make(map[string]int, len(out))
	for _, n := range out {
		dist[n] = levenshtein.ComputeDistance(strings.ToLower(name), strings.ToLower(n))
	}
	slices.SortStableFunc(out, func(a, b string) int { return dist[a] - dist[b] })
	return out
}

// SelectionError is a workload that picks its tools and found none it may
// call. The counts say why: tools the globs left out, and tools left out
// by their annotations, by effect (Unannotated of them had none at all).
type SelectionError struct {
	Listed      int
	Unmatched   int
	Left        map[Effect]int
	Unannotated int
}

func (e *SelectionError) Error() string {
	if e.Unmatched == e.Listed {
		return fmt.Sprintf("none of the server's %d tools matches the tool globs", e.Listed)
	}
	msg := fmt.Sprintf("none of the server's %d tools may be called unasked: not one is annotated readOnlyHint: true", e.Listed)
	if n := e.Left[Additive]; n > 0 {
		msg += fmt.Sprintf("; %d may write (destructiveHint: false)", n)
	}
	if n := e.Left[Destructive]; n > 0 {
		msg += fmt.Sprintf("; %d may destroy data", n)
		if e.Unannotated > 0 {
			msg += fmt.Sprintf(" (%d of them carry no annotations, which the spec reads as destructive)", e.Unannotated)
		}
	}
	if e.Unmatched > 0 {
		msg += fmt.Sprintf("; the tool globs leave out %d", e.Unmatched)
	}
	return msg
}

// GlobError is a tool glob that path.Match cannot read.
type GlobError struct{ Glob string }

func (e *GlobError) Error() string { return fmt.Sprintf("bad tool glob %q", e.Glob) }

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
