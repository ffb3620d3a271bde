package main

import (
	"fmt"
	"io"
	"os"
	"time"

	"github.com/mcpbench/mcpbench/harness"
	"github.com/mcpbench/mcpbench/workload"
)

// isTerminal reports whether w is a character device (a terminal).
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

// progressPrinter draws the progress line on stderr when it is a terminal.
func progressPrinter(e env, off bool) func(harness.Progress) {
	if off || !isTerminal(e.stderr) {
		return nil
	}
	return func(p harness.Progress) {
		done := fmt.Sprintf("%d", p.Done)
		switch {
		case p.Sessions > 0 && p.Total > 0:
			done = fmt.Sprintf("%d/%d sessions (%d steps)", p.Sessions, p.Total, p.Done)
		case p.Sessions > 0:
			done = fmt.Sprintf("%d sessions (%d steps)", p.Sessions, p.Done)
		case p.Total > 0:
			done = fmt.Sprintf("%d/%d", p.Done, p.Total)
		}
		left := ""
		if p.Remaining >= 0 {
			left = fmt.Sprintf("  %s left", p.Remaining.Round(time.Second))
		}
		fmt.Fprintf(e.stderr, "\r\033[K%s done  %.0f rps  p99≈%.1f ms  %d errors%s", done, p.RPS, p.P99MS, p.Errors, left)
	}
}

func clearProgress(e env, pr func(harness.Progress)) {
	if pr != nil {
		fmt.Fprint(e.stderr, "\r\033[K")
	}
}

// terminal is the output that keeps the user informed on stderr: what the
// setup is waiting on, warnings, the tools about to be called, and the
// progress line cleared after each measurement (terminalLine draws it).
type terminal struct {
	harness.NopOutput
	e        env
	cmd      string
	draw     func(harness.Progress) // the progress line; nil when off
	stages   *stageWatch
	warn     func(harness.Setting, error)
	announce func([]workload.ToolInfo, []string)
}

func (t *terminal) Event(ev harness.Event) {
	switch ev.Kind {
	case harness.EventPhase:
		t.stages.enter(ev.Phase)
	case harness.EventWorkload:
		t.announce(ev.Tools, ev.Warnings)
	case harness.EventWarning:
		t.warn(ev.Setting, ev.Err)
	case harness.EventMeasureEnd:
		clearProgress(t.e, t.draw)
	}
}

// terminalLine is a terminal with the progress line on; in a sweep the
// line names the point.
type terminalLine struct{ *terminal }

func (t terminalLine) Progress(p harness.PointProgress) {
	if p.Step.N > 0 {
		fmt.Fprintf(t.e.stderr, "\r\033[Kpoint %d/%d (%s): ", p.Step.N, p.Step.Total, levelLabel(p.Step.Level))
	}
	t.draw(p.Progress)
}
