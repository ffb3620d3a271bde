package main

import (
	"context"
	"fmt"
	"runtime"
	"runtime/debug"

	"github.com/mcpbench/mcpbench/harness"
)

// version and commit are stamped by `make build` and `make install` with
// -ldflags "-X main.version=… -X main.commit=…".
var (
	version = ""
	commit  = ""
)

// buildVersion is the version every report and `mcpbench version` carry:
// the stamped one, else the module version the go command recorded (a
// release for `go install …@v1.2.3`, a pseudo-version for a build in a
// clone), else "(devel)".
func buildVersion() string {
	if version != "" {
		return version
	}
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" {
		return bi.Main.Version
	}
	return "(devel)"
}

// buildCommit is the stamped commit, else the one the go command recorded
// from the clone it built in (with -dirty for uncommitted changes), else "".
func buildCommit() string {
	if commit != "" {
		return commit
	}
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return ""
	}
	rev, dirty := "", ""
	for _, s := range bi.Settings {
		switch {
		case s.Key == "vcs.revision":
			rev = s.Value[:min(12, len(s.Value))]
		case s.Key == "vcs.modified" && s.Value == "true":
			dirty = "-dirty"
		}
	}
	if rev == "" {
		return ""
	}
	return rev + dirty
}

const versionUsage = `Usage: mcpbench version

Prints the version, commit and Go version, and which drivers can run the
workers on this system (event loops need Linux: elsewhere goroutines run
them); --version does the same. Every report names the same version in
mcpbench_version, and the driver that ran in client.driver.

Example:
  mcpbench version
`

func versionMain(_ context.Context, args []string, e env) int {
	fs := newFlagSet("version")
	if done, code := parseFlags(fs, args, versionUsage, e); done {
		return code
	}
	if fs.NArg() > 0 {
		return exitFor(e, "version", usagef("unexpected argument %q", fs.Arg(0)))
	}
	c := buildCommit()
	if c == "" {
		c = "unknown"
	}
	fmt.Fprintf(e.stdout, "mcpbench %s (commit %s, %s %s/%s)\n", buildVersion(), c, runtime.Version(), runtime.GOOS, runtime.GOARCH)
	fmt.Fprintln(e.stdout, driversLine(runtime.GOOS))
	if buildVersion() == "(devel)" && c == "unknown" {
		fmt.Fprintln(e.stderr, "mcpbench version: this binary carries no version: `make install` (or `make build`) stamps one, as does `go install` with VCS stamping on (-buildvcs=auto, not false)")
	}
	return exitOK
}

// driversLine says which drivers a build for goos has: --driver auto and
// loops fall back to goroutines where event loops are not built.
func driversLine(goos string) string {
	if harness.EventLoopsOn(goos) {
		return "drivers: event-loops (--driver auto, loops), goroutines"
	}
	return "drivers: goroutines (event loops need Linux; --driver auto and loops run goroutines on " + goos + ")"
}
