// Command mcpbench load-tests and benchmarks MCP servers.
package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"sync"
	"syscall"

	"github.com/spf13/pflag"
)

// Exit codes of the contract.
const (
	exitOK          = 0
	exitGate        = 1
	exitUsage       = 2
	exitUnreachable = 3
	exitInterrupted = 130
)

// env is what a command may touch of the outside world; tests swap it.
type env struct {
	stdout, stderr io.Writer
	stdin          io.Reader
	getenv         func(string) string
	secrets        *secretSet // values replaced by *** in everything written
}

// protect makes every later write through e (stdout, stderr, report files)
// replace the secret values with ***. Values added to the set later (a
// token obtained while running) are replaced from then on.
func (e *env) protect(secrets []string) {
	if len(secrets) == 0 && e.secrets != nil {
		return
	}
	if e.secrets == nil {
		e.secrets = &secretSet{}
	}
	e.secrets.add(secrets...)
	e.stdout = e.scrubbed(e.stdout)
	e.stderr = e.scrubbed(e.stderr)
}

// scrubbed wraps w so that the secrets never reach it.
func (e *env) scrubbed(w io.Writer) io.Writer {
	if e.secrets == nil {
		return w
	}
	if sw, ok := w.(scrubWriter); ok {
		w = sw.w
	}
	return scrubWriter{w: w, secrets: e.secrets}
}

// secretSet is the secrets to scrub; it grows while a command runs.
type secretSet struct {
	mu   sync.RWMutex
	vals []string
}

func (s *secretSet) add(vals ...string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, v := range vals {
		if len(v) >= 4 {
			s.vals = append(s.vals, v)
		}
	}
}

// scrubWriter replaces secret values in each write. The commands write
// whole lines and whole documents, so a value is never split across writes.
type scrubWriter struct {
	w       io.Writer
	secrets *secretSet
}

func (s scrubWriter) Write(p []byte) (int, error) {
	out := p
	s.secrets.mu.RLock()
	for _, sec := range s.secrets.vals {
		if bytes.Contains(out, []byte(sec)) {
			out = bytes.ReplaceAll(out, []byte(sec), []byte("***"))
		}
	}
	s.secrets.mu.RUnlock()
	if _, err := s.w.Write(out); err != nil {
		return 0, err
	}
	return len(p), nil
}

type command struct {
	name    string
	summary string
	main    func(ctx context.Context, args []string, e env) int
	// flags builds the command's flag set, for completion; nil when it
	// has none.
	flags func() *pflag.FlagSet
	// fileArgs: its arguments are files (reports, a log).
	fileArgs bool
}

func commands() []command {
	return []command{
		{"run", "one load point against one MCP server", runMain, func() *pflag.FlagSet { return new(runFlags).flagSet() }, false},
		{"sweep", "a series of load points, knee and SLO recommendation", sweepMain, func() *pflag.FlagSet { return new(sweepFlags).flagSet() }, false},
		{"probe", "one-shot observability probe", probeMain, func() *pflag.FlagSet { return new(probeFlags).flagSet() }, false},
		{"logscan", "scan a server log for tools/list stats lines", logscanMain, func() *pflag.FlagSet { return new(logscanFlags).flagSet() }, true},
		{"ab", "A/B experiment: is B slower than A, beyond the noise?", abMain, func() *pflag.FlagSet { return new(abFlags).flagSet() }, false},
		{"compare", "regression gate between two reports", compareMain, func() *pflag.FlagSet { return new(compareFlags).flagSet() }, true},
		{"merge", "combine shard reports into one", mergeMain, func() *pflag.FlagSet { return new(mergeFlags).flagSet() }, true},
		{"report", "a report from the JSON Lines file of --out json", reportMain, func() *pflag.FlagSet { return new(reportFlags).flagSet() }, true},
		{"record", "record a real client's sessions as a scenario file", recordMain, func() *pflag.FlagSet { return new(recordFlags).flagSet() }, false},
		{"serve", "the bundled reference MCP server", serveMain, func() *pflag.FlagSet { return new(serveFlags).flagSet() }, false},
		{"version", "version, commit, Go version", versionMain, nil, false},
		{"completion", "shell completion script for bash, zsh or fish", completionMain, nil, false},
	}
}

func main() {
	e := env{stdout: os.Stdout, stderr: os.Stderr, stdin: os.Stdin, getenv: os.Getenv}
	os.Exit(dispatch(os.Args[1:], e))
}

func dispatch(args []string, e env) int {
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" || args[0] == "help" {
		usage(e.stdout)
		if len(args) == 0 {
			return exitUsage
		}
		return exitOK
	}
	if args[0] == "--version" {
		args[0] = "version"
	}
	for _, c := range commands() {
		if c.name == args[0] {
			// The first SIGINT or SIGTERM cancels ctx: commands stop sending,
			// write what they measured and return exitInterrupted.
			ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			return c.main(ctx, args[1:], e)
		}
	}
	fmt.Fprintf(e.stderr, "mcpbench: unknown command %q (see mcpbench --help)\n", args[0])
	return exitUsage
}

func usage(w io.Writer) {
	fmt.Fprintln(w, "mcpbench: load-test and benchmark MCP servers")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "Usage: mcpbench COMMAND [flags]")
	fmt.Fprintln(w)
	for _, c := range commands() {
		fmt.Fprintf(w, "  %-10s %s\n", c.name, c.summary)
	}
	fmt.Fprintln(w)
	fmt.Fprintln(w, "Run 'mcpbench COMMAND --help' for a command's flags and an example.")
}
