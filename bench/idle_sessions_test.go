package bench_test

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/mcpbench/mcpbench/bench"
	"github.com/mcpbench/mcpbench/mcp"
	"github.com/mcpbench/mcpbench/target"
)

// serveEnv makes the test binary the bundled server (TestMain): a server
// in a process of its own, so that the generator's memory, which the
// idle-session test reads off the whole process, is the generator's alone.
const serveEnv = "MCPBENCH_BENCH_TEST_SERVE"

func TestMain(m *testing.M) {
	if os.Getenv(serveEnv) != "" {
		serveUntilStdinCloses()
		return
	}
	os.Exit(m.Run())
}

// serveUntilStdinCloses runs the bundled server (stateful, SSE answers),
// prints its URL and stops when the test closes its stdin.
func serveUntilStdinCloses() {
	srv, err := target.Start(context.Background(), target.Config{})
	if err != nil {
		fmt.Println("error:", err)
		return
	}
	fmt.Println(srv.URL)
	_, _ = bufio.NewReader(os.Stdin).ReadString('\n')
	srv.Close()
}

// serverProcess starts the bundled server in a process of its own for t
// and returns its base URL.
func serverProcess(t *testing.T) string {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), serveEnv+"=1")
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		stdin.Close()
		_ = cmd.Wait()
	})
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil || !strings.HasPrefix(line, "http://") {
		t.Fatalf("the server process said %q (%v)", line, err)
	}
	return strings.TrimSpace(line)
}

// health reads the server's /health.
func health(t *testing.T, base string) target.Health {
	t.Helper()
	h, err := target.FetchHealth(base + "/health")
	if err != nil {
		t.Fatal(err)
	}
	return h
}

// TestIdleSessionsMemory: 2,000 MCP sessions against the bundled server
// (its own process, stateful, SSE answers), joining over a second, each
// initialized on a connection of its own and then waiting through a
// think on an event loop: all are open at once, all initialized at the
// server, and the generator's memory per idle session, as the report
// gives it, is at most idleSessionBound. On 6e9f56c (read buffers held by
// idle connections, an SSE buffer and net/http transports per session,
// a request's deep stack kept through the think) it was 32.0-35.8 KB; now
// about 17 KB. The goal, 10 KB, is not reached yet: see the bound.
// idleSessionBound is what an idle session may cost the generator: what
// is left is mostly the session's own objects (its transport, framing
// buffers, detached client and pools, about 8 KB) and its user's
// coroutine stack (4-8 KB), against the goal of 10 KB in all.
const idleSessionBound = 26 << 10

func TestIdleSessionsMemory(t *testing.T) {
	const users = 2000
	base := serverProcess(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	wl := idleUsers(ctx, t, mcp.Options{URL: base + "/mcp", PoolSize: users, Timeout: 10 * time.Second})
	before := health(t, base)
	p, err := bench.Run(ctx, bench.Config{Concurrency: users, Duration: 2500 * time.Millisecond, RampUp: time.Second, Loops: 1}, wl)
	if err != nil {
		t.Fatal(err)
	}
	after := health(t, base)
	s := p.Sessions
	inits := after.RequestsByMethod["initialize"] - before.RequestsByMethod["initialize"]
	t.Logf("%d sessions, %d open at once, %d initialized at the server: %.0f B per idle session (%s)", s.Started, s.PeakOpen, inits, s.MemoryPerSession, p.Client.Driver)
	if p.Errors != 0 || s.PeakOpen != users || inits != users {
		t.Fatalf("%d errors %v; %d sessions open at once, %d initialized, want %d", p.Errors, p.ErrorExamples, s.PeakOpen, inits, users)
	}
	if s.MemoryPerSession <= 0 || s.MemoryPerSession > idleSessionBound && !raceOn {
		t.Fatalf("%.0f B per idle session, want at most %d", s.MemoryPerSession, idleSessionBound)
	}
}
