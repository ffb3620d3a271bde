package mcp

import (
	"net/http"
	"net/url"
)

// wireRequest is a prepared request's bytes up to the Content-Length
// value, built again only when the session id or revision changed.
type wireRequest struct {
	head    []byte
	session string
	rev     string
	auth    string
}

func (t *directTransport) headFor(p *Prepared) []byte {
	s := t.s
	tok := s.c.authToken()
	if p.wire != nil && p.wire.session == s.id && p.wire.rev == s.c.rev && p.wire.auth == tok {
		return p.wire.head
	}
	b := wireHead("POST", s.c.url, t.buildHeader(p))
	p.wire = &wireRequest{head: b, session: s.id, rev: s.c.rev, auth: tok}
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
