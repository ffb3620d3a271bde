package main

import (
	"bufio"
	"bytes"
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
	"syscall"
	"testing"
	"time"

	"gopkg.in/yaml.v3"
)

// callsBySession counts, in front of a server, the tools/call requests of
// each MCP session (by Mcp-Session-Id) and the DELETEs: the server's side
// of a run, counted outside mcpbench.
type callsBySession struct {
	mu      sync.Mutex
	calls   map[string]int
	deletes int
}

func sessionCounter(t *testing.T, upstream string) (string, *callsBySession) {
	u, _ := url.Parse(upstream)
	rp := httputil.NewSingleHostReverseProxy(&url.URL{Scheme: u.Scheme, Host: u.Host})
	rp.FlushInterval = -1
	c := &callsBySession{calls: map[string]int{}}
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		sid := r.Header.Get("Mcp-Session-Id")
		if r.Method == http.MethodPost {
			body, _ := io.ReadAll(r.Body)
			r.Body = io.NopCloser(bytes.NewReader(body))
			var m struct{ Method string }
			if json.Unmarshal(body, &m) == nil && m.Method == "tools/call" {
				c.mu.Lock()
				c.calls[sid]++
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
	entry := peerEntry(t, "server-everything")
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	cmd := exec.Command("node", entry, "streamableHttp")
	cmd.Env = append(os.Environ(), "PORT="+addr[strings.LastIndexByte(addr, ':')+1:])
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL); _ = cmd.Wait() })
	for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		if c, err := net.Dial("tcp", addr); err == nil {
			c.Close()
			return "http://" + addr + "/mcp"
		}
	}
	t.Fatalf("server-everything did not listen on %s", addr)
	return ""
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
// parallel block, and replayed by two users for six sessions, the server
// receives exactly four tools/call in each session.
func TestRecordRealClient(t *testing.T) {
	server, counts := sessionCounter(t, everythingHTTP(t))
	dir := t.TempDir()
	out := filepath.Join(dir, "recorded.yaml")
	proxy, stop := startRecord(t, server, out)
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
	b, err := os.ReadFile(out)
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
	var kinds []string
	for _, st := range f.Scenarios[0].Steps {
		for k, v := range st {
			if k == "think" {
				if d, _ := time.ParseDuration(v.(string)); d >= 250*time.Millisecond {
					k = "pause"
				}
			}
			if p, ok := v.([]any); ok && k == "parallel" {
				k = fmt.Sprintf("parallel of %d", len(p))
			}
			if k != "think" {
				kinds = append(kinds, k)
			}
		}
	}
	if got := strings.Join(kinds, " "); got != "list call pause call parallel of 2" {
		t.Fatalf("recorded steps (short pauses left out): %s\n%s", got, b)
	}
	counts.mu.Lock()
	counts.calls = map[string]int{}
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
}
