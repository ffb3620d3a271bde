package record

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"time"
)

// tapKey carries, in a forwarded request's context, the *listener to tell
// what its answer carries.
type tapKey struct{}

// listener hears what passes in an answer: each request the server sends
// on its SSE stream, and each time bytes of the answer to the client's own
// requests come.
type listener struct {
	seen     func(message)
	answered func()
	// holdUntil is when the answer may leave, at the soonest (zero: at
	// once): see Proxy.MinAnswerTime.
	holdUntil time.Time
}

// hold waits until the answer may leave, or ctx ends.
func (l *listener) hold(ctx context.Context) {
	d := time.Until(l.holdUntil)
	if d <= 0 {
		return
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
	case <-ctx.Done():
	}
}

// tapEvents lets an answer pass unchanged while it listens. An SSE
// stream's events are read for requests of the server's
// (sampling/createMessage, elicitation/create, roots/list, ping) and for
// the answers to the client's; a JSON answer is all answer, so each read
// of it counts. An answer's time is taken as its bytes come from the
// server, before they go on to the client: the stream may stay open after
// it, and on a busy machine the handler may return only after the client,
// answered, has sent its next request, which would then seem to overlap.
func tapEvents(resp *http.Response) error {
	l, _ := resp.Request.Context().Value(tapKey{}).(*listener)
	if l == nil {
		return nil
	}
	l.hold(resp.Request.Context())
	if !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		resp.Body = &answerTap{ReadCloser: resp.Body, answered: l.answered}
		return nil
	}
	resp.Body = &eventTap{ReadCloser: resp.Body, l: l}
	return nil
}

// answerTap notes each read of a body that is one answer.
type answerTap struct {
	io.ReadCloser
	answered func()
}

func (t *answerTap) Read(b []byte) (int, error) {
	n, err := t.ReadCloser.Read(b)
	if n > 0 {
		t.answered()
	}
	return n, err
}

// eventTap reads the lines of a stream as they pass.
type eventTap struct {
	io.ReadCloser
	line []byte // the unfinished line so far
	l    *listener
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
			if m, ok := fromServer(data); ok && m.Method != "" {
				t.l.seen(m)
			} else if ok {
				t.l.answered()
			}
		}
		t.line = t.line[:0]
	}
}

// fromServer reads an event's data as a JSON-RPC message with an id: a
// request of the server's (it has a method) or an answer (it has none).
// A notification, or anything else, is neither.
func fromServer(data []byte) (message, bool) {
	var m message
	if json.Unmarshal(data, &m) != nil || len(m.ID) == 0 || string(m.ID) == "null" {
		return message{}, false
	}
	return m, true
}
