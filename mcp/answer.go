package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"time"

	"github.com/mcpbench/mcpbench/internal/h1"
)

// Reading answers into the session: a JSON body, an SSE stream, an error
// body. Every transport's bytes end up in s.rep through these.

// heldBody is an answer body the engine has already read whole into the
// session: readJSON parses it where it is instead of copying it.
type heldBody struct {
	bytes.Reader
	b []byte
	// size is the body's length: b's, or that of a body compared where it
	// was read and not kept (wire_match.go; b is nil, parsed true).
	size int
	// parsed: the session's reply already holds b, parsed, and its id
	// was checked.
	parsed bool
}

func (h *heldBody) reset(b []byte, size int) {
	h.b, h.size = b, size
	h.parsed = false
	h.Reader.Reset(b)
}

// readJSON reads a single JSON-RPC response body.
func (s *Session) readJSON(body io.Reader, id int64, res *Result) (bool, error) {
	var data []byte
	if h, ok := body.(*heldBody); ok {
		data = h.b // bounded by --max-response-bytes when it was read
		res.Received = int64(h.size)
		if h.parsed {
			return true, nil
		}
	} else {
		s.resp.Reset()
		n, err := readLimited(&s.resp, body, s.c.maxBody)
		res.Received = n
		if err != nil {
			return false, err
		}
		data = s.resp.Bytes()
	}
	if err := s.rep.parse(data); err != nil {
		return false, malformed("answer", data, err)
	}
	if !sameID(s.rep.ID, id, s.scratch[:0]) {
		return false, idMismatch(s.rep.ID, id)
	}
	return true, nil
}

// streamEnd is how reading an SSE answer left its stream: the direct
// engine's three ends, which finish its connection.
type streamEnd = h1.StreamState

const (
	streamEnded    = h1.StreamEnded    // read to its end
	streamLeftOpen = h1.StreamLeftOpen // left at the response; the rest is still to come
	streamBroken   = h1.StreamBroken   // failed part-way: its connection is of no more use
)

// readSSE reads events until the response to id arrives, and returns
// there: the request is complete the moment its answer is in, whatever the
// stream does after. On the way it answers the requests the server sends
// (clientreq.go) and counts progress notifications. s.stream says how the
// stream was left, for the transport to finish reading it off the clock.
func (s *Session) readSSE(ctx context.Context, body io.Reader, id int64, res *Result) (bool, error) {
	if s.sse == nil { // made on first use: most sessions never see SSE
		s.sse = newSSEReader(s.c.maxBody)
	}
	s.sse.reset(body)
	s.stream = streamBroken
	base := res.Received // bytes of earlier streams of the same request
	for {
		data, err := s.sse.next()
		res.Received = base + s.sse.read
		if err == io.EOF {
			s.stream = streamEnded
			return false, nil
		}
		if err != nil {
			if errors.Is(err, errEventTooLarge) {
				return false, &Error{Kind: KindTransport, Msg: msgTooLarge, cut: true}
			}
			if k := classifyNetErr(err); k == KindTimeout {
				return false, &Error{Kind: KindTimeout, Msg: "reading SSE stream", Err: err, cut: true}
			}
			return false, &Error{Kind: KindTransport, Msg: "SSE stream broke before the response", Err: err, cut: true}
		}
		if res.FirstEvent == 0 {
			res.FirstEvent = max(time.Since(s.sentAt), 1)
		}
		// Skip what is not an answer: an empty priming event (2025-11-25
		// streams send one with just an id, for resumption).
		if len(data) == 0 {
			continue
		}
		if err := s.rep.parse(data); err != nil {
			return false, malformed("SSE event", data, err)
		}
		if s.rep.isNotification() {
			// A notification or a request from the server about this call.
			if msg := s.c.serverMessage(&s.rep, data); msg != nil {
				if err := s.t.respond(ctx, msg); err != nil {
					return false, err
				}
			}
			continue
		}
		if sameID(s.rep.ID, id, s.scratch[:0]) {
			// The reply points into the reader's event buffer, which is
			// the session's and is not read again before its next
			// request: the stream's rest is read off the connection, not
			// through it. So the event is neither copied nor parsed twice.
			s.stream = streamLeftOpen
			return true, nil
		}
	}
}

// readErrorBody reads a non-2xx body (bounded) and decodes a JSON-RPC error
// from it if there is one.
func (s *Session) readErrorBody(body io.Reader) (int64, *rpcError) {
	s.resp.Reset()
	n, err := readLimited(&s.resp, body, 64<<10)
	if err != nil {
		return n, nil
	}
	var m struct {
		Error *rpcError `json:"error"`
	}
	if json.Unmarshal(s.resp.Bytes(), &m) != nil {
		return n, nil
	}
	return n, m.Error
}

// readLimited copies r into buf, failing with a transport error when more
// than limit bytes come.
func readLimited(buf *bytes.Buffer, r io.Reader, limit int) (int64, error) {
	var total int64
	for {
		if buf.Available() < 4096 {
			buf.Grow(4096)
		}
		free := buf.AvailableBuffer()
		free = free[:cap(free)]
		n, err := r.Read(free)
		buf.Write(free[:n])
		total += int64(n)
		if buf.Len() > limit {
			return total, &Error{Kind: KindTransport, Msg: msgTooLarge, cut: true}
		}
		if err == io.EOF {
			return total, nil
		}
		if err != nil {
			if classifyNetErr(err) == KindTimeout {
				return total, &Error{Kind: KindTimeout, Msg: "reading answer", Err: err, cut: true}
			}
			return total, &Error{Kind: KindTransport, Msg: "answer cut short", Err: err, cut: true}
		}
	}
}

// drainLimit bounds what drain reads: past it, dropping the connection
// costs less than reading on.
const drainLimit = 256 << 10

// drain reads what is left of a body (bounded) so its connection can be
// reused, and returns how many bytes that was.
func drain(r io.Reader) int64 {
	n, _ := io.Copy(io.Discard, io.LimitReader(r, drainLimit))
	return n
}

func hasMediaType(ct, want string) bool { return h1.HasMediaType(ct, want) }

func shortID(id string) string {
	if len(id) > 8 {
		return id[:8] + "…"
	}
	return id
}

func clip(b []byte) string {
	if len(b) > 40 {
		return string(b[:40]) + "…"
	}
	return string(b)
}
