package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/pflag"

	"github.com/mcpbench/mcpbench/harness"
	"github.com/mcpbench/mcpbench/mcp"
)

// usageError is a bad flag or configuration: one line, exit 2.
type usageError struct{ msg string }

func (e usageError) Error() string { return e.msg }

func usagef(format string, a ...any) error { return usageError{fmt.Sprintf(format, a...)} }

// newFlagSet makes a flag set that reports errors itself in one line and
// knows the seed scripts' aliases.
func newFlagSet(name string) *pflag.FlagSet {
	fs := pflag.NewFlagSet(name, pflag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.SortFlags = false
	fs.SetNormalizeFunc(func(_ *pflag.FlagSet, n string) pflag.NormalizedName {
		switch n {
		case "base-url":
			n = "url"
		case "markdown-out":
			n = "md-out"
		case "warmup-calls":
			n = "warmup"
		}
		return pflag.NormalizedName(n)
	})
	return fs
}

// parseFlags parses args; it prints help (returning done=true, code 0) or
// one line for a bad flag or a number out of its range (done=true, code 2).
func parseFlags(fs *pflag.FlagSet, args []string, usage string, e env) (done bool, code int) {
	err := fs.Parse(args)
	if errors.Is(err, pflag.ErrHelp) {
		if strings.Contains(usage, "%s") {
			usage = fmt.Sprintf(usage, groupedUsages(fs))
		}
		fmt.Fprint(e.stdout, usage)
		return true, exitOK
	}
	if err != nil {
		err = flagParseError(fs, err)
	} else {
		err = checkFlags(fs)
	}
	if err != nil {
		fmt.Fprintf(e.stderr, "mcpbench %s: %v (see --help)\n", fs.Name(), err)
		return true, exitUsage
	}
	return false, 0
}

// splitCommand separates the stdio server command (after --) from the
// other positional arguments.
func splitCommand(fs *pflag.FlagSet) (rest, command []string) {
	if at := fs.ArgsLenAtDash(); at >= 0 {
		return fs.Args()[:at], fs.Args()[at:]
	}
	return fs.Args(), nil
}

// unreachableError: the target could not be reached or did not speak MCP.
type unreachableError struct{ msg string }

func (e unreachableError) Error() string { return e.msg }

// exitFor maps an error to one line on stderr and an exit code.
func exitFor(e env, cmd string, err error) int {
	fmt.Fprintf(e.stderr, "mcpbench %s: %s\n", cmd, oneLine(err.Error()))
	var u usageError
	var un unreachableError
	switch {
	case errors.As(err, &u):
		return exitUsage
	case errors.As(err, &un):
		return exitUnreachable
	default:
		return exitUnreachable
	}
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// settingFlags name the flag that gave each value the harness checks.
var settingFlags = map[harness.Setting]string{
	harness.SettingLogFile:       "--log-file",
	harness.SettingHealthURL:     "--health-url",
	harness.SettingCACert:        "--cacert",
	harness.SettingEngine:        "--engine",
	harness.SettingServerPID:     "--server-pid",
	harness.SettingServerMetrics: "--server-metrics",
}

// flagError puts a harness error in the command line's terms: the flag at
// fault, and the usage or unreachable class that picks the exit code.
func flagError(err error) error {
	if err == nil {
		return nil
	}
	if wl, ok := errors.AsType[*harness.WorkloadError](err); ok {
		return workloadError(wl.Err)
	}
	if cfg, ok := errors.AsType[*harness.ConfigError](err); ok {
		if cfg.Setting == "" {
			return usagef("%v", err)
		}
		if settingFlags[cfg.Setting] == "" { // an output: its error names its flag
			return usagef("%v", cfg.Err)
		}
		return usagef("%s: %v", settingFlags[cfg.Setting], cfg.Err)
	}
	if unr, ok := errors.AsType[*harness.UnreachableError](err); ok {
		if _, ok := errors.AsType[*mcp.AuthError](err); ok {
			return authError(unr.Msg)
		}
		return unreachableError{unr.Msg}
	}
	return err
}

// authError is a server that refused the credentials, or wanted some: exit
// 3, naming the ways to give them.
func authError(msg string) error {
	return unreachableError{msg + "; give credentials with -H 'Authorization: Bearer …', MCPBENCH_TOKEN=… (sent as a bearer token), or -H 'NAME: value' with --secret-header NAME"}
}

// dial is harness.Dial with its errors in the command line's terms; the
// probe's sessions too end as --abandon-sessions says.
func (t *targetFlags) dial(ctx context.Context, o mcp.Options) (*mcp.Client, error) {
	c, err := harness.Dial(ctx, o, t.abandon)
	return c, flagError(err)
}

// harnessExit reports a run or sweep that measured nothing: silently
// interrupted while connecting or waiting for --start-at, interrupted
// during the load (unit names what was not measured), or failed.
func harnessExit(e env, cmd, unit string, err error) int {
	var intr *harness.InterruptedError
	if errors.As(err, &intr) {
		if intr.Measuring {
			fmt.Fprintf(e.stderr, "mcpbench %s: interrupted before any %s was measured\n", cmd, unit)
		}
		return exitInterrupted
	}
	return exitFor(e, cmd, flagError(err))
}

// warnSetting prints a problem that does not stop the command, naming its
// flag.
func warnSetting(e env, cmd string) func(harness.Setting, error) {
	return func(s harness.Setting, err error) {
		fmt.Fprintf(e.stderr, "mcpbench %s: %s: %v\n", cmd, settingFlags[s], oneLine(err.Error()))
	}
}
