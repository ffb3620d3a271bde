package hostile

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"go.uber.org/goleak"
)

// The suite drives the real binary, built once per test run, so that it
// tests what users run and does not lean on internal APIs.
var (
	binary string
	// token is the bearer token every run carries (MCPBENCH_TOKEN); no
	// output may hold any part of it.
	token = "hostileTok" + randomHex(16)
)

func TestMain(m *testing.M) {
	if name := os.Getenv("HOSTILE_STDIO"); name != "" {
		// This binary is also the stdio servers' program.
		os.Exit(RunStdio(name, StdioEnv{Stdin: os.Stdin, Stdout: os.Stdout, Stderr: os.Stderr, PidDir: os.Getenv("HOSTILE_PIDDIR")}))
	}
	dir, err := os.MkdirTemp("", "hostile-bin-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	binary = filepath.Join(dir, "mcpbench")
	build := exec.Command("go", "build", "-o", binary, "github.com/mcpbench/mcpbench/cmd/mcpbench")
	build.Stdout, build.Stderr = os.Stderr, os.Stderr
	if err := build.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "building mcpbench:", err)
		os.RemoveAll(dir)
		os.Exit(1)
	}
	// The runtime opens its poller's descriptors on first use: before
	// the count, so they are not taken for a leak.
	if l, err := net.Listen("tcp", "127.0.0.1:0"); err == nil {
		l.Close()
	}
	fds := openFDs()
	code := m.Run()
	os.RemoveAll(dir)
	if code == 0 {
		code = checkLeaks(fds)
	}
	if out := os.Getenv("MCPBENCH_HOSTILE_OUT"); out != "" && code == 0 {
		if err := writeDoc(out); err != nil {
			fmt.Fprintln(os.Stderr, err)
			code = 1
		}
	}
	os.Exit(code)
}

// checkLeaks: when every server has stopped, none of their goroutines or
// connections may be left in this process.
func checkLeaks(fdsBefore int) int {
	if err := goleak.Find(); err != nil {
		fmt.Fprintln(os.Stderr, "goroutines left after the suite:", err)
		return 1
	}
	for deadline := time.Now().Add(5 * time.Second); openFDs() > fdsBefore; time.Sleep(50 * time.Millisecond) {
		if time.Now().After(deadline) {
			fmt.Fprintf(os.Stderr, "%d file descriptors open before the suite, %d after\n", fdsBefore, openFDs())
			return 1
		}
	}
	return 0
}

func openFDs() int {
	ents, _ := os.ReadDir("/proc/self/fd")
	return len(ents)
}

func randomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

// outcome is what one mcpbench process did.
type outcome struct {
	args []string
	code int
	// starved says why earlier tries were run again
	// (runChildUnstarved), reported with the case.
	starved []string
	elapsed time.Duration
	// stall is the longest this process went without running while the
	// child ran: its servers were starved as long.
	stall   time.Duration
	peakRSS int64 // bytes: the child's maximum resident set
	stdout  []byte
	stderr  []byte
	killed  bool // it outlived its hard limit and was killed
}

// captureLimit bounds what the suite keeps of a child's stdout and stderr.
const captureLimit = 16 << 20

// cappedBuffer keeps the first captureLimit bytes and counts the rest.
type cappedBuffer struct {
	bytes.Buffer
	dropped int64
}

func (c *cappedBuffer) Write(p []byte) (int, error) {
	n := len(p)
	if room := max(captureLimit-c.Len(), 0); room < len(p) {
		c.dropped += int64(len(p) - room)
		p = p[:room]
	}
	c.Buffer.Write(p)
	return n, nil
}

// runChild runs mcpbench with args and extra environment, killing it if it
// is still there after hardLimit.
func runChild(hardLimit time.Duration, env []string, args ...string) outcome {
	ctx, cancel := context.WithTimeout(context.Background(), hardLimit)
	defer cancel()
	cmd := exec.CommandContext(ctx, binary, args...)
	cmd.Env = append(append(os.Environ(), "MCPBENCH_TOKEN="+token), env...)
	var stdout, stderr cappedBuffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	start := time.Now()
	o := outcome{args: args}
	if err := cmd.Start(); err != nil {
		o.code, o.stderr = -1, []byte(err.Error())
		return o
	}
	exited := make(chan struct{})
	go func() { _ = cmd.Wait(); close(exited) }()
	o.peakRSS, o.stall = samplePeak(cmd.Process.Pid, exited)
	o.elapsed = time.Since(start)
	o.stdout, o.stderr = stdout.Bytes(), stderr.Bytes()
	o.code = cmd.ProcessState.ExitCode()
	o.killed = ctx.Err() != nil
	return o
}

// samplePeak follows the process's high-water resident set (VmHWM) until
// it exits. rusage's maxrss cannot serve: a child forked from this test
// process starts out charged with the test's own resident set. VmHWM only
// grows, so sampling misses at most what was added in the last interval.
// The longest gap between its looks is the other figure: how long this
// process, the HTTP cases' servers among it, was given no CPU.
func samplePeak(pid int, exited <-chan struct{}) (peak int64, stall time.Duration) {
	path := fmt.Sprintf("/proc/%d/status", pid)
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	last := time.Now()
	for {
		now := time.Now()
		stall, last = max(stall, now.Sub(last)), now
		if b, err := os.ReadFile(path); err == nil {
			if _, v, ok := bytes.Cut(b, []byte("\nVmHWM:")); ok {
				kb, _ := strconv.ParseInt(string(bytes.Fields(v)[0]), 10, 64)
				peak = max(peak, kb*1024)
			}
		}
		select {
		case <-exited:
			return peak, stall
		case <-tick.C:
		}
	}
}

// processGone reports whether pid has exited (and been reaped, or is a
// zombie waiting for init).
func processGone(pid int) bool {
	st, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return true
	}
	return bytes.Contains(st, []byte("\nState:\tZ"))
}
