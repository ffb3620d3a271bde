//go:build linux

package workload_test

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mcpbench/mcpbench/bench"
	"github.com/mcpbench/mcpbench/internal/evloop"
	"github.com/mcpbench/mcpbench/internal/h1"
	"github.com/mcpbench/mcpbench/mcp"
	"github.com/mcpbench/mcpbench/measure"
	"github.com/mcpbench/mcpbench/target"
	"github.com/mcpbench/mcpbench/workload"
)

// The wire test's server runs as this test binary again, so that it can
// sit on a core of its own (or share the generator's) as the two
// set-ups want.
const wireServerEnv = "MCPBENCH_WIRE_SERVER_CPU"

// sdkServerEnv set runs the server on the Go SDK (stateful, SSE answers),
// as `mcpbench serve` does, rather than with canned answers.
const sdkServerEnv = "MCPBENCH_WIRE_SERVER_SDK"

func TestMain(m *testing.M) {
	if cpu := os.Getenv(wireServerEnv); cpu != "" {
		os.Exit(wireServer(cpu, os.Getenv(sdkServerEnv) != ""))
	}
	os.Exit(m.Run())
}

// wireServer serves on loopback from cpu until its stdin closes: canned
// answers, or the SDK's with sdk.
func wireServer(cpu string, sdk bool) int {
	n, _ := strconv.Atoi(cpu)
	var mask [16]uint64
	mask[n/64] = 1 << (n % 64)
	setAll(&mask)
	srv, err := target.Start(context.Background(), target.Config{FixedResponse: !sdk})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer srv.Close()
	fmt.Println(srv.MCPURL())
	_, _ = bufio.NewReader(os.Stdin).ReadString('\n') // until the test closes it
	return 0
}

func startWireServer(t *testing.T, cpu int) string {
	t.Helper()
	return startServerProcess(t, cpu, false)
}

// startServerProcess starts this binary as a server on cpu (wireServer)
// and returns its URL; it stops when tb ends.
func startServerProcess(t testing.TB, cpu int, sdk bool) string {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$", "-test.bench=^$")
	cmd.Env = append(os.Environ(), wireServerEnv+"="+strconv.Itoa(cpu))
	if sdk {
		cmd.Env = append(cmd.Env, sdkServerEnv+"=1")
	}
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { stdin.Close(); _ = cmd.Wait() })
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil {
		t.Fatalf("the server did not start: %v", err)
	}
	return strings.TrimSpace(line)
}

// wireRun measures n requests of c workers from genCPU against the server
// and returns the report's figures and the wire's for the same requests.
func wireRun(t *testing.T, url string, c, genCPU int, n int64, stamps bool) (measure.Point, []time.Duration) {
	t.Helper()
	h1.ReceiveStamps = stamps
	defer func() { h1.ReceiveStamps = true }()
	defer pinAll(t, genCPU)()
	ctx := context.Background()
	cl, err := mcp.Dial(ctx, mcp.Options{URL: url, Timeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close(ctx)
	wl := &workload.Workload{Client: cl, Ops: []workload.Op{{Request: mcp.Request{Method: "tools/list"}}}}
	// Unmeasured and uncaptured: the connections open, the code warms.
	if _, err := bench.Run(ctx, bench.Config{Model: bench.ClosedLoop{Concurrency: c}, Total: 300}, wl); err != nil {
		t.Fatal(err)
	}
	port, _ := strconv.Atoi(url[strings.LastIndex(url, ":")+1 : strings.Index(url, "/mcp")])
	capture := startCapture(t, uint16(port))
	p, err := bench.Run(ctx, bench.Config{Model: bench.ClosedLoop{Concurrency: c}, Total: n}, wl)
	wire := capture.finish()
	if err != nil || p.OK != n {
		t.Fatalf("%d of %d answered: %v %v", p.OK, n, err, p.ErrorExamples)
	}
	// A packet the capture dropped costs its pair; a few in thousands do
	// not move a percentile, more would bias it.
	if int64(len(wire)) < n*995/1000 || int64(len(wire)) > n {
		t.Fatalf("the capture paired %d requests with answers, the run sent %d", len(wire), n)
	}
	return p, wire
}

func quantileMS(sorted []time.Duration, q float64) float64 {
	i := min(int(q*float64(len(sorted))), len(sorted)-1)
	return float64(sorted[i].Nanoseconds()) / 1e6
}

// TestLatencyIsTheWires compares the reported p50 and p99 with the wire's
// as the kernel saw the packets (the test's own capture on lo, tcpdump's
// view) in the two set-ups: one worker with the server on another
// core, and eight sharing the server's core. With receive stamps the
// report is within 0.03 ms (p50) and 0.1 ms (p99) of the wire; the user-
// space clock of before reads later than the wire by the generator's own
// delay in noticing answers. Both sides are the same requests' figures,
// so the machine's other load moves both alike; thousands of requests
// keep the p99 steady.
func TestLatencyIsTheWires(t *testing.T) {
	setups := []struct {
		name           string
		c, gen, server int
		n              int64
	}{
		{"c1-separate-cores", 1, 0, 1, 3000},
		{"c8-one-core", 8, 0, 0, 4000},
	}
	// The kernel stamps from before the first run to after the last.
	release, ok := evloop.HoldStamps(5 * time.Second)
	defer release()
	if !ok {
		t.Fatal("the kernel gave no receive stamp within 5 s")
	}
	if runtime.NumCPU() < 2 {
		setups[0].server = 0 // one core: both set-ups share it
	}
	for _, s := range setups {
		t.Run(s.name, func(t *testing.T) {
			url := startWireServer(t, s.server)
			// The stamped run is measured again once when it misses a
			// bound: in make test's timed lane the other lane's kernel work
			// on the shared core once put 0.18 ms between a c8 run's p99
			// and the wire's; a second miss fails.
			var (
				p        measure.Point
				wire     []time.Duration
				w50, w99 float64
				missed   []string
			)
			for try := 1; try <= 2; try++ {
				p, wire = wireRun(t, url, s.c, s.gen, s.n, true)
				w50, w99 = quantileMS(wire, 0.50), quantileMS(wire, 0.99)
				if p.Client.NoticeDelay == nil || p.Client.NoticeDelay.Count < s.n*99/100 {
					t.Fatalf("stamps on fewer than 99%% of %d answers: %+v", s.n, p.Client.NoticeDelay)
				}
				t.Logf("try %d, stamped: wire p50 %.3f p99 %.3f, reported %.3f %.3f (%s, %s, notice delay p50 %.3f p99 %.3f ms)",
					try, w50, w99, p.P50MS, p.P99MS, p.Client.LatencyClock, p.Client.Driver, p.Client.NoticeDelay.P50MS, p.Client.NoticeDelay.P99MS)
				missed = missed[:0]
				if d := p.P50MS - w50; d > 0.03 || d < -0.03 {
					missed = append(missed, fmt.Sprintf("p50 %.3f ms against the wire's %.3f: off by more than 0.03 ms", p.P50MS, w50))
				}
				if d := p.P99MS - w99; d > 0.1 || d < -0.1 {
					missed = append(missed, fmt.Sprintf("p99 %.3f ms against the wire's %.3f: off by more than 0.1 ms", p.P99MS, w99))
				}
				if len(missed) == 0 {
					break
				}
			}
			for _, m := range missed {
				t.Error(m)
			}
			old, oldWire := wireRun(t, url, s.c, s.gen, s.n, false)
			o50, o99 := quantileMS(oldWire, 0.50), quantileMS(oldWire, 0.99)
			t.Logf("user-space: wire p50 %.3f p99 %.3f, reported %.3f %.3f (%s)", o50, o99, old.P50MS, old.P99MS, old.Client.LatencyClock)
			if old.Client.LatencyClock != bench.ClockUser || old.Client.NoticeDelay != nil {
				t.Errorf("without stamps the clock reads %q", old.Client.LatencyClock)
			}
			// The old way's excess over the wire is the notice delay the
			// stamps remove: it must exceed the stamped run's.
			if oldErr, newErr := old.P50MS-o50, p.P50MS-w50; oldErr <= newErr {
				t.Errorf("user-space p50 is %.3f ms over the wire, stamped %.3f: the stamps removed nothing", oldErr, newErr)
			}
		})
	}
}
