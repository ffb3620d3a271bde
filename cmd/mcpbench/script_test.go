package main

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/mcpbench/mcpbench/target"
)

// The testscripts in testdata/script run mcpbench as a newcomer does: every
// example of the README and of each command's --help (TestExamplesAreScripted
// holds them to that), and each mistake the issues list, judged by exit code
// and output. One file per command.

// Stamps the scripts' mcpbench carries, as `make build` would stamp them.
const (
	scriptVersion = "v0.0.0-script"
	scriptCommit  = "0123456789ab"
)

// scriptCommands are the programs the scripts run besides their own
// commands: mcpbench itself, and a server that accepts and never answers.
func scriptCommands() map[string]func() {
	return map[string]func(){
		"mcpbench": func() {
			version, commit = scriptVersion, scriptCommit
			main()
		},
		"hangserver": hangServer,
		"exitis":     exitIs,
		// mcpbench under another name, for the soak example's pgrep -f.
		"my-mcp-server": func() { main() },
	}
}

// exitIs CODE PROGRAM ARGS...: runs the program on the same stdout and
// stderr (signals passed on) and succeeds when it exits with CODE. The
// scripts check exit codes with it: 1, 2, 3 and 130 mean different things.
func exitIs() {
	if len(os.Args) < 3 {
		fmt.Fprintln(os.Stderr, "usage: exitis CODE PROGRAM ARGS...")
		os.Exit(2)
	}
	want, err := strconv.Atoi(os.Args[1])
	if err != nil {
		fmt.Fprintln(os.Stderr, "exitis:", err)
		os.Exit(2)
	}
	cmd := exec.Command(os.Args[2], os.Args[3:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	if err := cmd.Start(); err != nil {
		fmt.Fprintln(os.Stderr, "exitis:", err)
		os.Exit(2)
	}
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	go func() {
		for s := range sigs {
			_ = cmd.Process.Signal(s)
		}
	}()
	_ = cmd.Wait()
	if got := cmd.ProcessState.ExitCode(); got != want {
		fmt.Fprintf(os.Stderr, "exitis: %s exited %d, want %d\n", os.Args[2], got, want)
		os.Exit(1)
	}
	os.Exit(0)
}

// measuringScripts are the scripts whose verdicts depend on the machine's
// speed or its promptness (a sweep's knee, its feasible concurrency, a
// latency against an SLO): they run side by side in
// TestScriptsThatMeasure, in make test's timed lane, and the others in
// TestScripts, in the untimed lane. sweep-slo.txtar's server sleeps 50 ms
// a call for at most 20 calls a second, light beside sweep.txtar's
// sweeps. sweep-gates.txtar is not one: a slower machine only makes its
// starved generator more so, and its busy loop on core 0 must not run
// beside a sweep that measures.
var measuringScripts = []string{"sweep.txtar", "sweep-slo.txtar"}

// loneScripts run in the timed lane too, one at a time after the
// measuring ones: compare.txtar's gate must see a 20 ms regression that a
// starved base run would hide, and run-stdio.txtar starts four node
// servers, whose start a starved machine stretches past the run's own
// --timeout. Beside a sweep either would move its knee.
var loneScripts = []string{"compare.txtar", "run-stdio.txtar"}

func TestScripts(t *testing.T) {
	t.Parallel() // the scripts judge output and exit codes, no figure a busy machine changes: with the other parallel tests
	all, err := filepath.Glob("testdata/script/*.txtar")
	if err != nil {
		t.Fatal(err)
	}
	var files []string
	for _, f := range all {
		name := filepath.Base(f)
		if !slices.Contains(measuringScripts, name) && !slices.Contains(loneScripts, name) {
			files = append(files, f)
		}
	}
	runScripts(t, files)
}

func TestScriptsThatMeasure(t *testing.T) {
	var files []string
	for _, name := range measuringScripts {
		files = append(files, filepath.Join("testdata/script", name))
	}
	runScripts(t, files)
}

func TestScriptsAlone(t *testing.T) {
	for _, name := range loneScripts {
		t.Run(name, func(t *testing.T) {
			runScripts(t, []string{filepath.Join("testdata/script", name)})
		})
	}
}

// runScripts runs the script files, side by side.
func runScripts(t *testing.T, files []string) {
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	testscript.Run(t, testscript.Params{
		Files:               files,
		RequireExplicitExec: true,
		Setup: func(env *testscript.Env) error {
			// Two servers' addresses: the examples' one and a second.
			for _, suffix := range []string{"", "2"} {
				addr, err := loopbackAddr()
				if err != nil {
					return err
				}
				env.Setenv("ADDR"+suffix, addr)
				env.Setenv("BASE"+suffix, "http://"+addr)
			}
			env.Setenv("REPO", root)
			env.Setenv("PEERS", filepath.Join(root, ".run", "peers"))
			env.Setenv("HOME", filepath.Join(env.WorkDir, "home"))
			env.Setenv("TMPDIR", filepath.Join(env.WorkDir, "tmp"))
			env.Setenv("VERSION", scriptVersion)
			return os.MkdirAll(filepath.Join(env.WorkDir, "tmp"), 0o755)
		},
		Condition: func(cond string) (bool, error) {
			if cond == "peers" { // the pinned npm peers are installed
				_, err := os.Stat(filepath.Join(root, ".run", "peers", "node_modules", ".bin", "mcp-server-everything"))
				if err != nil && os.Getenv("MCPBENCH_REQUIRE_PEERS") != "" {
					return false, fmt.Errorf("MCPBENCH_REQUIRE_PEERS is set but the peers are missing: run ./scripts/install-peers.sh")
				}
				return err == nil, nil
			}
			return false, fmt.Errorf("unknown condition %q", cond)
		},
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
			"waitserver":   waitServer,
			"waitfile":     waitFile,
			"waitport":     waitPort,
			"waitrequests": waitRequests,
			"sleep":        sleepCmd,
			"setenvfile":   setenvFile,
		},
	})
}

// loopbackAddr is a loopback address no one listens on just now.
func loopbackAddr() (string, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	defer l.Close()
	return l.Addr().String(), nil
}

// waitServer BASE: waits until BASE/health answers (the server started in
// the background is up).
func waitServer(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: waitserver BASE")
	}
	pollUntil(ts, args[0]+"/health to answer", func() bool {
		resp, err := http.Get(args[0] + "/health")
		if err != nil {
			return false
		}
		resp.Body.Close()
		return resp.StatusCode == http.StatusOK
	})
}

// waitRequests BASE N: waits until the server at BASE has answered N
// more requests, of any method, than when the command began: a run
// started in the background has begun its load, past the checks before
// it and with its signal handling in place. A fixed sleep is not enough
// where make test runs the scripts on the CPU the timed tests leave.
func waitRequests(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: waitrequests BASE N")
	}
	n, err := strconv.ParseInt(args[1], 10, 64)
	if err != nil {
		ts.Fatalf("usage: waitrequests BASE N")
	}
	answered := func() int64 {
		h, err := target.FetchHealth(args[0] + "/health")
		if err != nil {
			return -1
		}
		var total int64
		for _, c := range h.RequestsByMethod {
			total += c
		}
		return total
	}
	start := answered()
	if start < 0 {
		ts.Fatalf("%s/health does not answer", args[0])
	}
	pollUntil(ts, fmt.Sprintf("%s to answer %d more requests", args[0], n), func() bool {
		return answered() >= start+n
	})
}

// waitPort ADDR: waits until something accepts connections on ADDR (a
// proxy started in the background, which has no /health of its own).
func waitPort(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: waitport HOST:PORT")
	}
	pollUntil(ts, args[0]+" to accept", func() bool {
		c, err := net.DialTimeout("tcp", args[0], time.Second)
		if err == nil {
			c.Close()
		}
		return err == nil
	})
}

// waitFile FILE: waits until FILE exists and is not empty.
func waitFile(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: waitfile FILE")
	}
	pollUntil(ts, args[0]+" to appear", func() bool {
		fi, err := os.Stat(ts.MkAbs(args[0]))
		return err == nil && fi.Size() > 0
	})
}

// pollUntil checks done every 50 ms for up to 30 s.
func pollUntil(ts *testscript.TestScript, what string, done func() bool) {
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		if done() {
			return
		}
	}
	ts.Fatalf("waited 30 s for %s", what)
}

// sleepCmd DURATION: pauses the script.
func sleepCmd(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: sleep DURATION")
	}
	d, err := time.ParseDuration(args[0])
	ts.Check(err)
	time.Sleep(d)
}

// setenvFile VAR FILE: sets VAR to FILE's contents, trimmed.
func setenvFile(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: setenvfile VAR FILE")
	}
	ts.Setenv(args[0], strings.TrimSpace(ts.ReadFile(args[1])))
}

// hangServer URLFILE: listens on a loopback port, writes its MCP URL to
// URLFILE, accepts connections and never answers, until SIGINT or SIGTERM.
func hangServer() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: hangserver URLFILE")
		os.Exit(2)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	var held []net.Conn
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			held = append(held, c) // read nothing, answer nothing
		}
	}()
	url := "http://" + l.Addr().String() + "/mcp"
	if err := os.WriteFile(os.Args[1], []byte(url), 0o644); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	<-ctx.Done()
	l.Close()
}

// exampleSubstitutions turn a documented example into the line a script
// runs: the documented server address becomes the one the script's server
// listens on.
var exampleSubstitutions = strings.NewReplacer(
	"./mcpbench ", "mcpbench ",
	"http://127.0.0.1:3002", "$BASE",
	"https://mcp.internal.example", "$BASE",
	"https://mcp.example.internal", "$BASE",
	"http://127.0.0.1:9090", "$BASE", // the soak example's metrics endpoint
	"127.0.0.1:3002", "$ADDR",
	"127.0.0.1:4000", "$ADDR2", // record's proxy, in front of the server
	`"$GITHUB_STEP_SUMMARY"`, "$GITHUB_STEP_SUMMARY",
)

// TestExamplesAreScripted holds the README and every --help to what the
// scripts run: each example, with the server's address put in, is the
// command line of some exec in testdata/script.
func TestExamplesAreScripted(t *testing.T) {
	scripted := map[string]bool{}
	files, _ := filepath.Glob("testdata/script/*.txtar")
	if len(files) == 0 {
		t.Fatal("no scripts in testdata/script")
	}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, line := range strings.Split(string(b), "\n") {
			if cmd, ok := scriptCommand(line); ok {
				scripted[cmd] = true
			}
		}
	}
	var examples []string
	for _, c := range commands() {
		var out strings.Builder
		if code := dispatch([]string{c.name, "--help"}, env{stdout: &out, stderr: &out, getenv: os.Getenv}); code != 0 {
			t.Fatalf("%s --help: exit %d", c.name, code)
		}
		examples = append(examples, helpExamples(out.String())...)
	}
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	examples = append(examples, readmeExamples(string(readme))...)
	if len(examples) < 30 {
		t.Fatalf("found only %d examples: is the parsing broken?", len(examples))
	}
	for _, ex := range examples {
		if want := normalizeExample(ex); !scripted[want] {
			t.Errorf("example not run by any script in testdata/script:\n  %s\nwant a line: exec %s", ex, want)
		}
	}
}

// scriptCommand is the command line an exec of a script runs, without the
// script's decorations (negation, condition, background, sh -c quoting).
func scriptCommand(line string) (string, bool) {
	f := strings.TrimSpace(line)
	for _, prefix := range []string{"! ", "[peers] ", "[exec:bash] ", "[exec:zsh] ", "[exec:fish] "} {
		f = strings.TrimPrefix(f, prefix)
	}
	f, ok := strings.CutPrefix(f, "exec ")
	if !ok {
		return "", false
	}
	if words := strings.Fields(f); len(words) > 2 && words[0] == "exitis" {
		f = strings.Join(words[2:], " ")
	}
	if i := strings.LastIndex(f, " &"); i >= 0 && strings.HasSuffix(f, "&") {
		f = f[:i]
	}
	if inner, ok := strings.CutPrefix(f, "sh -c '"); ok && strings.HasSuffix(inner, "'") {
		f = strings.TrimSuffix(inner, "'")
	}
	return strings.Join(strings.Fields(f), " "), true
}

// normalizeExample is a documented example as a script runs it.
func normalizeExample(ex string) string {
	if i := strings.Index(ex, " # "); i >= 0 {
		ex = ex[:i]
	}
	ex = strings.TrimSuffix(strings.TrimSpace(ex), " &") // in the background
	return strings.Join(strings.Fields(exampleSubstitutions.Replace(ex)), " ")
}

// helpExamples are the command lines under a --help's "Example" heading,
// continuation lines joined.
func helpExamples(help string) []string {
	_, rest, ok := strings.Cut(help, "\nExample")
	if !ok {
		return nil
	}
	var lines []string
	for _, l := range strings.Split(rest, "\n")[1:] {
		lines = append(lines, strings.TrimSpace(l))
	}
	return commandLines(lines)
}

// readmeExamples are the mcpbench command lines of the README's sh blocks.
func readmeExamples(readme string) []string {
	var lines []string
	in := false
	for _, l := range strings.Split(readme, "\n") {
		switch {
		case strings.HasPrefix(l, "```sh"):
			in = true
		case strings.HasPrefix(l, "```"):
			in = false
		case in:
			lines = append(lines, strings.TrimSpace(l))
		}
	}
	return commandLines(lines)
}

// commandLines joins continued lines and keeps those that run mcpbench.
func commandLines(lines []string) []string {
	var out []string
	cur := ""
	for _, l := range lines {
		cur += l
		if strings.HasSuffix(cur, "\\") {
			cur = strings.TrimSuffix(cur, "\\") + " "
			continue
		}
		words := strings.Fields(cur)
		for len(words) > 0 && strings.Contains(words[0], "=") && !strings.HasPrefix(words[0], "-") {
			words = words[1:] // VAR=value in front
		}
		if len(words) > 0 && (words[0] == "mcpbench" || words[0] == "./mcpbench") {
			out = append(out, cur)
		}
		cur = ""
	}
	return out
}

// TestExampleParsing pins the parsing the example check relies on.
func TestExampleParsing(t *testing.T) {
	got := commandLines([]string{"# comment", "./mcpbench run --url x \\", "    -c 2", "MCPBENCH_TOKEN=... ./mcpbench run", "make demo"})
	if len(got) != 2 || normalizeExample(got[0]) != "mcpbench run --url x -c 2" || normalizeExample(got[1]) != "MCPBENCH_TOKEN=... mcpbench run" {
		t.Fatalf("%q", got)
	}
	for line, want := range map[string]string{
		"exec mcpbench run -n 5":                                 "mcpbench run -n 5",
		"! exec mcpbench run -n 0":                               "mcpbench run -n 0",
		"exec mcpbench serve --addr $ADDR &srv&":                 "mcpbench serve --addr $ADDR",
		"exec sh -c 'mcpbench merge s-*.json --json-out m.json'": "mcpbench merge s-*.json --json-out m.json",
		"[peers] exec mcpbench run -- npx -y x stdio":            "mcpbench run -- npx -y x stdio",
	} {
		if got, ok := scriptCommand(line); !ok || got != want {
			t.Errorf("%s: %q", line, got)
		}
	}
	if _, ok := scriptCommand("stdout 'exec mcpbench'"); ok {
		t.Error("a stdout check is not a command")
	}
	if got := normalizeExample(`./mcpbench compare a b --md-out "$GITHUB_STEP_SUMMARY" --url http://127.0.0.1:3002/mcp # note`); got != "mcpbench compare a b --md-out $GITHUB_STEP_SUMMARY --url $BASE/mcp" {
		t.Errorf("normalized: %q", got)
	}
}

// TestDocLinksResolve: every relative link of the README and the docs
// names a file of the repository (the README once sent readers to a
// CONTRACT.md that was not there).
func TestDocLinksResolve(t *testing.T) {
	docs, _ := filepath.Glob("../../docs/*.md")
	link := regexp.MustCompile(`\]\(([^)#\s]+)(#[^)]*)?\)`)
	n := 0
	for _, doc := range append(docs, "../../README.md") {
		b, err := os.ReadFile(doc)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range link.FindAllStringSubmatch(string(b), -1) {
			target := m[1]
			if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
				continue
			}
			n++
			if _, err := os.Stat(filepath.Join(filepath.Dir(doc), target)); err != nil {
				t.Errorf("%s links to %s, which is not there", doc, target)
			}
		}
	}
	if n < 5 {
		t.Fatalf("only %d relative links found: is the pattern broken?", n)
	}
}
