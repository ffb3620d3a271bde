package hostile

import (
	"fmt"
	"strings"
	"time"
)

// statusCases misbehave in the HTTP status and headers: session and
// redirect loops, back-off answers, heads that never end.
var statusCases = []*Case{
	{Name: "session-id-churn", Does: "a new Mcp-Session-Id on every answer", Handle: withHandshake(sessionChurn)},
	{Name: "reinitialize-storm", Does: "404 to every request after initialize, so every session is lost at once", Handle: withHandshake(notFound)},
	{Name: "redirect-other-port", Does: "302 to another port, which sends a 301 back", Handle: withHandshake(redirectAway), Extra: redirectBack},
	{Name: "429-retry-after", Does: "429 Too Many Requests with Retry-After: 1", Handle: withHandshake(tooMany)},
	{Name: "503", Does: "503 Service Unavailable with a plain-text body", Handle: withHandshake(unavailable)},
	{Name: "continue-then-nothing", Does: "100 Continue, then nothing more", Handle: withHandshake(continueThenNothing)},
	{Name: "1mb-header", Does: "an answer with a 1 MiB header", Handle: withHandshake(hugeHeader)},
	{Name: "10000-headers", Does: "an answer with 10,000 headers", Handle: withHandshake(manyHeaders)},
}

func sessionChurn(c *conn, r *request) bool {
	sid := fmt.Sprintf("Mcp-Session-Id: churn-%d", time.Now().UnixNano())
	return c.respondJSON(answer(r.RPC.ID, toolsResult), sid)
}

func notFound(c *conn, _ *request) bool {
	return c.respond(404, []string{"Content-Type: text/plain"}, []byte("no such session"))
}

func redirectAway(c *conn, _ *request) bool {
	loc := "Location: " + c.srv.extra.URL()
	return c.respond(302, []string{loc, "Content-Type: text/plain"}, []byte("moved"))
}

func redirectBack(c *conn, _ *request) bool {
	loc := "Location: " + c.srv.extra.URL()
	return c.respond(301, []string{loc, "Content-Type: text/plain"}, []byte("moved back"))
}

func tooMany(c *conn, _ *request) bool {
	return c.respond(429, []string{"Retry-After: 1", "Content-Type: text/plain"}, []byte("slow down"))
}

func unavailable(c *conn, _ *request) bool {
	return c.respond(503, []string{"Content-Type: text/plain"}, []byte("down for maintenance"))
}

func continueThenNothing(c *conn, _ *request) bool {
	if !c.write([]byte("HTTP/1.1 100 Continue\r\n\r\n")) {
		return false
	}
	return c.hang()
}

func hugeHeader(c *conn, r *request) bool {
	return c.respondJSON(answer(r.RPC.ID, toolsResult), "X-Padding: "+strings.Repeat("p", 1<<20))
}

func manyHeaders(c *conn, r *request) bool {
	h := make([]string, 0, 10000)
	for i := range 10000 {
		h = append(h, fmt.Sprintf("X-Header-%d: %d", i, i))
	}
	return c.respondJSON(answer(r.RPC.ID, toolsResult), h...)
}
