package mcp

import (
	"context"
	"errors"
	"sync"

	"github.com/mcpbench/mcpbench/internal/evloop"
)

// A worker may run as a task of an event loop (internal/evloop) when
// every wait of its requests goes through the loop. The generator says
// which loop by OnLoop, before the task starts: the session's POSTs then
// go out on the engine's pool of that loop (internal/h1), since a loop's
// connections can only be used by its own tasks.

// OnLoop puts the session's measured requests on l's connections, nil
// back on the client's, and reports whether it could: only the direct
// engine, with neither OAuth (its token requests go through net/http) nor
// a session per request (its DELETE does), waits on nothing but the loop.
// A session opened on a loop reads its GET stream there (transport_direct_listen.go);
// one opened off the loops keeps reading it on its goroutine. A session on a loop must be used by l's tasks
// alone.
func (s *Session) OnLoop(l *evloop.Loop) bool {
	t, ok := s.t.(*directTransport)
	if l == nil {
		if ok {
			s.rep.shared = t.onLoop(nil)
		}
		return true
	}
	if !ok || !s.c.OnLoops() {
		return false
	}
	s.rep.shared = t.onLoop(l)
	return true
}

// NewSessionOn opens a session whose every message, its handshake
// included, goes out on l's connections; it fails with ErrNotOnLoop where
// OnLoop would say no. Only l's tasks may then use it.
func (c *Client) NewSessionOn(ctx context.Context, l *evloop.Loop) (*Session, error) {
	s := c.newSession()
	if !s.OnLoop(l) {
		return nil, ErrNotOnLoop
	}
	if err := s.t.open(ctx); err != nil {
		s.OnLoop(nil)
		return nil, err
	}
	return s, nil
}

// ErrNotOnLoop is a session that cannot run on an event loop.
var ErrNotOnLoop = errors.New("mcp: this client's sessions cannot run on an event loop")

// OnLoops says whether the client's sessions may run on event loops: what
// OnLoop checks, asked before any session is opened.
func (c *Client) OnLoops() bool {
	_, direct := c.link.(directLink)
	return direct && evloop.Available && c.auth == nil && c.opts.SessionMode != SessionPerRequest
}

// onLoop puts the session's requests on l's connections (nil: the
// client's) and returns the parse memo its replies are to share.
func (t *directTransport) onLoop(l *evloop.Loop) *parseMemo {
	t.returnLent()
	if ls := t.standing; ls != nil && ls.loop != l {
		// Its stream is the old loop's, which no longer runs: the
		// session goes on without one.
		t.stopStanding()
	}
	if l == nil {
		t.pool, t.memo = t.link.pool, nil
		return nil
	}
	t.pool, t.memo = t.link.loops.For(l), t.link.memos.forLoop(l)
	return t.memo
}

// The sessions of a loop share one parse memo: they ask the same things
// and get the same answers, so one remembered answer, read by every
// request, stays in the core's cache, where one per session (ten thousand
// of them, 10 KB each against the Go SDK's tools/list) was read cold each
// time and held memory besides.
type loopMemos struct {
	mu     sync.Mutex
	byLoop map[*evloop.Loop]*parseMemo
}

func newLoopMemos() *loopMemos { return &loopMemos{byLoop: map[*evloop.Loop]*parseMemo{}} }

func (m *loopMemos) forLoop(l *evloop.Loop) *parseMemo {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.byLoop[l] == nil {
		m.byLoop[l] = new(parseMemo)
	}
	return m.byLoop[l]
}
