package main

import (
	"fmt"
	"io"
	"net/url"
	"path/filepath"
	"slices"
	"strings"

	"github.com/mcpbench/mcpbench/harness"
	"github.com/mcpbench/mcpbench/report"
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

// defaultOutDir is where reports named by mcpbench go.
const defaultOutDir = ".run/reports"

// flags declares where run's and sweep's reports and profiles go;
// dirUsage says what --out-dir holds.
func (o *outputFlags) flags(dirUsage string) []flagDecl {
	return append(append(o.reports(), o.html()...),
		flagDecl{name: "out-dir", to: &o.outDir, def: defaultOutDir, group: "Outputs", usage: dirUsage},
		flagDecl{name: "no-progress", to: &o.noProgress, group: "Outputs", usage: "no progress line on stderr"},
		flagDecl{name: "cpuprofile", to: &o.cpuProfile, group: "Outputs", usage: "write a Go CPU profile of mcpbench itself to `FILE`"},
		flagDecl{name: "memprofile", to: &o.memProfile, group: "Outputs", usage: "write a Go heap profile of mcpbench, taken at the end of the load, to `FILE`"})
}

// reports declares the flags of where a command's reports go.
func (o *outputFlags) reports() []flagDecl {
	return []flagDecl{
		{name: "json-out", to: &o.jsonOut, group: "Outputs", usage: "write the JSON report to `FILE` (- = stdout, and nothing else there)"},
		{name: "md-out", to: &o.mdOut, group: "Outputs", usage: "write the Markdown report to `FILE` (alias --markdown-out; - = stdout)"},
		o.quietFlag("no human summary on stdout"),
	}
}

// quietFlag declares -q; usage says what it silences.
func (o *outputFlags) quietFlag(usage string) flagDecl {
	return flagDecl{name: "quiet", short: "q", to: &o.quiet, group: "Outputs", usage: usage}
}

// html declares --html-out, for the commands with an HTML report.
func (o *outputFlags) html() []flagDecl {
	return []flagDecl{{name: "html-out", to: &o.htmlOut, group: "Outputs", usage: "write the HTML report to `FILE`: one page with charts that works offline"}}
}

// reportExts are the file names' endings of the formats written under
// default names.
var reportExts = map[string]string{report.FormatJSON: ".json", report.FormatMarkdown: ".md", report.FormatSVG: ".svg", report.FormatHTML: ".html"}

// defaultNames points every report file of outs at BASE.ext in --out-dir.
func (o *outputFlags) defaultNames(outs map[string]output, base string) {
	for name, ext := range reportExts {
		if out, ok := outs[name]; ok && out.to == nil {
			outs[name] = output{path: filepath.Join(o.outDir, base+ext), flag: "--out-dir"}
		}
	}
}

// named reports whether outs names any report file.
func named(outs map[string]output) bool {
	for _, out := range files(outs) {
		if out.path != "" {
			return true
		}
	}
	return false
}

// announce says which files were written under default names, on the
// summary's stream.
func (o *outputFlags) announce(outs map[string]output, e env) {
	var paths []string
	for _, out := range files(outs) {
		if out.flag == "--out-dir" {
			paths = append(paths, out.path)
		}
	}
	slices.Sort(paths)
	for _, p := range paths {
		fmt.Fprintf(o.summaryOut(e), "wrote %s\n", p)
	}
}

// reportBase is the default name of a report of kind about the target:
// mcpbench-<host>_<port>-<kind>, or mcpbench-stdio_<program>-<kind>.
func reportBase(t *targetFlags, kind string) string {
	host, port := "server", ""
	if len(t.command) > 0 {
		host, port = "stdio", filepath.Base(t.command[0])
	} else if u, err := url.Parse(t.url); err == nil && u.Host != "" {
		host, port = u.Hostname(), u.Port()
		if port == "" {
			port = map[bool]string{true: "443", false: "80"}[u.Scheme == "https"]
		}
	}
	clean := func(s string) string {
		return strings.Map(func(r rune) rune {
			if r == '.' || r == '-' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' {
				return r
			}
			return '_'
		}, s)
	}
	return fmt.Sprintf("mcpbench-%s_%s-%s", clean(host), clean(port), kind)
}

// ready checks, before the load, that every report and profile can be
// written, then starts the profiles; stop ends the CPU profile.
func (o *outputFlags) ready(outs map[string]output, e env, cmd string, s *harness.Setup) (stop func(), err error) {
	if err := checkOutputs(append(files(outs), o.profileOutputs()...)); err != nil {
		return nil, err
	}
	return o.profiles(e, cmd, s)
}

// profiles starts the CPU profile and arranges the heap profile at the end
// of the load (an output that writes it as each point's load ends); stop
// ends the CPU profile.
func (o *outputFlags) profiles(e env, cmd string, s *harness.Setup) (stop func(), err error) {
	stop = func() {}
	if o.cpuProfile != "" {
		if stop, err = startCPUProfile(o.cpuProfile); err != nil {
			return nil, usagef("--cpuprofile %s: %v", o.cpuProfile, err)
		}
	}
	if o.memProfile != "" {
		s.Outputs = append(s.Outputs, heapProfile{e: e, cmd: cmd, path: o.memProfile})
	}
	return stop, nil
}

// profileOutputs are the profile files, for checkOutputs.
func (o *outputFlags) profileOutputs() []output {
	return []output{{path: o.cpuProfile, flag: "--cpuprofile"}, {path: o.memProfile, flag: "--memprofile"}}
}

// summaryOut is where the human summary goes: nowhere when quiet or when
// stdout carries a report.
func (o *outputFlags) summaryOut(e env) io.Writer {
	if o.quiet || o.jsonOut == "-" || o.mdOut == "-" || o.htmlOut == "-" {
		return io.Discard
	}
	return e.stdout
}

// summaryErr is where gate verdicts go: stderr, unless quiet.
func (o *outputFlags) summaryErr(e env) io.Writer {
	if o.quiet {
		return io.Discard
	}
	return e.stderr
}
