package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	m3mcp "github.com/mark3labs/mcp-go/mcp"
	m3server "github.com/mark3labs/mcp-go/server"
	"gopkg.in/yaml.v3"
)

// callsBySession counts, in front of a server, the tools/call requests of
// each MCP session (by Mcp-Session-Id) and the DELETEs: the server's side
// of a run, counted outside mcpbench.
type callsBySession struct {
	mu      sync.Mutex
	calls   map[string]int
	args    map[string]int // tools/call by their arguments, compacted JSON
	answers map[string]int // the client's answers to the server's requests, by session
	deletes int
}

func sessionCounter(t *testing.T, upstream string) (string, *callsBySession) {
	u, _ := url.Parse(upstream)
	rp := httputil.NewSingleHostReverseProxy(&url.URL{Scheme: u.Scheme, Host: u.Host})
	rp.FlushInterval = -1
	c := &callsBySession{calls: map[string]int{}, args: map[string]int{}, answers: map[string]int{}}
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		sid := r.Header.Get("Mcp-Session-Id")
		if r.Method == http.MethodPost {
			body, _ := io.ReadAll(r.Body)
			r.Body = io.NopCloser(bytes.NewReader(body))
			var m struct {
				Method string
				Params struct{ Arguments json.RawMessage }
				Result json.RawMessage
			}
			if json.Unmarshal(body, &m) == nil && m.Method == "" && len(m.Result) > 0 {
				c.mu.Lock()
				c.answers[sid]++
				c.mu.Unlock()
			}
			if json.Unmarshal(body, &m) == nil && m.Method == "tools/call" {
				var args bytes.Buffer
				_ = json.Compact(&args, m.Params.Arguments)
				c.mu.Lock()
				c.calls[sid]++
				c.args[args.String()]++
				c.mu.Unlock()
			}
		}
		if r.Method == http.MethodDelete {
			c.mu.Lock()
			c.deletes++
			c.mu.Unlock()
		}
		rp.ServeHTTP(w, r)
	}))
	t.Cleanup(ts.Close)
	return ts.URL + u.Path, c
}

// everythingHTTP runs server-everything's Streamable HTTP on a free
// loopback port until the test ends.
func everythingHTTP(t *testing.T) string {
	url, _ := everythingProcess(t)
	return url
}

// everythingProcess is everythingHTTP with node's flags before the
// server's entry, and the server's pid.
func everythingProcess(t *testing.T, nodeFlags ...string) (string, int) {
	entry := peerEntry(t, "server-everything")
	addr, cmd := startOnFreePort(t, "server-everything", func(addr string) *exec.Cmd {
		cmd := exec.Command("node", append(nodeFlags, entry, "streamableHttp")...)
		cmd.Env = append(os.Environ(), "PORT="+addr[strings.LastIndexByte(addr, ':')+1:])
		return cmd
	}, func(addr string) bool {
		c, err := net.Dial("tcp", addr)
		if err == nil {
			c.Close()
		}
		return err == nil
	})
	return "http://" + addr + "/mcp", cmd.Process.Pid
}

// startRecord runs `mcpbench record` in front of upstream and returns the
// URL to point a client at, and a stop that interrupts it and waits.
func startRecord(t *testing.T, upstream, out string) (string, func() cliResult) {
	cmd := exec.Command(binary, "record", "--listen", "127.0.0.1:0", "--upstream", upstream, "--scenario-out", out)
	stdout, _ := cmd.StdoutPipe()
	var errb bytes.Buffer
	cmd.Stderr = &errb
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill() })
	line, err := bufio.NewReader(stdout).ReadString('\n')
	_, proxy, ok := strings.Cut(strings.TrimSpace(line), "listening on ")
	if err != nil || !ok {
		t.Fatalf("record's first line: %q %v (%s)", line, err, errb.String())
	}
	return proxy, func() cliResult {
		_ = cmd.Process.Signal(os.Interrupt)
		err := cmd.Wait()
		code := 0
		if ee, ok := err.(*exec.ExitError); ok {
			code = ee.ExitCode()
		}
		return cliResult{code: code, stderr: errb.String()}
	}
}

// TestRecordRealClient: the TypeScript SDK's client runs a session through
// record against server-everything (list tools, a call, a pause, another
// call, two at once, close). The scenario written holds the pause and the
// parallel block; echo's four different arguments are pooled in a data
// file beside it. Replayed by two users for six sessions, the server
// receives exactly four tools/call in each session, and each recorded
// set of arguments exactly six times (24 calls drawn in order from 4
// rows).
func TestRecordRealClient(t *testing.T) {
	t.Parallel() // counts, files and exit codes, no figure a busy machine changes: with the other parallel tests
	server, counts := sessionCounter(t, everythingHTTP(t))
	dir := t.TempDir()
	out := filepath.Join(dir, "recorded.yaml")
	if got := recordSDKClient(t, server, out); got != "list call pause call parallel of 2" {
		t.Fatalf("recorded steps: %s", got)
	}
	rows, err := os.ReadFile(filepath.Join(dir, "recorded.echo.jsonl"))
	if err != nil {
		t.Fatalf("no data file for echo's recorded arguments: %v", err)
	}
	counts.mu.Lock()
	counts.calls, counts.args = map[string]int{}, map[string]int{}
	counts.mu.Unlock()
	r := runCLI(t, nil, "run", "--url", server, "--scenario", out, "--users", "2", "--max-sessions", "6", "--think-scale", "0.1", "-q")
	if r.code != 0 {
		t.Fatalf("replay: exit %d: %s", r.code, r.stderr)
	}
	counts.mu.Lock()
	defer counts.mu.Unlock()
	if len(counts.calls) != 6 {
		t.Fatalf("the server saw tools/call in %d sessions, want 6: %v", len(counts.calls), counts.calls)
	}
	for sid, n := range counts.calls {
		if n != 4 {
			t.Errorf("session %s: %d tools/call at the server, want 4", sid, n)
		}
	}
	want := map[string]int{}
	for _, row := range strings.Fields(string(rows)) {
		want[row] += 6
	}
	if fmt.Sprint(want) != fmt.Sprint(counts.args) || len(want) != 4 {
		t.Errorf("arguments at the server %v, want each of the data file's 4 rows 6 times: %v", counts.args, want)
	}
}

// TestRecordKeepsConcurrencyAgainstAFastServer: the SDK client's two calls
// at once are recorded as a parallel block, and its calls in turn as steps
// in turn, against mcp-go, whose answers take well under a millisecond:
// without the proxy's hold (--min-answer-time) the first of the two
// answers was back before the second request reached record, which then
// wrote two calls in turn (two sessions in three on 63395fe). Three
// sessions, each recorded alone.
func TestRecordKeepsConcurrencyAgainstAFastServer(t *testing.T) {
	t.Parallel() // counts, files and exit codes, no figure a busy machine changes: with the other parallel tests
	s := m3server.NewMCPServer("fast", "1.0.0", m3server.WithToolCapabilities(false))
	s.AddTool(m3mcp.NewTool("echo", m3mcp.WithString("message", m3mcp.Required())),
		func(ctx context.Context, req m3mcp.CallToolRequest) (*m3mcp.CallToolResult, error) {
			return m3mcp.NewToolResultText(req.GetString("message", "")), nil
		})
	ts := httptest.NewServer(m3server.NewStreamableHTTPServer(s))
	defer ts.Close()
	for i := range 3 {
		out := filepath.Join(t.TempDir(), "recorded.yaml")
		if got := recordSDKClient(t, ts.URL+"/mcp", out); got != "list call pause call parallel of 2" {
			t.Fatalf("session %d: recorded steps: %s", i+1, got)
		}
	}
}

// recordSDKClient runs the TypeScript SDK's client (testdata/record) through
// record in front of upstream, writing out, and returns its recorded kinds.
func recordSDKClient(t *testing.T, upstream, out string) string {
	t.Helper()
	proxy, stop := startRecord(t, upstream, out)
	// node_modules, where install-peers.sh put the SDK beside the server.
	modules := filepath.Join(filepath.Dir(peerEntry(t, "server-everything")), "../../..")
	client := exec.Command("node", "testdata/record/client.cjs", proxy)
	client.Env = append(os.Environ(), "NODE_PATH="+modules)
	if b, err := client.CombinedOutput(); err != nil {
		t.Fatalf("the SDK client: %v\n%s", err, b)
	}
	if r := stop(); r.code != 0 {
		t.Fatalf("record: exit %d: %s", r.code, r.stderr)
	}
	return recordedKinds(t, out)
}

// recordedKinds reads the one scenario of a recorded file as a line of
// its request steps (a parallel block says how many it holds), with
// "pause" where a think step of at least the client's 300 ms comes just
// before the second call. Other think steps are left out: how long the
// client itself takes between calls (the SDK compiles the tools' schemas
// after listing them) depends on the machine.
func recordedKinds(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var f struct {
		Scenarios []struct {
			Steps []map[string]any
		}
	}
	if err := yaml.Unmarshal(b, &f); err != nil || len(f.Scenarios) != 1 {
		t.Fatalf("%v: %s", err, b)
	}
	t.Logf("recorded %s:\n%s", path, b)
	var kinds []string
	var think time.Duration
	calls := 0
	for _, st := range f.Scenarios[0].Steps {
		for k, v := range st {
			switch p, _ := v.([]any); {
			case k == "think":
				think, _ = time.ParseDuration(v.(string))
				continue
			case k == "call":
				if calls++; calls == 2 && think >= 300*time.Millisecond {
					kinds = append(kinds, "pause")
				}
			case k == "parallel":
				k = fmt.Sprintf("parallel of %d", len(p))
			}
			kinds = append(kinds, k)
			think = 0
		}
	}
	return strings.Join(kinds, " ")
}

// TestRecordStdioFilesystem: the same over stdio. The SDK's client
// launches record -- server-filesystem as its server; the recording holds
// the pause and the parallel block, and replaying it (two users, six
// sessions) runs without an error and changes nothing on disk.
func TestRecordStdioFilesystem(t *testing.T) {
	t.Parallel() // counts, files and exit codes, no figure a busy machine changes: with the other parallel tests
	entry := peerEntry(t, "server-filesystem")
	dir := filesystemScratch(t)
	out := filepath.Join(t.TempDir(), "stdio.yaml")
	launch, _ := json.Marshal([]string{binary, "record", "--scenario-out", out, "--", "node", entry, dir})
	client := exec.Command("node", "testdata/record/client_stdio.cjs", string(launch), dir)
	client.Env = append(os.Environ(), "NODE_PATH="+filepath.Join(filepath.Dir(entry), "../../.."))
	if b, err := client.CombinedOutput(); err != nil {
		t.Fatalf("the SDK client: %v\n%s", err, b)
	}
	if got := recordedKinds(t, out); got != "list call pause call parallel of 2" {
		t.Fatalf("recorded steps: %s", got)
	}
	before := treeHash(t, dir)
	r := runCLI(t, nil, "run", "--transport", "stdio", "--scenario", out, "--users", "2", "--max-sessions", "6",
		"--think-scale", "0.1", "--json-out", filepath.Join(t.TempDir(), "r.json"), "--", "node", entry, dir)
	if r.code != 0 {
		t.Fatalf("replay: exit %d: %s", r.code, r.stderr)
	}
	if after := treeHash(t, dir); after != before {
		t.Fatal("the replay changed the served directory")
	}
}

// TestRecordServerRequests: the SDK's client, declaring roots, calls
// server-everything's read-only get-roots-list through record; the server
// asks the client for its roots (roots/list) during the call, and the
// recorded step notes it in server_requests, and the client's answer is
// written beside the scenario as a --client-requests file. Replayed with
// --get-stream and that file, every session's request is answered: the
// server receives an answer from the client in each.
func TestRecordServerRequests(t *testing.T) {
	server, counts := sessionCounter(t, everythingHTTP(t))
	dir := t.TempDir()
	out := filepath.Join(dir, "roots.yaml")
	proxy, stop := startRecord(t, server, out)
	client := exec.Command("node", "testdata/record/client_roots.cjs", proxy)
	client.Env = append(os.Environ(), "NODE_PATH="+filepath.Join(filepath.Dir(peerEntry(t, "server-everything")), "../../.."))
	if b, err := client.CombinedOutput(); err != nil {
		t.Fatalf("the SDK client: %v\n%s", err, b)
	}
	if r := stop(); r.code != 0 {
		t.Fatalf("record: exit %d: %s", r.code, r.stderr)
	}
	b, _ := os.ReadFile(out)
	var f struct {
		Scenarios []struct {
			Steps []struct {
				Call           *struct{ Tool string }
				ServerRequests []string `yaml:"server_requests"`
			}
		}
	}
	if err := yaml.Unmarshal(b, &f); err != nil || len(f.Scenarios) != 1 {
		t.Fatalf("%v:\n%s", err, b)
	}
	noted := false
	for _, st := range f.Scenarios[0].Steps {
		if st.Call != nil && st.Call.Tool == "get-roots-list" {
			noted = strings.Contains(strings.Join(st.ServerRequests, " "), "roots/list")
		}
	}
	if !noted {
		t.Fatalf("the get-roots-list step does not note roots/list:\n%s", b)
	}
	// record wrote the client's answer beside the scenario.
	answers := filepath.Join(dir, "roots.client-requests.json")
	if a, err := os.ReadFile(answers); err != nil || !strings.Contains(string(a), "file:///nowhere") {
		t.Fatalf("the client's answers: %v %s", err, a)
	}
	counts.mu.Lock()
	counts.answers = map[string]int{}
	counts.mu.Unlock()
	report := filepath.Join(dir, "r.json")
	r := runCLI(t, nil, "run", "--url", server, "--scenario", out, "--users", "1", "--max-sessions", "3",
		"--get-stream", "--client-requests", answers, "--json-out", report, "-q")
	if r.code != 0 {
		t.Fatalf("replay: exit %d: %s", r.code, r.stderr)
	}
	var rep struct{ Errors int64 }
	if rb, err := os.ReadFile(report); err != nil || json.Unmarshal(rb, &rep) != nil || rep.Errors != 0 {
		t.Fatalf("replay report: %v, %d errors", err, rep.Errors)
	}
	counts.mu.Lock()
	defer counts.mu.Unlock()
	if len(counts.answers) != 3 {
		t.Fatalf("the client answered the server in %d sessions, want 3: %v", len(counts.answers), counts.answers)
	}
}
