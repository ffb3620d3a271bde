//go:build unix

package main

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

// TestLoadPastFileLimitRefused: a load with more connections than the
// process may have open files is refused before anything is dialled (the
// address answers nothing, yet the exit is 2, not 3), in one line naming
// the limit and --shard; sessions with --get-stream count two each.
func TestLoadPastFileLimitRefused(t *testing.T) {
	var rl syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &rl); err != nil {
		t.Fatal(err)
	}
	if rl.Cur > maxWorkers {
		t.Skipf("open-file limit %d is past the largest -c, %d: nothing to refuse", rl.Cur, maxWorkers)
	}
	limit := strconv.FormatUint(rl.Cur, 10)
	scen := filepath.Join(t.TempDir(), "idle.yaml")
	if err := os.WriteFile(scen, []byte("scenarios: [{name: idle, steps: [ping]}]\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	half := strconv.FormatUint(rl.Cur/2+1, 10)
	url := "http://127.0.0.1:1/mcp"
	for _, args := range [][]string{
		{"run", "--url", url, "--method", "ping", "-c", limit, "-d", "1s"},
		{"run", "--url", url, "--scenario", scen, "--users", limit, "-d", "1s"},
		{"run", "--url", url, "--scenario", scen, "--users", half, "--get-stream", "-d", "1s"},
	} {
		r := runCLI(t, nil, args...)
		msg := strings.TrimSpace(r.stderr)
		if r.code != exitUsage || strings.Contains(msg, "\n") || !strings.Contains(msg, "limit of "+limit) || !strings.Contains(msg, "--shard") {
			t.Fatalf("%v: exit %d, %q", args, r.code, msg)
		}
	}
}
