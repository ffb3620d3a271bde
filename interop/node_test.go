package interop

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/mcpbench/mcpbench/mcp"
)

// everythingEntry is server-everything as scripts/install-peers.sh
// installs it, or "" where it is not: make test requires it
// (MCPBENCH_REQUIRE_PEERS=1); a plain go test without Node.js skips its
// cells and says so.
func everythingEntry(t *testing.T) string {
	entry, _ := filepath.Abs("../.run/peers/node_modules/@modelcontextprotocol/server-everything/dist/index.js")
	_, err := os.Stat(entry)
	_, nodeErr := exec.LookPath("node")
	if err == nil && nodeErr == nil {
		return entry
	}
	if os.Getenv("MCPBENCH_REQUIRE_PEERS") != "" {
		t.Fatalf("server-everything is not installed (run scripts/install-peers.sh): %v %v", err, nodeErr)
	}
	t.Log("server-everything skipped: run scripts/install-peers.sh (make test does)")
	return ""
}

// startEverything runs server-everything in mode on a free loopback port,
// waits until it listens, and stops it (its process group) at the end. A
// port is free when chosen, but the other lane of make test may bind it
// first: a server that exits before it listens is started again on
// another, up to three times.
func startEverything(t *testing.T, entry, mode string) string {
	var why error
	for try := 0; try < 3; try++ {
		addr, err := tryEverything(t, entry, mode)
		if err == nil {
			return "http://" + addr
		}
		why = err
	}
	t.Fatalf("server-everything %s: %v, three times", mode, why)
	return ""
}

// tryEverything starts server-everything once; an error says it exited
// before it listened.
func tryEverything(t *testing.T, entry, mode string) (string, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	cmd := exec.Command("node", entry, mode)
	cmd.Env = append(os.Environ(), "PORT="+addr[len("127.0.0.1:"):])
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	stop := func() {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGTERM)
		select {
		case <-exited:
		case <-time.After(5 * time.Second):
			_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
			<-exited
		}
	}
	for deadline := time.Now().Add(60 * time.Second); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		select {
		case err := <-exited:
			return "", fmt.Errorf("exited before it listened on %s (%v)", addr, err)
		default:
		}
		if c, err := net.DialTimeout("tcp", addr, time.Second); err == nil {
			c.Close()
			t.Cleanup(stop)
			return addr, nil
		}
	}
	stop()
	t.Fatalf("server-everything %s did not listen on %s in 60 s", mode, addr)
	return "", nil
}

// pipeEnv, set, makes the test binary a counting pipe in front of a stdio
// server (countingPipe): the client starts it as its server command.
const pipeEnv = "MCPBENCH_INTEROP_PIPE_DIR"

func TestMain(m *testing.M) {
	if dir := os.Getenv(pipeEnv); dir != "" {
		os.Exit(countingPipe(dir, os.Args[len(os.Args)-1]))
	}
	os.Exit(m.Run())
}

// everythingStdio is server-everything on stdio, each process behind a
// counting pipe: the test binary again, which counts every line the
// client writes by method before passing it on.
func everythingStdio(t *testing.T, entry string) server {
	dir := t.TempDir()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	// The same file by another path: bench's TestStdioEverythingProcs,
	// in the other lane at the same time, looks for "ENTRY stdio" among
	// all processes to see that its own ended.
	other := filepath.Dir(entry) + "/./" + filepath.Base(entry)
	o := mcp.Options{Transport: "stdio", Command: []string{"env", pipeEnv + "=" + dir, self, other}, StdioProcs: 2}
	return server{impl: "TypeScript SDK (server-everything)", transport: "stdio (2 processes)", opts: o,
		count: func() counts { return settled(t, dir) }, pages: "one page (it does not paginate)"}
}

// countingPipe runs node entry stdio with the pipe's stdout as its own,
// and passes it every line of stdin after counting it; the running counts
// are in dir, a file per process, replaced whole (a rename) after each
// line and before the line goes on, so that a line the server answered
// is counted.
func countingPipe(dir, entry string) int {
	cmd := exec.Command("node", entry, "stdio")
	cmd.Stdout, cmd.Stderr = os.Stdout, os.Stderr
	in, err := cmd.StdinPipe()
	if err == nil {
		err = cmd.Start()
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "counting pipe:", err)
		return 1
	}
	c := newCounter()
	file := filepath.Join(dir, fmt.Sprintf("%d-%d.json", os.Getpid(), time.Now().UnixNano()))
	r := bufio.NewReaderSize(os.Stdin, 1<<16)
	for {
		line, err := r.ReadBytes('\n')
		if len(line) > 0 {
			c.message(line)
			b, _ := json.Marshal(c.snapshot())
			if os.WriteFile(file+".tmp", b, 0o600) != nil || os.Rename(file+".tmp", file) != nil {
				fmt.Fprintln(os.Stderr, "counting pipe: cannot write", file)
				return 1
			}
			if _, err := in.Write(line); err != nil {
				break
			}
		}
		if err == io.EOF || err != nil {
			break
		}
	}
	in.Close()
	_ = cmd.Wait()
	return 0
}

var pipeMu sync.Mutex

// settled is the pipes' counts once every initialize has its
// notifications/initialized: the client sends that notification without
// waiting for an answer, so at the end of the set-up it may still be on
// its way through a pipe.
func settled(t *testing.T, dir string) counts {
	c := pipeCounts(t, dir)
	for deadline := time.Now().Add(timeout / 2); c["initialize"] != c["notifications/initialized"] && time.Now().Before(deadline); {
		time.Sleep(10 * time.Millisecond)
		c = pipeCounts(t, dir)
	}
	return c
}

// pipeCounts adds up the counts of every pipe that wrote to dir.
func pipeCounts(t *testing.T, dir string) counts {
	pipeMu.Lock()
	defer pipeMu.Unlock()
	files, _ := filepath.Glob(filepath.Join(dir, "*.json"))
	sum := counts{}
	for _, f := range files {
		b, err := os.ReadFile(f)
		var c counts
		if err == nil {
			err = json.Unmarshal(b, &c)
		}
		if err != nil {
			t.Errorf("pipe counts %s: %v", f, err)
		}
		for k, v := range c {
			sum[k] += v
		}
	}
	return sum
}
