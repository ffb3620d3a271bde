package bench_test

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"runtime"
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
// gives it, is at most idleSessionBound, the goal. On 6e9f56c it
// was 32.0-35.8 KB; on 61ca994 18.9 KB (a thinking user's parked task,
// 4-5 KB of stack, and the read buffer each idle connection's recvmsg
// iovec still pinned); now about 8.3 KB, of which some 1 KB is the run's
// own histograms and series spread over the 2,000 sessions.
const idleSessionBound = 10 << 10

func TestIdleSessionsMemory(t *testing.T) {
	const users = 2000
	base := serverProcess(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	wl := idleUsers(ctx, t, mcp.Options{URL: base + "/mcp", PoolSize: users, Timeout: 10 * time.Second}, "60s")
	before := health(t, base)
	// The run ends once every session is idle and measured so: all pings
	// answered and no task of a user left (each was a goroutine, a
	// coroutine of the loop, while it opened its session), then
	// collections the watch sees. On a busy machine the sessions took
	// longer to open than a fixed think lasted, and no moment had them
	// all open and idle.
	runCtx, stop := context.WithCancel(ctx)
	defer stop()
	wait := endWhenIdle(runCtx, stop, base, before, users, nil)
	defer wait()
	p, err := bench.Run(runCtx, bench.Config{Model: bench.ClosedLoop{Concurrency: users, RampUp: time.Second}, Duration: 5 * time.Second, Loops: 1}, wl)
	if err != nil {
		t.Fatal(err)
	}
	after := health(t, base)
	s := p.Sessions
	inits := after.RequestsByMethod["initialize"] - before.RequestsByMethod["initialize"]
	deletes := after.RequestsByMethod["DELETE"] - before.RequestsByMethod["DELETE"]
	t.Logf("%d open at once, %d initialized at the server, %d closed: %.0f B per idle session (%s)", s.PeakOpen, inits, after.SessionsOpen, s.MemoryPerSession, p.Client.Driver)
	// The run leaves no session open: no more than before it. (Fewer was
	// seen once, on a loaded machine, with no DELETE during the run: the
	// one open before is the test client's own, not the run's, and went
	// for a reason this test does not see.)
	if s.PeakOpen != users || inits != users || after.SessionsOpen > before.SessionsOpen {
		t.Fatalf("%d sessions open at once, %d initialized, want %d; %d open at the server after the run, %d before (%d DELETEs)", s.PeakOpen, inits, users, after.SessionsOpen, before.SessionsOpen, deletes)
	}
	if s.MemoryPerSession <= 0 || s.MemoryPerSession > idleSessionBound && !raceOn {
		t.Fatalf("%.0f B per idle session, want at most %d", s.MemoryPerSession, idleSessionBound)
	}
}

// endWhenIdle ends a run of idle users (stop) once the server has answered
// every one of users sessions' ping since before, no user task is left
// (each was a goroutine, a coroutine of the loop, while it opened its
// session) and also, if given, holds of the server's figures; then it
// makes two collections, as the memory watch makes over a longer hold
// (the first moves what sync.Pools kept of the opening burst aside, the
// second frees it), and gives the watch time to see them. The function
// it returns waits until it is done.
func endWhenIdle(ctx context.Context, stop context.CancelFunc, base string, before target.Health, users int, also func(target.Health) bool) (wait func()) {
	g0 := runtime.NumGoroutine()
	done := make(chan struct{})
	go func() {
		defer close(done)
		defer stop()
		for ctx.Err() == nil {
			time.Sleep(100 * time.Millisecond)
			h, err := target.FetchHealth(base + "/health")
			if err != nil {
				continue
			}
			ok := also == nil || also(h)
			if ok && h.RequestsByMethod["ping"]-before.RequestsByMethod["ping"] >= int64(users) && runtime.NumGoroutine() < g0+64 {
				break
			}
		}
		runtime.GC()
		runtime.GC()
		time.Sleep(500 * time.Millisecond) // the watch looks every 50 ms, if the machine lets it
	}()
	return func() { <-done }
}
