package main

import (
	"io"
	"os"
	"path/filepath"
	"runtime/pprof"

	"github.com/spf13/pflag"
)

// outputFlags say where reports go.
type outputFlags struct {
	jsonOut    string
	mdOut      string
	htmlOut    string
	outDir     string
	quiet      bool
	noProgress bool
	cpuProfile string
	memProfile string
}

func (o *outputFlags) register(fs *pflag.FlagSet) {
	o.registerReports(fs, true)
	o.registerHTML(fs)
	fs.BoolVar(&o.noProgress, "no-progress", false, "no progress line on stderr")
	fs.StringVar(&o.cpuProfile, "cpuprofile", "", "write a Go CPU profile of mcpbench itself to `FILE`")
	fs.StringVar(&o.memProfile, "memprofile", "", "write a Go heap profile of mcpbench, taken at the end of the load, to `FILE`")
}

// registerReports adds the flags of where reports go, with --out-dir
// for the commands that name reports themselves.
func (o *outputFlags) registerReports(fs *pflag.FlagSet, withDir bool) {
	fs.StringVar(&o.jsonOut, "json-out", "", "write the JSON report to `FILE` (- = stdout, and nothing else there)")
	fs.StringVar(&o.mdOut, "md-out", "", "write the Markdown report to `FILE` (alias --markdown-out)")
	if withDir {
		fs.StringVar(&o.outDir, "out-dir", ".run/reports", "directory for reports written under default names")
	}
	fs.BoolVarP(&o.quiet, "quiet", "q", false, "no human summary on stdout")
}

// registerHTML adds --html-out, for the commands with an HTML report.
func (o *outputFlags) registerHTML(fs *pflag.FlagSet) {
	fs.StringVar(&o.htmlOut, "html-out", "", "write the HTML report to `FILE`: one page with charts that works offline")
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

// summaryOut is where the human summary goes: nowhere when quiet or when
// stdout carries the JSON.
func (o *outputFlags) summaryOut(e env) io.Writer {
	if o.quiet || o.jsonOut == "-" || o.mdOut == "-" || o.htmlOut == "-" {
		return io.Discard
	}
	return e.stdout
}

// summaryErr is where gate verdicts go: stderr, unless quiet.
func (o *outputFlags) summaryErr() io.Writer {
	if o.quiet {
		return io.Discard
	}
	return os.Stderr
}

// writeFile writes one report through fn to path ("-" = stdout), creating
// the directory.
func writeFile(path string, e env, fn func(io.Writer) error) error {
	if path == "" {
		return nil
	}
	if path == "-" {
		return fn(e.stdout)
	}
	if dir := filepath.Dir(path); dir != "." {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return err
		}
	}
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := fn(e.scrubbed(f)); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
