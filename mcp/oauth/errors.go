package oauth

import (
	"fmt"
	"io"
)

// Error is a step of OAuth that failed: What says which, Err why. Net
// marks a failure to reach the server at all, which the client counts
// as a network error rather than a refusal.
type Error struct {
	What string
	Err  error
	Net  bool
}

func (e *Error) Error() string { return "OAuth: " + e.What + ": " + e.Err.Error() }
func (e *Error) Unwrap() error { return e.Err }

// ConfigError is a configuration no flow can work with.
type ConfigError struct{ Msg string }

func (e *ConfigError) Error() string { return e.Msg }

func configError(format string, a ...any) error {
	return &ConfigError{Msg: fmt.Sprintf(format, a...)}
}

// drainLimit bounds what drain reads of an answer nobody needs.
const drainLimit = 256 << 10

// drain reads what is left of a body (bounded), so its connection can be
// reused.
func drain(r io.Reader) { _, _ = io.Copy(io.Discard, io.LimitReader(r, drainLimit)) }
