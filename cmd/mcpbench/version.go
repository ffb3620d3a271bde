package main

import (
	"context"
	"fmt"
	"runtime"
	"runtime/debug"
)

// commit is set at build time with -ldflags "-X main.commit=…"; otherwise
// the VCS stamp of the build, if any.
var commit = ""

// version is set at build time with -ldflags "-X main.version=…".
var version = ""

// buildVersion is the version reports carry.
func buildVersion() string {
	if version != "" {
		return version
	}
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" {
		return bi.Main.Version
	}
	return "(devel)"
}

func versionMain(_ context.Context, args []string, e env) int {
	if len(args) > 0 && (args[0] == "-h" || args[0] == "--help") {
		fmt.Fprintln(e.stdout, "Usage: mcpbench version\n\nPrints the version, commit and Go version.\n\nExample:\n  mcpbench version")
		return exitOK
	}
	if len(args) > 0 {
		fmt.Fprintf(e.stderr, "mcpbench version: unexpected argument %q\n", args[0])
		return exitUsage
	}
	c := commit
	if c == "" {
		if bi, ok := debug.ReadBuildInfo(); ok {
			for _, s := range bi.Settings {
				if s.Key == "vcs.revision" {
					c = s.Value
				}
			}
		}
	}
	if c == "" {
		c = "unknown"
	}
	fmt.Fprintf(e.stdout, "mcpbench %s (commit %s, %s %s/%s)\n", buildVersion(), c, runtime.Version(), runtime.GOOS, runtime.GOARCH)
	return exitOK
}
