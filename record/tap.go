package record

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"strings"
)

// tapKey carries, in a forwarded request's context, what to call with
// each request the server sends on its SSE answer.
type tapKey struct{}

// tapEvents lets an SSE answer pass unchanged while it reads each event's
// data for requests of the server's (sampling/createMessage,
// elicitation/create, roots/list, ping). JSON answers are left alone: a
// request of the server's comes only on a stream.
func tapEvents(resp *http.Response) error {
	seen, _ := resp.Request.Context().Value(tapKey{}).(func(message))
	if seen == nil || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		return nil
	}
	resp.Body = &eventTap{ReadCloser: resp.Body, seen: seen}
	return nil
}

// eventTap reads the lines of a stream as they pass.
type eventTap struct {
	io.ReadCloser
	line []byte // the unfinished line so far
	seen func(message)
}

func (t *eventTap) Read(b []byte) (int, error) {
	n, err := t.ReadCloser.Read(b)
	rest := b[:n]
	for {
		i := bytes.IndexByte(rest, '\n')
		if i < 0 {
			t.line = append(t.line, rest...)
			return n, err
		}
		t.line = append(t.line, rest[:i]...)
		rest = rest[i+1:]
		if data, ok := bytes.CutPrefix(bytes.TrimRight(t.line, "\r"), []byte("data:")); ok {
			if m, ok := serverRequest(data); ok {
				t.seen(m)
			}
		}
		t.line = t.line[:0]
	}
}

// serverRequest reads a JSON-RPC request (a method and an id); an answer
// or a notification is not one.
func serverRequest(data []byte) (message, bool) {
	var m message
	if json.Unmarshal(data, &m) != nil || m.Method == "" || len(m.ID) == 0 || string(m.ID) == "null" {
		return message{}, false
	}
	return m, true
}
