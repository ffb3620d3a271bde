package main

import (
	"errors"
	"net/http"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// startOnFreePort starts a server process (this repository's peers: Node
// servers, Prometheus) on a loopback port that was free a moment before,
// and waits until ready says it answers. Such a process takes its port as
// a flag, so the port is closed before it binds; another process of the
// suite may take it in between. So a process that exits before it is
// ready is started again on another port, three tries in all. The process
// (its whole group) is killed when the test ends.
func startOnFreePort(t *testing.T, what string, command func(addr string) *exec.Cmd, ready func(addr string) bool) (string, *exec.Cmd) {
	t.Helper()
	var why string
	for try := 0; try < 3; try++ {
		addr := freeAddr(t)
		cmd := command(addr)
		logs := &tailBuffer{}
		cmd.Stdout, cmd.Stderr = logs, logs
		cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
		if err := cmd.Start(); err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		exited := make(chan error, 1)
		go func() { exited <- cmd.Wait() }()
		stop := func() { _ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL); <-exited }
		if ok, err := waitReady(addr, ready, exited); ok {
			t.Cleanup(stop)
			return addr, cmd
		} else if err == nil {
			stop()
			t.Fatalf("%s did not answer on %s within %v: %s", what, addr, readyWait, logs.String())
		} else {
			why = err.Error() + ": " + logs.String()
		}
	}
	t.Fatalf("%s exited before it was ready, three times; the last: %s", what, why)
	return "", nil
}

// readyWait bounds a server's start. It is long: in make test's untimed
// lane a node process starts on the CPU the timed tests leave, and one
// that is alive but slow is waited for; one that exits is seen at once.
const readyWait = 2 * time.Minute

// waitReady polls ready until it holds (true), the process exits (false
// and how), or readyWait passes (false, nil).
func waitReady(addr string, ready func(string) bool, exited <-chan error) (bool, error) {
	poll := time.NewTicker(50 * time.Millisecond)
	defer poll.Stop()
	deadline := time.After(readyWait)
	for {
		select {
		case err := <-exited:
			if err == nil {
				err = errExitedZero
			}
			return false, err
		case <-deadline:
			return false, nil
		case <-poll.C:
			if ready(addr) {
				return true, nil
			}
		}
	}
}

var errExitedZero = errors.New("exited with status 0")

// tailBuffer keeps the last 4 KiB written to it, for error messages.
type tailBuffer struct {
	mu sync.Mutex
	b  []byte
}

func (w *tailBuffer) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.b = append(w.b, p...)
	if over := len(w.b) - 4096; over > 0 {
		w.b = append(w.b[:0], w.b[over:]...)
	}
	return len(p), nil
}

func (w *tailBuffer) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return strings.TrimSpace(string(w.b))
}

// TestStartOnFreePortTriesAgain: a server that exits before it is ready
// (as one whose port was taken does) is started again on another port.
func TestStartOnFreePortTriesAgain(t *testing.T) {
	var ports []string
	addr, _ := startOnFreePort(t, "serve", func(addr string) *exec.Cmd {
		ports = append(ports, addr)
		if len(ports) == 1 {
			return exec.Command("sh", "-c", "echo bind: address already in use >&2; exit 1")
		}
		return exec.Command(binary, "serve", "--addr", addr)
	}, func(addr string) bool {
		resp, err := http.Get("http://" + addr + "/health")
		if err == nil {
			resp.Body.Close()
		}
		return err == nil && resp.StatusCode == http.StatusOK
	})
	if len(ports) != 2 || addr != ports[1] {
		t.Fatalf("tried %v, serving on %s: want a second try, on which it serves", ports, addr)
	}
}
