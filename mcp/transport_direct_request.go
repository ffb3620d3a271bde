package mcp

import (
	"bytes"
	"net/http"
	"net/url"
	"sync"
)

// wireRequest is a prepared request's bytes up to the Content-Length
// value, built again only when the revision or the token changed; for
// another session id its bytes are copied with the id changed (resplice).
// Its head is never written once made.
type wireRequest struct {
	head    []byte
	session string
	rev     string
	auth    string
}

func (t *directTransport) headFor(p *Prepared) []byte {
	s := t.s
	tok := s.c.authToken()
	if w := p.wire; w != nil && w.rev == s.c.rev && w.auth == tok {
		if w.session == s.id {
			return w.head
		}
		// A scenario user's requests, framed once, go out in session
		// after session: building each one's head anew from a header map
		// cost a dozen allocations a session.
		if b, ok := w.resplice(s.id); ok {
			p.wire = &wireRequest{head: b, session: s.id, rev: w.rev, auth: tok}
			return b
		}
	}
	b := wireHead("POST", s.c.url, t.buildHeader(p))
	p.wire = &wireRequest{head: b, session: s.id, rev: s.c.rev, auth: tok}
	return b
}

// sessionLine begins the header line buildHeader gives a session's id.
var sessionLine = []byte("\r\nMcp-Session-Id: ")

// resplice is w's head with session id in place of w's, in new bytes; false
// when either has none (the line would come or go).
func (w *wireRequest) resplice(id string) ([]byte, bool) {
	if w.session == "" || id == "" {
		return nil, false
	}
	i := bytes.Index(w.head, sessionLine)
	if i < 0 {
		return nil, false
	}
	from := i + len(sessionLine)
	to := from + len(w.session)
	if to+2 > len(w.head) || string(w.head[from:to]) != w.session || w.head[to] != '\r' {
		return nil, false
	}
	b := make([]byte, 0, len(w.head)-len(w.session)+len(id))
	b = append(append(append(b, w.head[:from]...), id...), w.head[to:]...)
	return b, true
}

// messageHeads are the heads of what a client's sessions send with no
// Prepared of their own on a loop (notifications, answers to the server,
// the DELETE), by method ("DELETE" for the last): each session sends
// them once or twice, and built from a header map each cost it a dozen
// allocations. Shared by the client's sessions, on many loops.
type messageHeads struct {
	mu sync.Mutex
	by map[string]*wireRequest
}

func newMessageHeads() *messageHeads { return &messageHeads{by: map[string]*wireRequest{}} }

// messageHead is the head of the message key names, for t's session: the
// kept one, with the session's id spliced in, or built by build and kept.
func (t *directTransport) messageHead(key string, build func() []byte) []byte {
	s, heads := t.s, t.link.heads
	tok := s.c.authToken()
	heads.mu.Lock()
	w := heads.by[key]
	heads.mu.Unlock()
	if w != nil && w.rev == s.c.rev && w.auth == tok {
		if w.session == s.id {
			return w.head
		}
		if b, ok := w.resplice(s.id); ok {
			return b
		}
	}
	b := build()
	heads.mu.Lock()
	heads.by[key] = &wireRequest{head: b, session: s.id, rev: s.c.rev, auth: tok}
	heads.mu.Unlock()
	return b
}

// wireHead is a request's bytes up to the Content-Length value.
func wireHead(verb string, u *url.URL, h http.Header) []byte {
	b := []byte(verb + " " + u.RequestURI() + " HTTP/1.1\r\nHost: " + u.Host + "\r\n")
	for k, vs := range h {
		for _, v := range vs {
			b = append(b, k...)
			b = append(b, ": "...)
			b = append(b, v...)
			b = append(b, "\r\n"...)
		}
	}
	return append(b, "Content-Length: "...)
}
