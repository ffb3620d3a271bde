package main

import (
	"fmt"
	"io"
	"os"
	"time"

	"github.com/mcpbench/mcpbench/harness"
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
