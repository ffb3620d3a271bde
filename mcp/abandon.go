package mcp

import (
	"sync/atomic"

	"github.com/mcpbench/mcpbench/mcp/internal/connbook"
)

// Real clients often go away without ending their session: no DELETE, the
// connection dropped. A server that keeps such sessions leaks; abandoning
// sessions reproduces that. Which ones is Hooks.Abandon's choice; how a
// session goes away, and the count of those that did, are the client's.

// abandons counts the sessions a client abandoned.
type abandons struct {
	abandoned atomic.Int64
	// owed counts the connections abandoned sessions could not drop at
	// once (none was idle): the next ones given back are closed instead.
	owed atomic.Int64
}

// payDrop says whether a connection being given back is to be closed
// for an abandoned session that found none idle.
func (a *abandons) payDrop() bool {
	if a == nil || a.owed.Load() <= 0 {
		return false
	}
	if a.owed.Add(-1) < 0 {
		a.owed.Add(1) // another paid it first
		return false
	}
	return true
}

// abandonNext says whether the session ending now is abandoned.
func (c *Client) abandonNext() bool {
	if c.hooks.Abandon == nil || c.abandons == nil || !c.hooks.Abandon() {
		return false
	}
	c.abandons.abandoned.Add(1)
	return true
}

// AbandonedSessions is how many sessions ended without a DELETE on
// purpose (Hooks.Abandon) so far.
func (c *Client) AbandonedSessions() int64 {
	if c.abandons == nil {
		return 0
	}
	return c.abandons.abandoned.Load()
}

// Abandon decides, once, whether s ends abandoned and, if so, ends it so:
// a caller that times the DELETE asks first. Sessions without a DELETE
// (stdio, modern revisions, a shared one) are never abandoned.
func (s *Session) Abandon() bool {
	if !s.ending.decided {
		s.ending.decided = true
		s.ending.abandoned = s.id != "" && !s.shared && s.c.abandonNext()
		if s.ending.abandoned {
			s.abandon()
		}
	}
	return s.ending.abandoned
}

// ending is how a session ends, once decided.
type ending struct{ decided, abandoned bool }

// abandon ends s as a client that goes away does: what the session holds
// of the wire alone (its standing GET stream, its stdio pipe) closed,
// nothing sent, and on the direct engine one kept-alive connection of the
// pool dropped (closed, its slot dialled again when needed). The server
// cannot tell which session a kept-alive connection last carried, so any
// idle one will do.
func (s *Session) abandon() {
	s.t.close()
	if d, ok := s.t.(interface{ dropConn() }); ok {
		d.dropConn()
	}
}

// dropConn drops one of net/http's connections, booked for it
// (connbook): the session is abandoned.
func (t *httpTransport) dropConn() {
	if bt, ok := t.hc.Transport.(*connbook.Transport); ok {
		bt.Drop()
	}
}
