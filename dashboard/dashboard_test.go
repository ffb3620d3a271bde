package dashboard

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpbench/mcpbench/harness"
	"github.com/mcpbench/mcpbench/internal/browsertest"
	"github.com/mcpbench/mcpbench/mcp"
	"github.com/mcpbench/mcpbench/sweep"
	"github.com/mcpbench/mcpbench/target"
	"github.com/mcpbench/mcpbench/workload"
)

// browser runs headless Chromium on url with extra flags.
func browser(ctx context.Context, t *testing.T, path, url string, extra ...string) *exec.Cmd {
	return exec.CommandContext(ctx, path, append(append(browsertest.Flags(t.TempDir()), extra...), url)...)
}

// requests counts what the dashboard was asked for, by path.
type requests struct {
	mu sync.Mutex
	n  map[string]int
}

func (r *requests) add(p string) { r.mu.Lock(); r.n[p]++; r.mu.Unlock() }
func (r *requests) get(p string) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.n[p]
}

// TestDashboardInChromium: a 14 s run of the bundled server with the
// dashboard open in headless Chromium. The page loads with no fetch of its
// own, reloads as intervals settle, two screenshots 4 s apart differ, a
// browser killed mid-run leaves the run whole, and nothing but the
// dashboard's own paths is asked for. The package is in make test's timed
// lane: a browser held to the CPU others leave could not keep pace with
// the page (a screenshot waited past its 60 s bound).
func TestDashboardInChromium(t *testing.T) {
	chrome := browsertest.Chromium(t)
	srv, err := target.Start(context.Background(), target.Config{Tools: 2, Capacity: 64, ServiceTime: 5 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	d := New("127.0.0.1:0", srv.MCPURL())
	seen := &requests{n: map[string]int{}}
	d.seen = seen.add
	defer d.Close()
	setup := harness.Setup{Options: mcp.Options{URL: srv.MCPURL(), PoolSize: 4, Timeout: 10 * time.Second}, Version: "test", Outputs: []harness.Output{d}}
	setup.Load = harness.Requests(workload.Spec{Method: "tools/list"})
	type result struct {
		r   any
		err error
	}
	done := make(chan harness.Final, 1)
	go func() {
		r, err := harness.Run(context.Background(), harness.RunConfig{Setup: setup, Level: harness.LevelConfig{Model: harness.ClosedLoop{Concurrency: 4}, Duration: 14 * time.Second}})
		done <- harness.Final{Run: r, Err: err}
	}()
	waitFor(t, func() bool { d.mu.Lock(); defer d.mu.Unlock(); return d.cur != nil && d.cur.point.Series.Len() >= 2 })
	url := d.URL()

	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	dom, err := browser(ctx, t, chrome, url, "--dump-dom").Output()
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`data-state="ready"`, `data-resources="0"`, `id="chart-over-time-throughput"`} {
		if !bytes.Contains(dom, []byte(want)) {
			t.Errorf("the live page's DOM lacks %s", want)
		}
	}

	// A browser left open reloads as intervals settle; then it is killed.
	before := seen.get("/")
	open := browser(ctx, t, chrome, url, "--remote-debugging-port=0")
	if err := open.Start(); err != nil {
		t.Fatal(err)
	}
	time.Sleep(4 * time.Second)
	_ = open.Process.Kill()
	_ = open.Wait()
	t.Logf("an open page for 4 s: %d loads, %d polls so far", seen.get("/")-before, seen.get("/seq"))
	if got := seen.get("/") - before; got < 2 || seen.get("/seq") < 2 {
		t.Errorf("an open page loaded %d times and polled %d times in 4 s", got, seen.get("/seq"))
	}

	dir := t.TempDir()
	// On a loaded machine Chromium once exited 0 and wrote no screenshot:
	// it is asked again, three times in all.
	shot := func(name string) []byte {
		file := filepath.Join(dir, name)
		var out []byte
		for try := 0; try < 3; try++ {
			var err error
			if out, err = browser(ctx, t, chrome, url, "--screenshot="+file).CombinedOutput(); err != nil {
				t.Fatalf("screenshot: %v\n%s", err, out)
			}
			if b, err := os.ReadFile(file); err == nil {
				return b
			}
		}
		t.Fatalf("three tries wrote no screenshot; Chromium's last output:\n%s", out)
		return nil
	}
	a := shot("a.png")
	time.Sleep(4 * time.Second)
	b := shot("b.png")
	t.Logf("screenshots 4 s apart: %d and %d bytes", len(a), len(b))
	if bytes.Equal(a, b) {
		t.Error("two screenshots 4 s apart are the same")
	}

	f := <-done
	if f.Err != nil {
		t.Fatal(f.Err)
	}
	p := &f.Run.Point
	if p.Interrupted || p.Errors != 0 || p.Series.Len() < 14 || p.Requests == 0 {
		t.Errorf("the run after the browsers: interrupted %v, %d errors, %d buckets, %d requests", p.Interrupted, p.Errors, p.Series.Len(), p.Requests)
	}
	seen.mu.Lock()
	for path := range seen.n {
		if path != "/" && path != "/seq" && path != "/favicon.ico" {
			t.Errorf("the browser asked for %s", path)
		}
	}
	seen.mu.Unlock()

	// Read-only: nothing but GET and HEAD.
	resp, err := http.Post(url, "text/plain", strings.NewReader("x"))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusMethodNotAllowed {
		t.Errorf("POST answered %d", resp.StatusCode)
	}
}

func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		if cond() {
			return
		}
	}
	t.Fatal("timed out")
}

func TestListenAddrDefaultsToLoopback(t *testing.T) {
	for in, want := range map[string]string{"8080": "127.0.0.1:8080", ":0": "127.0.0.1:0", "0.0.0.0:9": "0.0.0.0:9", "[::1]:7": "[::1]:7"} {
		if got, err := ListenAddr(in); err != nil || got != want {
			t.Errorf("%q: %q, %v; want %q", in, got, err, want)
		}
	}
	if _, err := ListenAddr("host:port"); err == nil {
		t.Error("a port that is not a number was taken")
	}
}

func TestDashboardFollowsASweepLevelByLevel(t *testing.T) {
	d := New("127.0.0.1:0", "http://127.0.0.1:1/mcp")
	if err := d.Start(harness.Meta{Command: "sweep", Interval: time.Second}); err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	iv := func(n int, c int) harness.PointInterval {
		pi := harness.PointInterval{Step: sweep.Step{Level: sweep.Level{Concurrency: c}, N: n}}
		pi.Start, pi.End, pi.Length, pi.Requests, pi.Sent, pi.RPS = time.Now(), time.Second, time.Second, 10, 10, 10
		pi.Kinds, pi.Counts[0] = []string{"ok"}, 10
		return pi
	}
	get := func() string {
		resp, err := http.Get(d.URL())
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var b strings.Builder
		if _, err := io.Copy(&b, resp.Body); err != nil {
			t.Fatal(err)
		}
		return b.String()
	}
	d.Interval(iv(1, 2))
	d.Interval(iv(1, 2))
	if page := get(); !strings.Contains(page, "closed loop, 2 workers") {
		t.Errorf("level 1's page does not say its level")
	}
	d.Interval(iv(2, 8))
	d.mu.Lock()
	n, c := d.cur.point.Series.Len(), d.cur.point.Concurrency
	d.mu.Unlock()
	if n != 1 || c != 8 {
		t.Errorf("the second level starts afresh: %d buckets at concurrency %d", n, c)
	}
	if page := get(); !strings.Contains(page, `fetch("/seq"`) {
		t.Error("a live page without its poll")
	}
	d.Stop(harness.Final{Err: io.EOF})
	if page := get(); strings.Contains(page, `fetch("/seq"`) {
		t.Error("the page still polls after the end")
	}
}
