package main

import (
	"fmt"
	"os"
	"runtime/pprof"

	"github.com/mcpbench/mcpbench/dashboard"
	"github.com/mcpbench/mcpbench/harness"
)

// The harness outputs the flags ask for that are neither reports nor
// streams: the heap profile and the live page. (The abort watch is in
// abort.go, --live's lines in live.go, --out's streams in telemetry.go.)

// heapProfile writes what the generator holds as a point's load ends,
// before its workers close (the last point's, in a sweep).
type heapProfile struct {
	harness.NopOutput
	e         env
	cmd, path string
}

func (h heapProfile) Event(ev harness.Event) {
	if ev.Kind != harness.EventLoadDone {
		return
	}
	if err := writeHeapProfile(h.path); err != nil {
		fmt.Fprintf(h.e.stderr, "mcpbench %s: --memprofile: %v\n", h.cmd, err)
	}
}

// writeHeapProfile records what the generator holds in memory.
func writeHeapProfile(path string) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	defer f.Close()
	return pprof.Lookup("heap").WriteTo(f, 0)
}

// startCPUProfile profiles the generator, for finding its own cost.
func startCPUProfile(path string) (func(), error) {
	f, err := os.Create(path)
	if err != nil {
		return nil, err
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		return nil, err
	}
	return func() { pprof.StopCPUProfile(); f.Close() }, nil
}

// dashboardOutput is the live page (--dashboard), which says where it is
// once it listens.
type dashboardOutput struct {
	*dashboard.Dashboard
	e   env
	cmd string
}

func (d dashboardOutput) Start(m harness.Meta) error {
	if err := d.Dashboard.Start(m); err != nil {
		return fmt.Errorf("--dashboard: %w", err)
	}
	fmt.Fprintf(d.e.stderr, "mcpbench %s: dashboard at %s\n", d.cmd, d.URL())
	return nil
}
