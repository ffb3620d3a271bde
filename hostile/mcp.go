package hostile

import (
	"fmt"
	"strings"
)

// Case is one hostile server: what it does, for the doc, and how it
// answers. Handle serves one HTTP request and says whether the connection
// stays open; Stdio, for the stdio cases, is the whole server process.
type Case struct {
	Name   string
	Does   string // what the server does, in a sentence
	Handle func(c *conn, r *request) bool
	// Extra serves a second port (the redirect cases' other end).
	Extra func(c *conn, r *request) bool
	Stdio func(env StdioEnv) int
}

// Find returns the case named name, or nil.
func Find(name string) *Case {
	for _, list := range [][]*Case{httpCases, secretCases, stdioCases} {
		for _, c := range list {
			if c.Name == name {
				return c
			}
		}
	}
	return nil
}

// Names lists the cases of one group: "http", "secret" or "stdio".
func Names(group string) []string {
	var list []*Case
	switch group {
	case "http":
		list = httpCases
	case "secret":
		list = secretCases
	case "stdio":
		list = stdioCases
	}
	var out []string
	for _, c := range list {
		out = append(out, c.Name)
	}
	return out
}

// Protocol is the revision the servers speak: stateful, so that sessions
// can be lost and renewed.
const Protocol = "2025-06-18"

// answer frames a JSON-RPC result for the request id.
func answer(id []byte, result string) []byte {
	return fmt.Appendf(nil, `{"jsonrpc":"2.0","id":%s,"result":%s}`, id, result)
}

// rpcError frames a JSON-RPC error for the request id.
func rpcError(id []byte, code int, msg string) []byte {
	return fmt.Appendf(nil, `{"jsonrpc":"2.0","id":%s,"error":{"code":%d,"message":%q}}`, id, code, msg)
}

// toolsResult is a one-tool tools/list result.
const toolsResult = `{"tools":[{"name":"echo","description":"says it back","inputSchema":{"type":"object"}}]}`

func initializeResult(name string) string {
	return fmt.Sprintf(`{"protocolVersion":%q,"capabilities":{"tools":{}},"serverInfo":{"name":"hostile-%s","version":"1"}}`, Protocol, name)
}

// handshake answers what every case answers well: server/discover (not
// known: an initialize-era server), initialize (a new session id),
// notifications, DELETE and GET. It reports whether it answered r; the
// case answers the rest (the measured tools/list).
func handshake(c *conn, r *request) (handled, keep bool) {
	switch {
	case r.Method == "DELETE":
		return true, c.respond(200, nil, nil)
	case r.Method != "POST":
		return true, c.respond(405, []string{"Allow: POST, DELETE"}, nil)
	case r.RPC.isNotification():
		return true, c.respond(202, nil, nil)
	case r.RPC.Method == "server/discover":
		return true, c.respondJSON(rpcError(r.RPC.ID, -32601, "Method not found"))
	case r.RPC.Method == "initialize":
		sid := fmt.Sprintf("Mcp-Session-Id: s-%d", c.srv.sessions.Add(1))
		return true, c.respondJSON(answer(r.RPC.ID, initializeResult(c.srv.Case.Name)), sid)
	}
	return false, false
}

// withHandshake makes a handler that lets handshake answer what it knows
// and hostile answer the rest.
func withHandshake(hostile func(c *conn, r *request) bool) func(c *conn, r *request) bool {
	return func(c *conn, r *request) bool {
		if done, keep := handshake(c, r); done {
			return keep
		}
		return hostile(c, r)
	}
}

// wellBehaved answers tools/list and ping as a good server would.
func wellBehaved(c *conn, r *request) bool {
	if r.RPC.Method == "ping" {
		return c.respondJSON(answer(r.RPC.ID, "{}"))
	}
	return c.respondJSON(answer(r.RPC.ID, toolsResult))
}

// bearer is the token the client sent, as the server read it.
func bearer(r *request) string {
	return strings.TrimPrefix(r.Header["authorization"], "Bearer ")
}
