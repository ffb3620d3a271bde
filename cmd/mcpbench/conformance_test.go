package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"golang.org/x/sync/errgroup"
)

// The MCP conformance harness (@modelcontextprotocol/conformance, pinned in
// scripts/install-peers.sh) runs each of its client scenarios against
// mcpbench as the client: it starts a scenario's server and runs
// "<command> <server-url>". The command is this test binary (see
// conformanceClient), which reads the scenario and its context from the
// environment and runs mcpbench with the flags a user would give for it.
// Set MCPBENCH_INTEROP_OUT to write the results into docs/interop.md (make
// interop-doc does), as a section after the interoperability matrix.

// conformanceEnv names the mcpbench binary the test binary runs when the
// harness calls it as the client.
const conformanceEnv = "MCPBENCH_CONFORMANCE_MCPBENCH"

// conformanceClient is the test binary's life as the harness's client:
// one mcpbench run for the scenario, its exit code passed on.
func conformanceClient() {
	args := os.Args[1:]
	if len(args) == 0 {
		fmt.Fprintln(os.Stderr, "conformance client: no server URL")
		os.Exit(2)
	}
	ctx := map[string]string{}
	_ = json.Unmarshal([]byte(os.Getenv("MCP_CONFORMANCE_CONTEXT")), &ctx)
	run, env := conformanceArgs(os.Getenv("MCP_CONFORMANCE_SCENARIO"), ctx, args[len(args)-1])
	argv := append([]string{"mcpbench"}, run...)
	if err := syscall.Exec(os.Getenv(conformanceEnv), argv, append(os.Environ(), env...)); err != nil {
		fmt.Fprintln(os.Stderr, "conformance client:", err)
		os.Exit(2)
	}
}

// conformanceArgs is the mcpbench command line for a scenario: one request
// of what the scenario's server expects, with the OAuth settings its
// context gives (secrets through the environment, as a user would). The
// harness's tools carry no annotations, and calling them is the scenario,
// hence --allow-destructive.
func conformanceArgs(scenario string, ctx map[string]string, url string) (args, env []string) {
	args = []string{"run", "-n", "1", "-c", "1", "--timeout", "20s", "--arg-cardinality", "1", "--json-out", os.DevNull, "--url", url}
	switch {
	case scenario == "initialize":
		return append(args, "--method", "tools/list"), nil
	case scenario == "elicitation-sep1034-client-defaults":
		// Accept, with the defaults of the schema; the server asks on the
		// session's GET stream.
		// In the working directory, the scenario's own folder: scenarios
		// run side by side.
		answers, _ := filepath.Abs("mcpbench-conformance-accept.json")
		_ = os.WriteFile(answers, []byte(`{"elicitation/create":{"action":"accept"}}`), 0o600)
		return append(args, "--gen-args", "--allow-destructive", "--client-requests", answers, "--get-stream"), nil
	case !strings.HasPrefix(scenario, "auth/"):
		return append(args, "--gen-args", "--allow-destructive"), nil
	}
	args = append(args, "--gen-args", "--allow-destructive")
	flow := "authorization-code"
	switch {
	case ctx["private_key_pem"] != "":
		key, _ := filepath.Abs("mcpbench-conformance-key.pem") // the scenario's own folder, as above
		_ = os.WriteFile(key, []byte(ctx["private_key_pem"]), 0o600)
		flow = "client-credentials"
		args = append(args, "--oauth-client-key", key)
	case ctx["idp_id_token"] != "":
		flow = "enterprise"
		args = append(args, "--oauth-idp-token-endpoint", ctx["idp_token_endpoint"], "--oauth-idp-client-id", ctx["idp_client_id"])
		env = append(env, "MCPBENCH_OAUTH_ID_TOKEN="+ctx["idp_id_token"])
	case strings.HasPrefix(scenario, "auth/client-credentials"):
		flow = "client-credentials"
	case scenario == "auth/basic-cimd":
		// The harness's authorization server takes this document URL as
		// the client's ID.
		ctx["client_id"] = "https://conformance-test.local/client-metadata.json"
	}
	args = append(args, "--oauth", flow)
	if id := ctx["client_id"]; id != "" {
		args = append(args, "--oauth-client-id", id)
	}
	if secret := ctx["client_secret"]; secret != "" {
		env = append(env, "MCPBENCH_OAUTH_CLIENT_SECRET="+secret)
	}
	return args, env
}

// conformanceResult is one scenario's outcome as the harness judged it.
type conformanceResult struct {
	scenario, checks string
	passed           bool
}

func TestConformanceClients(t *testing.T) {
	t.Parallel() // wall-clock bound, no figure it checks depends on the machine's speed: beside the other parallel tests
	entry, node := conformanceHarness(t)
	if entry == "" {
		return
	}
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	scenarios := conformanceScenarios(t, node, entry)
	results := make([]conformanceResult, len(scenarios))
	texts := make([]string, len(scenarios))
	// Each scenario is a node process, its own server on a port of its own
	// and one request: mostly start-up. A few at a time, each in a folder
	// of its own (the client writes its answer and key files there).
	var g errgroup.Group
	g.SetLimit(conformanceAtOnce)
	for i, scenario := range scenarios {
		g.Go(func() error {
			results[i], texts[i] = runConformanceScenario(node, entry, self, filepath.Join(dir, strconv.Itoa(i)), scenario)
			return nil
		})
	}
	_ = g.Wait() // outcomes are in results: no scenario returns an error
	for i, r := range results {
		if !r.passed {
			t.Errorf("%s: not passed:\n%s", r.scenario, lastLines(texts[i], 25))
		}
	}
	if out := os.Getenv("MCPBENCH_INTEROP_OUT"); out != "" {
		writeConformanceSection(t, out, results)
	}
}

// conformanceAtOnce is how many scenarios run side by side.
const conformanceAtOnce = 4

// runConformanceScenario runs the harness on one client scenario in dir and
// returns its outcome and the harness's output.
func runConformanceScenario(node []string, entry, self, dir, scenario string) (conformanceResult, string) {
	r := conformanceResult{scenario: scenario}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return r, err.Error()
	}
	cmd := exec.Command(node[0], append(node[1:], entry, "client", "--command", self, "--scenario", scenario, "--timeout", "60000")...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), conformanceEnv+"="+binary)
	out, err := cmd.CombinedOutput()
	text := stripANSI(string(out))
	if cmd.ProcessState == nil {
		return r, fmt.Sprintf("%s: %v", text, err)
	}
	r.passed = cmd.ProcessState.ExitCode() == 0 && strings.Contains(text, "OVERALL: PASSED")
	if m := regexp.MustCompile(`Passed: (\d+/\d+)`).FindStringSubmatch(text); m != nil {
		r.checks = m[1]
	}
	return r, text
}

// conformanceHarness finds the pinned harness and how to run node on it:
// before Node 22, fs.globSync (which its tier check, never run here, takes
// from fs) is lent by a small loader (testdata/conformance).
func conformanceHarness(t *testing.T) (string, []string) {
	root, _ := filepath.Abs("../..") // go test runs in the package's folder
	entry := filepath.Join(root, ".run/peers/node_modules/@modelcontextprotocol/conformance/dist/index.js")
	_, err := os.Stat(entry)
	_, nodeErr := exec.LookPath("node")
	if err != nil || nodeErr != nil {
		if os.Getenv("MCPBENCH_REQUIRE_PEERS") != "" {
			t.Fatalf("the conformance harness is not installed (run scripts/install-peers.sh): %v %v", err, nodeErr)
		}
		t.Log("conformance scenarios skipped: run scripts/install-peers.sh (make test does)")
		return "", nil
	}
	node := []string{"node"}
	v, _ := exec.Command("node", "-p", "process.versions.node.split('.')[0]").Output()
	if major, _ := strconv.Atoi(strings.TrimSpace(string(v))); major < 22 {
		shim, _ := filepath.Abs("testdata/conformance/register.mjs")
		node = append(node, "--import", shim)
	}
	return entry, node
}

// conformanceScenarios lists the harness's client scenarios, all of them.
func conformanceScenarios(t *testing.T, node []string, entry string) []string {
	out, err := exec.Command(node[0], append(node[1:], entry, "list")...).Output()
	if err != nil {
		t.Fatalf("listing scenarios: %v", err)
	}
	var scenarios []string
	inClient := false
	sc := bufio.NewScanner(strings.NewReader(string(out)))
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "Client scenarios") {
			inClient = true
			continue
		}
		if inClient && strings.HasPrefix(strings.TrimSpace(line), "- ") {
			scenarios = append(scenarios, strings.Fields(strings.TrimSpace(line))[1])
		} else if inClient && strings.TrimSpace(line) != "" {
			break
		}
	}
	if len(scenarios) == 0 {
		t.Fatalf("no client scenarios in:\n%s", out)
	}
	return scenarios
}

var ansi = regexp.MustCompile("\x1b\\[[0-9;]*m")

func stripANSI(s string) string { return ansi.ReplaceAllString(s, "") }

func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return strings.Join(lines[max(0, len(lines)-n):], "\n")
}

// conformanceSection starts the conformance part of docs/interop.md, which
// the interoperability matrix's own writer keeps.
const conformanceSection = "## Conformance harness: client scenarios"

func writeConformanceSection(t *testing.T, path string, results []conformanceResult) {
	old, _ := os.ReadFile(path)
	head, rest, _ := strings.Cut(string(old), conformanceSection)
	// The differential matrix's section (interop/) follows this one: kept.
	var tail string
	if i := strings.Index(rest, "\n## Differential matrix"); i >= 0 {
		tail = rest[i:]
	}
	var b strings.Builder
	b.WriteString(strings.TrimRight(head, "\n") + "\n\n" + conformanceSection + "\n\n")
	b.WriteString("Generated by `make interop-doc` (the `TestConformanceClients` test in `cmd/mcpbench/`): the MCP\n")
	b.WriteString("conformance harness (`@modelcontextprotocol/conformance`, the version pinned in\n")
	b.WriteString("`scripts/install-peers.sh`) ran each of its client scenarios with mcpbench as the client, one\n")
	b.WriteString("`mcpbench run` per scenario (the flags are in the test's `conformanceArgs`); passed is the\n")
	b.WriteString("harness's own verdict, every check it made passing.\n\n")
	b.WriteString("| scenario | checks passed | result |\n| --- | --- | --- |\n")
	for _, r := range results {
		verdict := "passed"
		if !r.passed {
			verdict = "**failed**"
		}
		fmt.Fprintf(&b, "| %s | %s | %s |\n", r.scenario, r.checks, verdict)
	}
	b.WriteString(tail)
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
}
