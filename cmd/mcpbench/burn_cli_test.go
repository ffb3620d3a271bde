package main

import (
	"strconv"
	"testing"
	"time"

	"github.com/prometheus/procfs"
)

// TestServeBurn: `serve --burn` adds CPU time to the server's process,
// measured against a server without it in the same test. Two servers take
// the same tools/call requests one at a time; the burning one's CPU time,
// from /proc, must grow by about calls × burn more than the other's. CPU
// time is not wall time, so a busy machine delays the test but does not
// move its figures.
func TestServeBurn(t *testing.T) {
	t.Parallel()
	const calls = 80
	const burn = 4 * time.Millisecond
	cpu := func(pid int) float64 {
		t.Helper()
		p, err := procfs.NewProc(pid)
		if err != nil {
			t.Fatal(err)
		}
		st, err := p.Stat()
		if err != nil {
			t.Fatal(err)
		}
		return st.CPUTime()
	}
	used := func(args ...string) float64 {
		t.Helper()
		url, pid := serveProcess(t, append([]string{"--stateless"}, args...)...)
		before := cpu(pid)
		r := runCLI(t, nil, "run", "--url", url+"/mcp", "--method", "tools/call", "--tool", "echo",
			"--args", `{"message":"burn"}`, "-c", "1", "-n", strconv.Itoa(calls), "-q")
		if r.code != 0 {
			t.Fatalf("run exited %d: %s", r.code, r.stderr)
		}
		return cpu(pid) - before
	}
	plain := used()
	burned := used("--burn", burn.String())
	want := calls * burn.Seconds()
	t.Logf("server CPU for %d calls: %.3f s plain, %.3f s with --burn %s (want about %.3f s more)", calls, plain, burned, burn, want)
	if extra := burned - plain; extra < 0.75*want || extra > 1.5*want+0.05 {
		t.Errorf("--burn %s over %d calls added %.3f s of server CPU, want about %.3f s", burn, calls, extra, want)
	}
}
