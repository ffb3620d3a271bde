package mcp

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"time"
)

// The stdio transport: newline-delimited JSON-RPC on a server process's
// stdin and stdout (the process itself is transport_stdio_proc.go's). Several sessions
// share a process; each request's id is unique in it.

// stdioLink is the client's server processes; sessions are spread over
// them in turn.
type stdioLink struct {
	procs []*stdioProc
	next  atomic.Int64
}

func (l *stdioLink) attach(s *Session) transport {
	return &stdioTransport{s: s, proc: l.procs[int(l.next.Add(1)-1)%len(l.procs)]}
}

func (l *stdioLink) engine() Engine { return EngineStdio }

// close shuts the processes down, all at once.
func (l *stdioLink) close() {
	var wg sync.WaitGroup
	for _, p := range l.procs {
		wg.Add(1)
		go func() { defer wg.Done(); p.shutdown(2 * time.Second) }()
	}
	wg.Wait()
	l.procs = nil
}

// stderrTail returns the last stderr lines of each process.
func (l *stdioLink) stderrTail() []string {
	var out []string
	for i, p := range l.procs {
		for _, line := range p.stderr.Lines() {
			out = append(out, fmt.Sprintf("[%d] %s", i+1, line))
		}
	}
	return out
}

// stdioTransport is one session on a server process, with the box its
// answers arrive in.
type stdioTransport struct {
	s      *Session
	proc   *stdioProc
	waiter chan []byte
}

// open does nothing: each process was negotiated with when it started.
func (t *stdioTransport) open(context.Context) error { return nil }

// nextID numbers requests per process, where several sessions share one
// stream of answers.
func (t *stdioTransport) nextID() int64 { return t.proc.nextID.Add(1) }

func (t *stdioTransport) notify(_ context.Context, method string) error {
	return t.proc.write(notification(method))
}

// respond writes an answer to the server's request. (The process's reader
// answers the requests it reads itself; this serves the others.)
func (t *stdioTransport) respond(_ context.Context, msg []byte) error {
	return t.proc.write(msg)
}

// cancel writes notifications/cancelled for a timed-out request: stdio
// has no stream of its own to close.
func (t *stdioTransport) cancel(id int64) { _ = t.proc.write(cancelled(id)) }

// endSession does nothing: a process's session ends with the process.
func (t *stdioTransport) endSession(context.Context) error { return nil }

func (t *stdioTransport) close() {}

// exchange writes body and waits for the answer to id, for no longer than
// the timeout.
func (t *stdioTransport) exchange(ctx context.Context, _ *Prepared, body []byte, id int64, res *Result) (bool, error) {
	ctx, cancel := context.WithTimeout(ctx, t.s.c.opts.Timeout)
	defer cancel()
	p, s := t.proc, t.s
	if t.waiter == nil {
		t.waiter = make(chan []byte, 1)
	}
	p.mu.Lock()
	p.pending[id] = t.waiter
	p.mu.Unlock()
	if err := p.write(body); err != nil {
		p.forget(id)
		return false, err
	}
	select {
	case line := <-t.waiter:
		res.Received = int64(len(line) + 1)
		if len(line) > s.c.maxBody {
			return false, &Error{Kind: KindTransport, Msg: msgTooLarge}
		}
		if err := s.rep.parse(line); err != nil {
			return false, malformed("answer", line, err)
		}
		return true, nil
	case <-ctx.Done():
		p.forget(id)
		return false, &Error{Kind: classifyNetErr(ctx.Err()), Msg: "no answer from the server process" + p.notes(), Err: ctx.Err()}
	case <-p.done:
		return false, &Error{Kind: KindTransport, Msg: p.gone() + p.notes(), Err: p.err}
	}
}

// dialStdio starts the processes and negotiates on each: server/discover
// first, as the 2026-07-28 stdio rules say, else initialize.
func (c *Client) dialStdio(ctx context.Context) error {
	l := &stdioLink{}
	c.link = l
	n := max(c.opts.StdioProcs, 1)
	for i := 0; i < n; i++ {
		p, err := startStdio(c.opts.Command, c.maxBody, c.serverMessage)
		if err != nil {
			l.close()
			return err
		}
		l.procs = append(l.procs, p)
		s := &Session{c: c}
		s.t = &stdioTransport{s: s, proc: p}
		if err := c.negotiateOn(ctx, s); err != nil {
			l.close()
			return fmt.Errorf("server process %d: %w", i+1, err)
		}
	}
	c.info.Transport = string(TransportStdio)
	return nil
}
