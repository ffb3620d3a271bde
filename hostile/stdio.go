package hostile

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"syscall"
	"time"
)

// StdioEnv is what a stdio case's process works with.
type StdioEnv struct {
	Stdin          io.Reader
	Stdout, Stderr io.Writer
	// PidDir, when set, gets an empty file named after the process id, so
	// the test can check afterwards that the process is gone.
	PidDir string
}

// stdioCases are server processes spoken to over stdin and stdout.
var stdioCases = []*Case{
	{Name: "stdio-baseline", Does: "a well-behaved stdio server, to calibrate the suite", Stdio: func(e StdioEnv) int { return serveLines(e, nil) }},
	{Name: "stdio-garbage", Does: "prints a text line, a line of binary bytes and, once, a 2 MiB line that is not JSON before every answer", Stdio: stdioGarbage},
	{Name: "stdio-exit-at-once", Does: "exits with status 3 before reading anything", Stdio: func(StdioEnv) int { return 3 }},
	{Name: "stdio-never-answers", Does: "reads every request and answers none, not even initialize", Stdio: stdioSilent},
	{Name: "stdio-stderr-flood", Does: "writes 16 MB to stderr before it answers anything", Stdio: stdioFlood},
	{Name: "stdio-ignores-sigterm", Does: "ignores SIGTERM and SIGINT, and stays alive when its stdin closes", Stdio: stdioStubborn},
}

// RunStdio runs the stdio case named name in this process and returns its
// exit status.
func RunStdio(name string, e StdioEnv) int {
	c := Find(name)
	if c == nil || c.Stdio == nil {
		fmt.Fprintf(e.Stderr, "no stdio case %q\n", name)
		return 2
	}
	if e.PidDir != "" {
		_ = os.WriteFile(filepath.Join(e.PidDir, strconv.Itoa(os.Getpid())), nil, 0o644)
	}
	return c.Stdio(e)
}

// serveLines answers newline-delimited JSON-RPC on stdin until it ends;
// before each answer it calls before, if set.
func serveLines(e StdioEnv, before func(w io.Writer)) int {
	sc := bufio.NewScanner(e.Stdin)
	sc.Buffer(make([]byte, 64<<10), 4<<20)
	w := bufio.NewWriter(e.Stdout)
	for sc.Scan() {
		var m rpcMessage
		if json.Unmarshal(sc.Bytes(), &m) != nil || m.isNotification() {
			continue
		}
		if before != nil {
			before(w)
		}
		w.Write(stdioAnswer(m))
		w.WriteByte('\n')
		if w.Flush() != nil {
			return 1
		}
	}
	return 0
}

func stdioAnswer(m rpcMessage) []byte {
	switch m.Method {
	case "server/discover":
		return rpcError(m.ID, -32601, "Method not found")
	case "initialize":
		return answer(m.ID, initializeResult("stdio"))
	case "ping":
		return answer(m.ID, "{}")
	}
	return answer(m.ID, toolsResult)
}

func stdioGarbage(e StdioEnv) int {
	long := true
	return serveLines(e, func(w io.Writer) {
		fmt.Fprintln(w, "starting up... (this is not JSON)")
		w.Write([]byte{0xff, 0x00, 0xfe, '{', '\x1b', '[', '3', '1', 'm', '\n'})
		if long {
			long = false
			w.Write(bytes.Repeat([]byte("garbage "), 2<<20/8))
			w.Write([]byte{'\n'})
		}
	})
}

func stdioSilent(e StdioEnv) int {
	_, _ = io.Copy(io.Discard, e.Stdin)
	return 0
}

func stdioFlood(e StdioEnv) int {
	line := append(bytes.Repeat([]byte("noise "), 170), '\n') // about 1 KB
	block := bytes.Repeat(line, 64)
	// 16 MiB is 256 times a pipe's buffer: a client that did not read
	// stderr as it comes would hang here for good. (100 MiB took over the
	// 2 s handshake timeout when the suite loaded both cores.)
	for sent := 0; sent < 16<<20; sent += len(block) {
		if _, err := e.Stderr.Write(block); err != nil {
			return 1
		}
	}
	return serveLines(e, nil)
}

func stdioStubborn(e StdioEnv) int {
	signal.Ignore(syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP)
	serveLines(e, nil)
	time.Sleep(5 * time.Minute) // only SIGKILL ends it sooner
	return 0
}
