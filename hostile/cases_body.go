package hostile

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"slices"
	"sync"
	"time"
)

// httpCases are the Streamable HTTP servers; the measured request is
// tools/list, and every case answers the handshake well unless it says
// otherwise.
var httpCases = slices.Concat(bodyCases, rpcCases, statusCases)

// bodyCases misbehave in how the answer's bytes arrive.
var bodyCases = []*Case{
	{Name: "baseline", Does: "a well-behaved server, to calibrate the suite", Handle: withHandshake(wellBehaved)},
	{Name: "sse-keepalive-forever", Does: "answers with an SSE stream that sends only keep-alive comments, every 100 ms, and never the answer nor its end", Handle: withHandshake(sseKeepAliveForever)},
	{Name: "endless-answer", Does: "a chunked application/json answer that never ends", Handle: withHandshake(endlessAnswer)},
	{Name: "2gb-answer", Does: "Content-Length: 2147483648, then bytes until the client leaves", Handle: withHandshake(hugeLength)},
	{Name: "gzip-bomb", Does: "Content-Encoding: gzip that was not asked for: 0.5 MB that inflate to 512 MiB", Handle: withHandshake(gzipBomb)},
	{Name: "short-body-keepalive", Does: "Content-Length: 1000 with 100 bytes of body, the connection kept open", Handle: withHandshake(shortBody)},
	{Name: "http10-close-delimited", Does: "an HTTP/1.0 answer with no Content-Length, its end marked by closing the connection", Handle: withHandshake(http10)},
	{Name: "slowloris", Does: "a valid answer sent one byte per second", Handle: withHandshake(slowloris)},
}

func sseKeepAliveForever(c *conn, _ *request) bool {
	if !c.startChunked(200, "Content-Type: text/event-stream") {
		return false
	}
	for c.sleep(100 * time.Millisecond) {
		if !c.chunk([]byte(": keep-alive\n\n")) {
			return false
		}
	}
	return false
}

// filler is a run of tool entries, written again and again.
var filler = bytes.Repeat([]byte(`{"name":"again","inputSchema":{"type":"object"}},`), 1300)

func endlessAnswer(c *conn, r *request) bool {
	if !c.startChunked(200, "Content-Type: application/json") {
		return false
	}
	if !c.chunk(fmt.Appendf(nil, `{"jsonrpc":"2.0","id":%s,"result":{"tools":[`, r.RPC.ID)) {
		return false
	}
	// Bounded all the same: 4 GiB, or until the client leaves.
	for sent := 0; sent < 4<<30 && !c.stopped(); sent += len(filler) {
		if !c.chunk(filler) {
			return false
		}
	}
	return false
}

func hugeLength(c *conn, r *request) bool {
	head := "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 2147483648\r\n\r\n"
	if !c.write(append([]byte(head), fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":{"tools":[`, r.RPC.ID)...)) {
		return false
	}
	for sent := 0; sent < 2<<30 && !c.stopped(); sent += len(filler) {
		if !c.write(filler) {
			return false
		}
	}
	return false
}

// bomb is the gzip body: a member holding the answer's head, then one
// 1 MiB member of spaces repeated (a gzip stream may hold many members),
// then the tail. Built once.
var bomb struct {
	once   sync.Once
	spaces []byte
}

const bombMiB = 512

func gzipMember(p []byte) []byte {
	var b bytes.Buffer
	w, _ := gzip.NewWriterLevel(&b, gzip.BestCompression)
	_, _ = w.Write(p)
	_ = w.Close()
	return b.Bytes()
}

func gzipBomb(c *conn, r *request) bool {
	bomb.once.Do(func() { bomb.spaces = gzipMember(bytes.Repeat([]byte{' '}, 1<<20)) })
	var body bytes.Buffer
	body.Write(gzipMember(fmt.Appendf(nil, `{"jsonrpc":"2.0","id":%s,"result":`, r.RPC.ID)))
	for range bombMiB {
		body.Write(bomb.spaces)
	}
	body.Write(gzipMember([]byte(toolsResult + "}")))
	return c.respond(200, []string{"Content-Type: application/json", "Content-Encoding: gzip"}, body.Bytes())
}

func shortBody(c *conn, r *request) bool {
	msg := answer(r.RPC.ID, toolsResult)[:100]
	head := "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n"
	if !c.write(append([]byte(head), msg...)) {
		return false
	}
	return c.hang()
}

func http10(c *conn, r *request) bool {
	head := "HTTP/1.0 200 OK\r\nContent-Type: application/json\r\n\r\n"
	c.write(append([]byte(head), answer(r.RPC.ID, toolsResult)...))
	return false // the close marks the end of the body
}

func slowloris(c *conn, r *request) bool {
	msg := answer(r.RPC.ID, toolsResult)
	head := fmt.Sprintf("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n", len(msg))
	if !c.write([]byte(head)) {
		return false
	}
	for i := range msg {
		if !c.write(msg[i:i+1]) || !c.sleep(time.Second) {
			return false
		}
	}
	return true
}
