package harness

import (
	"errors"
	"fmt"

	"github.com/mcpbench/mcpbench/mcp"
)

// Setting names a value of the configuration that an error is about, so
// that a caller can put it in its own terms (cmd names the flag).
type Setting string

// The settings whose values the harness checks itself.
const (
	SettingLogFile   Setting = "log file"
	SettingHealthURL Setting = "health URL"
	SettingCACert    Setting = "CA certificates"
	SettingEngine    Setting = "HTTP engine"
)

// optionSettings name the client options mcp reports errors about.
var optionSettings = map[string]Setting{"CACert": SettingCACert, "Engine": SettingEngine}

// ConfigError is a configuration that cannot work: the command line's
// exit 2. Setting is the value at fault, "" when Err says it all (a
// client option mcp refused).
type ConfigError struct {
	Setting Setting
	Err     error
}

func (e *ConfigError) Error() string {
	if e.Setting == "" {
		return e.Err.Error()
	}
	return string(e.Setting) + ": " + e.Err.Error()
}

func (e *ConfigError) Unwrap() error { return e.Err }

// OptionError returns err as a *ConfigError naming its setting when it
// holds an option mcp refused, else nil: for callers that dial through mcp
// themselves (the probe).
func OptionError(err error) *ConfigError {
	ce, ok := errors.AsType[*mcp.ConfigError](err)
	if !ok {
		return nil
	}
	return &ConfigError{Setting: optionSettings[ce.Option], Err: ce}
}

// UnreachableError is a target that could not be reached or did not speak
// MCP: the command line's exit 3. Msg starts with the target's name (its
// URL without credentials, or its stdio command); Err is the cause, an
// *mcp.AuthError among others.
type UnreachableError struct {
	Msg string
	Err error
}

func (e *UnreachableError) Error() string { return e.Msg }
func (e *UnreachableError) Unwrap() error { return e.Err }

// unreachable names the target and what went wrong with it.
func unreachable(o mcp.Options, err error) *UnreachableError {
	return &UnreachableError{Msg: fmt.Sprintf("%s: %v", o.Endpoint(), err), Err: err}
}

// InterruptedError is a context ended before anything was measured.
// Measuring tells an interruption of the load itself from one while
// connecting or waiting for the start time.
type InterruptedError struct{ Measuring bool }

func (e *InterruptedError) Error() string {
	if e.Measuring {
		return "interrupted before anything was measured"
	}
	return "interrupted before the load started"
}

// WorkloadError is a workload that could not be built on the server: the
// workload package's typed errors, wrapped so that callers can tell them
// from the harness's own.
type WorkloadError struct{ Err error }

func (e *WorkloadError) Error() string { return e.Err.Error() }
func (e *WorkloadError) Unwrap() error { return e.Err }
