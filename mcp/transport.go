package mcp

import "context"

// A Session frames requests and classifies answers; how the bytes travel is
// its transport's business. Each transport lives in a file of its own, and
// what it alone uses in files that carry its name:
//
//	transport_http.go    Streamable HTTP over net/http
//	transport_direct.go  Streamable HTTP POSTs on the direct engine (internal/h1)
//	transport_legacy.go  the 2024-11-05 HTTP+SSE transport
//	transport_stdio.go   a server process's stdin and stdout
//
// A transport comes in two parts: a link, which the client holds and all
// its sessions share (a connection pool, server processes), and a
// transport, which one session owns (its buffers, its stream). Adding a
// transport is a file with one of each. Dial gives a client the Streamable
// HTTP link its engine calls for (streamableLink); negotiation
// (negotiate.go) moves it to HTTP+SSE or stdio.

// transport carries one session's messages. Like its session it is owned
// by one goroutine. It reaches its session's state (id, revision, reply
// buffers) through the session it was attached to.
type transport interface {
	// open begins the session on this wire: the handshake, where the
	// transport and session mode need one per session.
	open(ctx context.Context) error
	// nextID numbers a request. Ids must be unique on the wire, which
	// several sessions may share.
	nextID() int64
	// exchange sends body, the request numbered id, and reads the answer
	// to it (through streams, resumptions and renewals, as the wire
	// needs) into the session's reply. It records the bytes received in
	// res, and reports whether the answer came.
	exchange(ctx context.Context, p *Prepared, body []byte, id int64, res *Result) (found bool, err error)
	// notify sends a JSON-RPC notification.
	notify(ctx context.Context, method string) error
	// respond sends msg, the answer to a request the server sent during
	// an exchange, the way the wire carries messages to the server.
	respond(ctx context.Context, msg []byte) error
	// cancel tells the server that the request numbered id timed out and
	// is abandoned, as the wire defines it: a notifications/cancelled,
	// except on 2026-07-28 Streamable HTTP, where closing the request's
	// stream (which the timeout did) is the cancellation.
	cancel(id int64)
	// endSession ends the session on the server where the wire has such
	// sessions (DELETE on Streamable HTTP); elsewhere it does nothing.
	endSession(ctx context.Context) error
	// close releases what the session holds of the wire: a stream, a
	// cancellation hook.
	close()
}

// link is a client's side of a transport: what its sessions share.
type link interface {
	// attach gives s a transport of its own on this link.
	attach(s *Session) transport
	// engine names what carries the measured requests.
	engine() Engine
	// close releases what the sessions shared.
	close()
}
