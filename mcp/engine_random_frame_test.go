package mcp

import (
	"encoding/json"
	"math/rand/v2"
	"net"
	"strconv"
	"strings"
	"time"
)

// How rndServer frames an answer, every choice drawn from the answer's
// own generator. Each choice is one that HTTP/1.1 (RFC 9112), SSE (the
// HTML standard's event stream) and MCP's Streamable HTTP allow.

// rndFrame is the framing of one answer.
type rndFrame struct {
	sse     bool
	body    string // "length", "chunked" or "close" (the body ends with the connection)
	close   bool   // Connection: close, and the server closes after
	eol     string // the SSE stream's line end
	lateEnd bool   // the body's last bytes go in a write of their own, later
}

func drawFrame(rng *rand.Rand, emptyStatus int) rndFrame {
	f := rndFrame{sse: rng.IntN(2) == 0, close: rng.IntN(8) == 0, lateEnd: rng.IntN(4) == 0}
	f.eol = []string{"\n", "\r\n", "\r", "\n"}[rng.IntN(4)]
	switch n := rng.IntN(8); {
	case n < 4:
		f.body = "length"
	case n < 7:
		f.body = "chunked"
	default:
		f.body, f.close = "close", true
	}
	if emptyStatus == 204 && f.body != "length" {
		f.body = "none" // a 204 has no body, whatever the head says
	}
	return f
}

func (f rndFrame) name() string {
	kind := "json"
	if f.sse {
		kind = "sse"
	}
	if f.close {
		return kind + "/" + f.body + "/close"
	}
	return kind + "/" + f.body
}

// writeRndAnswer writes a JSON-RPC answer with id and result, the session
// id in the head when there is one; false when the connection is done.
func writeRndAnswer(c net.Conn, rng *rand.Rand, id json.RawMessage, result, session string, s *rndServer) bool {
	f := drawFrame(rng, 200)
	s.framed(f.name())
	msg := rndMessageText(rng, id, result, f.sse)
	body := msg
	ct := []string{"application/json", "application/json; charset=utf-8", "Application/JSON"}[rng.IntN(3)]
	if f.sse {
		body = rndEvents(rng, msg, f.eol)
		ct = []string{"text/event-stream", "text/event-stream; charset=utf-8"}[rng.IntN(2)]
	}
	head := "HTTP/1.1 200 OK\r\nContent-Type: " + ct + "\r\n"
	if session != "" {
		head += []string{"Mcp-Session-Id: ", "mcp-session-id: "}[rng.IntN(2)] + session + "\r\n"
	}
	return writeRnd(c, rng, f, head, body)
}

// writeRndEmpty writes an answer without a JSON-RPC message: 202 for a
// notification (or 204), 200 or 204 for a DELETE, 405 for a GET.
func writeRndEmpty(c net.Conn, rng *rand.Rand, status int, s *rndServer) bool {
	if status < 300 && rng.IntN(3) == 0 {
		status = 204
	}
	f := drawFrame(rng, status)
	f.sse = false
	s.framed(strconv.Itoa(status) + "/" + f.name())
	head := "HTTP/1.1 " + strconv.Itoa(status) + " " + map[int]string{200: "OK", 202: "Accepted", 204: "No Content", 404: "Not Found", 405: "Method Not Allowed"}[status] + "\r\n"
	if f.body == "none" {
		return writeRnd(c, rng, f, head, "")
	}
	if status == 405 {
		head += "Allow: POST, DELETE\r\n"
	}
	return writeRnd(c, rng, f, head, "")
}

// rndMessageText is the JSON-RPC answer, its members in one of the orders
// and spacings JSON allows (no line end in an SSE event's data).
func rndMessageText(rng *rand.Rand, id json.RawMessage, result string, sse bool) string {
	j, i, r := `"jsonrpc":"2.0"`, `"id":`+string(id), `"result":`+result
	var parts []string
	switch rng.IntN(6) {
	case 0:
		parts = []string{i, j, r}
	case 1:
		parts = []string{r, i, j}
	default:
		parts = []string{j, i, r}
	}
	if rng.IntN(6) == 0 {
		sep := " ,\n "
		if sse {
			sep = " , "
		}
		return "{ " + strings.Join(parts, sep) + " }"
	}
	return "{" + strings.Join(parts, ",") + "}"
}

// rndEvents is an SSE stream that carries msg as its answer, after
// comments, retry fields and notifications, and sometimes with more after.
func rndEvents(rng *rand.Rand, msg, eol string) string {
	var b strings.Builder
	for range rng.IntN(4) {
		switch rng.IntN(4) {
		case 0:
			b.WriteString(": keep going" + eol + eol)
		case 1:
			b.WriteString("retry: 2500" + eol + eol)
		case 2:
			b.WriteString("event: message" + eol + `data: {"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"hi"}}` + eol + eol)
		default:
			b.WriteString(`data:{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":1,"progress":1}}` + eol + eol)
		}
	}
	if rng.IntN(3) == 0 {
		b.WriteString("id: " + strconv.Itoa(rng.IntN(1000)) + eol)
	}
	if rng.IntN(2) == 0 {
		b.WriteString("event: message" + eol)
	}
	// One data line, or the message split over several at a place
	// where JSON allows the line end the reader puts between them.
	lines := []string{msg}
	if k := strings.Index(msg, ","); k > 0 && rng.IntN(5) == 0 {
		lines = []string{msg[:k+1], msg[k+1:]}
	}
	for _, l := range lines {
		b.WriteString([]string{"data: ", "data:"}[rng.IntN(2)] + l + eol)
	}
	b.WriteString(eol)
	if rng.IntN(6) == 0 {
		b.WriteString(": done" + eol + eol)
	}
	return b.String()
}

// writeRnd frames body as f says after head, and writes it in pieces;
// false when the connection is done.
func writeRnd(c net.Conn, rng *rand.Rand, f rndFrame, head, body string) bool {
	if rng.IntN(4) == 0 {
		head += "X-Pad: " + strings.Repeat("p", rng.IntN(300)) + "\r\n"
	}
	if f.close {
		head += []string{"Connection: close\r\n", "connection: Close\r\n"}[rng.IntN(2)]
	}
	var wire string
	switch f.body {
	case "length":
		wire = head + "Content-Length: " + strconv.Itoa(len(body)) + "\r\n\r\n" + body
	case "chunked":
		wire = head + "Transfer-Encoding: chunked\r\n\r\n" + rndChunks(rng, body)
	default: // "close", "none"
		wire = head + "\r\n" + body
	}
	late := 0
	if f.lateEnd && len(wire) > 1 {
		late = 1 + rng.IntN(min(len(wire)-1, 8))
	}
	if !writePieces(c, rng, wire[:len(wire)-late]) {
		return false
	}
	if late > 0 {
		time.Sleep(time.Duration(rng.IntN(2000)) * time.Microsecond)
		if !writePieces(c, rng, wire[len(wire)-late:]) {
			return false
		}
	}
	return !f.close
}

// rndChunks is body in chunks of random sizes, down to one byte, with
// extensions, either case of hex digits and trailers now and then.
func rndChunks(rng *rand.Rand, body string) string {
	var b strings.Builder
	for len(body) > 0 {
		n := 1 + rng.IntN(len(body))
		if rng.IntN(3) == 0 {
			n = 1 + rng.IntN(min(len(body), 4))
		}
		size := strconv.FormatInt(int64(n), 16)
		if rng.IntN(2) == 0 {
			size = strings.ToUpper(size)
		}
		if rng.IntN(8) == 0 {
			size = "0" + size
		}
		if rng.IntN(8) == 0 {
			size += ";ext=1"
		}
		b.WriteString(size + "\r\n" + body[:n] + "\r\n")
		body = body[n:]
	}
	b.WriteString("0\r\n")
	if rng.IntN(8) == 0 {
		b.WriteString("X-Trailer: t\r\n")
	}
	b.WriteString("\r\n")
	return b.String()
}

// writePieces writes wire in one write or several, split anywhere, with
// short pauses between some (the connection has TCP_NODELAY, Go's
// default, so a pause lets a piece go out as a segment of its own).
func writePieces(c net.Conn, rng *rand.Rand, wire string) bool {
	pieces := 1
	switch rng.IntN(4) {
	case 0:
		pieces = 2 + rng.IntN(3)
	case 1:
		pieces = 1 + rng.IntN(len(wire))
		pieces = min(pieces, 40)
	}
	for i := pieces; i > 0 && len(wire) > 0; i-- {
		n := len(wire)
		if i > 1 {
			n = 1 + rng.IntN(max(1, min(len(wire)-1, 2*len(wire)/i)))
		}
		if _, err := c.Write([]byte(wire[:n])); err != nil {
			return false
		}
		wire = wire[n:]
		if i > 1 && rng.IntN(3) == 0 {
			time.Sleep(time.Duration(rng.IntN(300)) * time.Microsecond)
		}
	}
	if len(wire) > 0 {
		_, err := c.Write([]byte(wire))
		return err == nil
	}
	return true
}
