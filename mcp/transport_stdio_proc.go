package mcp

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

// stdioProc is one server process spoken to over its stdin and stdout. Many
// sessions share it: each request has an id unique in the process, and one
// reader goroutine hands every answer to the session waiting for its id,
// since answers may come in any order and notifications interleave.
type stdioProc struct {
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	wmu    sync.Mutex // one line at a time on stdin
	nextID atomic.Int64

	mu      sync.Mutex
	pending map[int64]chan []byte
	done    chan struct{} // closed when stdout ends
	err     error         // why it ended
	// overlong counts lines past the answer limit, skipped unread.
	overlong atomic.Int64

	exited chan struct{} // closed when the process has been reaped
	state  string        // how it ended ("exit status 3"), once exited

	stderr *tailBuffer
	// onServer handles a message from the server that answers no request
	// and returns the answer to write back, if any.
	onServer func(rep *reply, line []byte) []byte
}

// startStdio starts one server process.
func startStdio(argv []string, maxLine int, onServer func(*reply, []byte) []byte) (*stdioProc, error) {
	if len(argv) == 0 {
		return nil, errors.New("stdio: no server command given (put it after --)")
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	p := &stdioProc{cmd: cmd, stdin: stdin, pending: map[int64]chan []byte{}, done: make(chan struct{}), exited: make(chan struct{}), stderr: newTailBuffer(20), onServer: onServer}
	cmd.Stderr = p.stderr
	// Wait returns this long after the process exits even if a child of
	// it still holds stderr open.
	cmd.WaitDelay = time.Second
	cmd.SysProcAttr = ownProcessGroup()
	if err := cmd.Start(); err != nil {
		return nil, &Error{Kind: KindConnect, Msg: "starting " + argv[0], Err: err}
	}
	go p.readLoop(stdout, maxLine)
	return p, nil
}

func (p *stdioProc) readLoop(stdout io.Reader, maxLine int) {
	lines := newLineReader(stdout, maxLine)
	var head reply
	for {
		line, err := lines.next()
		if errors.Is(err, errLineTooLong) {
			p.overlong.Add(1)
			continue
		}
		if err != nil {
			p.finish(err)
			return
		}
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		if head.parse(line) != nil {
			continue // not JSON-RPC: a server that logs to stdout
		}
		if head.isNotification() {
			// A request from the server (elicitation, sampling, roots) is
			// answered by the client's policy, never left to hang.
			if msg := p.onServer(&head, line); msg != nil {
				_ = p.write(msg)
			}
			continue
		}
		id, err := parseID(head.ID)
		if err != nil {
			continue
		}
		p.mu.Lock()
		ch := p.pending[id]
		delete(p.pending, id)
		p.mu.Unlock()
		if ch != nil {
			ch <- bytes.Clone(line)
		}
	}
}

// finish records why stdout ended, then reaps the process (reading is
// over, so Wait may close the pipes).
func (p *stdioProc) finish(err error) {
	p.mu.Lock()
	p.err = err
	p.mu.Unlock()
	close(p.done)
	werr := p.cmd.Wait()
	p.state = "exit status 0"
	if werr != nil {
		p.state = werr.Error()
	}
	close(p.exited)
}

// gone says why the process stopped answering: how it exited, when it
// has (given a moment to be reaped), else that its stdout closed.
func (p *stdioProc) gone() string {
	t := time.NewTimer(200 * time.Millisecond)
	defer t.Stop()
	select {
	case <-p.exited:
		return "the server process exited (" + p.state + ")"
	case <-t.C:
		return "the server process closed its stdout"
	}
}

// notes is what the process's stderr and skipped lines add to an error.
func (p *stdioProc) notes() string {
	s := ""
	if n := p.overlong.Load(); n > 0 {
		s += fmt.Sprintf("; it wrote %d lines longer than the response size limit, skipped", n)
	}
	if tail := p.stderr.String(); tail != "" {
		s += "; its stderr ends: " + tail
	}
	return s
}

func parseID(raw []byte) (int64, error) {
	raw = bytes.Trim(bytes.TrimSpace(raw), `"`)
	var n int64
	if len(raw) == 0 {
		return 0, errors.New("no id")
	}
	for _, c := range raw {
		if c < '0' || c > '9' {
			return 0, errors.New("not our id")
		}
		n = n*10 + int64(c-'0')
	}
	return n, nil
}

func (p *stdioProc) write(line []byte) error {
	p.wmu.Lock()
	defer p.wmu.Unlock()
	_, err := p.stdin.Write(line)
	if err == nil {
		_, err = p.stdin.Write([]byte{'\n'})
	}
	if err != nil {
		return &Error{Kind: KindTransport, Msg: "writing to the server's stdin: " + p.gone() + p.notes(), Err: err}
	}
	return nil
}

// forget drops a request whose answer will not be waited for; an answer
// that still comes is discarded by the reader.
func (p *stdioProc) forget(id int64) {
	p.mu.Lock()
	ch := p.pending[id]
	delete(p.pending, id)
	p.mu.Unlock()
	if ch != nil {
		// The reader may have sent just before we deleted: empty the box
		// so the session's next request starts clean.
		select {
		case <-ch:
		default:
		}
	}
}

// shutdown ends the process as the spec asks: close its stdin, wait, then
// SIGTERM, wait, then SIGKILL; always reaped, so no zombie is left.
func (p *stdioProc) shutdown(grace time.Duration) {
	p.wmu.Lock()
	p.stdin.Close()
	p.wmu.Unlock()
	for _, sig := range []syscall.Signal{0, syscall.SIGTERM, syscall.SIGKILL} {
		if sig != 0 {
			signalGroup(p.cmd.Process, sig)
		}
		t := time.NewTimer(grace)
		select {
		case <-p.exited:
			t.Stop()
			return
		case <-t.C:
		}
	}
}

// tailBuffer keeps the last lines a server wrote to stderr, for the report
// of a failure; stderr output is never an error by itself.
type tailBuffer struct {
	mu    sync.Mutex
	lines []string
	part  []byte
	max   int
}

func newTailBuffer(max int) *tailBuffer { return &tailBuffer{max: max} }

func (t *tailBuffer) Write(b []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.part = append(t.part, b...)
	for {
		i := bytes.IndexByte(t.part, '\n')
		if i < 0 {
			break
		}
		t.lines = append(t.lines, string(t.part[:i]))
		t.part = t.part[i+1:]
		if len(t.lines) > t.max {
			t.lines = t.lines[1:]
		}
	}
	if len(t.part) > 4096 {
		t.part = t.part[:0]
	}
	return len(b), nil
}

// Lines returns the kept lines.
func (t *tailBuffer) Lines() []string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return append([]string(nil), t.lines...)
}

func (t *tailBuffer) String() string {
	l := t.Lines()
	if len(l) == 0 {
		return ""
	}
	if len(l) > 3 {
		l = l[len(l)-3:]
	}
	return strings.Join(l, " | ")
}
