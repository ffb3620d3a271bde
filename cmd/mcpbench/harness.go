package main

import (
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/mcpbench/mcpbench/harness"
	"github.com/mcpbench/mcpbench/mcp"
)

// setup is the part of run's and sweep's harness configuration that
// their shared flags give.
func (t *targetFlags) setup(opts mcp.Options, load harness.LoadKind, s *shardFlags) harness.Setup {
	return harness.Setup{
		Options:   opts,
		Load:      load,
		HealthURL: t.healthURL,
		LogFile:   t.logFile,
		LogSettle: time.Duration(t.logSettle),
		StartAt:   s.at,
		Shard:     s.report(),
		Version:   buildVersion(),

		AbandonSessions: t.abandon,
	}
}

// watch adds the output that prints on stderr: the stage before the
// load, warnings and the tools about to be called, and, unless off or
// stderr is no terminal, the progress line, cleared after each
// measurement.
func watch(s *harness.Setup, e env, cmd string, off bool) {
	progress := progressPrinter(e, off)
	t := &terminal{e: e, cmd: cmd, draw: progress, warn: warnSetting(e, cmd), announce: announce(e, cmd),
		stages: newStageWatch(e, cmd, s.Options, progress != nil)}
	if progress == nil {
		s.Outputs = append(s.Outputs, t)
		return
	}
	s.Outputs = append(s.Outputs, terminalLine{t})
}

// slowStage is how long a step before the load may take before mcpbench
// says what it is waiting for, even with no progress line.
const slowStage = 5 * time.Second

// stageWatch shows what the setup is waiting on: on the progress line when
// there is one, and in one line on stderr when a step that waits on the
// server takes longer than slowStage.
type stageWatch struct {
	e       env
	cmd     string
	target  string
	timeout time.Duration
	line    bool

	mu    sync.Mutex
	timer *time.Timer
}

// newStageWatch watches the setup of a command against the target o;
// line says the progress line is on.
func newStageWatch(e env, cmd string, o mcp.Options, line bool) *stageWatch {
	return &stageWatch{e: e, cmd: cmd, target: targetName(o), timeout: o.Timeout, line: line}
}

// enter maps the harness's stages to show.
func (w *stageWatch) enter(st harness.Phase) {
	switch st {
	case harness.PhaseConnecting:
		w.show("connecting to "+w.target, true)
	case harness.PhaseWorkload:
		w.show("listing what "+w.target+" offers", true)
	case harness.PhaseStartWait:
		w.show("waiting for --start-at", false) // a wait the user asked for
	case harness.PhaseLogSettle:
		w.show("waiting for the server's log to settle", false)
	default:
		w.show("", false)
	}
}

// show puts what on the progress line ("" clears it) and, when the step
// waits on the server, arms the one-line notice for a slow answer.
func (w *stageWatch) show(what string, waitsOnServer bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.timer != nil {
		w.timer.Stop()
		w.timer = nil
	}
	if w.line {
		fmt.Fprint(w.e.stderr, "\r\033[K")
		if what != "" {
			fmt.Fprintf(w.e.stderr, "%s…", what)
		}
	}
	if !waitsOnServer {
		return
	}
	var t *time.Timer
	t = time.AfterFunc(slowStage, func() {
		w.mu.Lock()
		defer w.mu.Unlock()
		if w.timer != t {
			return // the step ended meanwhile
		}
		if w.line {
			fmt.Fprint(w.e.stderr, "\r\033[K")
		}
		fmt.Fprintf(w.e.stderr, "mcpbench %s: still %s after %s (each request may take up to --timeout %s)\n", w.cmd, what, slowStage, w.timeout)
	})
	w.timer = t
}

// targetName is the server as the user gave it: the URL, or the stdio
// command.
func targetName(o mcp.Options) string {
	if len(o.Command) > 0 {
		return strings.Join(o.Command, " ")
	}
	return mcp.Redact(o.URL)
}
