package hostile

import (
	"fmt"
	"strconv"
)

// secretCases echo the bearer token the client sent back at it, each in a
// place the client may print: an error message, an SSE event, a redirect's
// Location, a JSON-RPC error's data.
var secretCases = []*Case{
	{Name: "echo-token-error-message", Does: "a JSON-RPC error whose message quotes the bearer token", Handle: withHandshake(echoInMessage)},
	{Name: "echo-token-sse-event", Does: "an SSE stream whose events quote the bearer token: a log notification, then an error answer", Handle: withHandshake(echoInSSE)},
	{Name: "echo-token-location", Does: "302 to a Location whose query holds the bearer token", Handle: withHandshake(echoInLocation)},
	{Name: "echo-token-error-data", Does: "a JSON-RPC error whose data holds the Authorization header it got", Handle: withHandshake(echoInData)},
}

func echoInMessage(c *conn, r *request) bool {
	return c.respondJSON(rpcError(r.RPC.ID, -32001, "token "+bearer(r)+" may not list tools"))
}

func echoInSSE(c *conn, r *request) bool {
	tok := bearer(r)
	note := fmt.Sprintf(`{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"error","data":"auth was Bearer %s"}}`, tok)
	body := fmt.Sprintf("event: message\ndata: %s\n\nevent: message\ndata: %s\n\n", note, rpcError(r.RPC.ID, -32001, "bad token "+tok))
	return c.respond(200, []string{"Content-Type: text/event-stream"}, []byte(body))
}

func echoInLocation(c *conn, r *request) bool {
	loc := "Location: http://127.0.0.1:1/login?next=%2Fmcp&access_token=" + bearer(r)
	return c.respond(302, []string{loc, "Content-Type: text/plain"}, []byte("log in again with "+bearer(r)))
}

func echoInData(c *conn, r *request) bool {
	data := strconv.Quote(r.Header["authorization"])
	msg := fmt.Appendf(nil, `{"jsonrpc":"2.0","id":%s,"error":{"code":-32001,"message":"unauthorized","data":{"authorization":%s}}}`, r.RPC.ID, data)
	return c.respondJSON(msg)
}
