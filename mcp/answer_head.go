package mcp

import (
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
)

// answerHead is what the client reads of an answer's status line and
// headers, whichever engine read them: enough to handle the answer, and to
// say what the server did when it went wrong.
type answerHead struct {
	status      int
	contentType string
	sessionID   string // Mcp-Session-Id, read on initialize answers only
	encoding    string // Content-Encoding
	location    string // where a redirect points
	retryAfter  string
	length      int // Content-Length; -1 when the answer gives none
	chunked     bool
}

// headOf reads the head of a net/http answer.
func headOf(resp *http.Response) answerHead {
	h := resp.Header
	return answerHead{
		status: resp.StatusCode, contentType: h.Get("Content-Type"), sessionID: h.Get("Mcp-Session-Id"),
		encoding: h.Get("Content-Encoding"), location: h.Get("Location"), retryAfter: h.Get("Retry-After"),
		length: int(min(resp.ContentLength, 1<<62)), chunked: len(resp.TransferEncoding) > 0,
	}
}

// statusError is the error for a status outside 2xx: the status, where a
// redirect pointed (not followed: a load test measures the URL it was
// given) and how long the server asked the client to wait.
func (h *answerHead) statusError(method string) *Error {
	msg := fmt.Sprintf("%s: HTTP %d", method, h.status)
	if h.status >= 300 && h.status < 400 && h.location != "" {
		msg += " redirect to " + redactLocation(h.location) + ", not followed"
	}
	if h.retryAfter != "" {
		msg += fmt.Sprintf(" (Retry-After: %.40s)", h.retryAfter)
	}
	return &Error{Kind: KindHTTPStatus, Status: h.status, Msg: msg}
}

// redactLocation keeps a redirect target's scheme, host and path: its
// user info and query may carry credentials.
func redactLocation(loc string) string {
	u, err := url.Parse(loc)
	if err != nil {
		return "an unparsable Location"
	}
	u.User, u.RawQuery, u.Fragment, u.RawFragment = nil, "", "", ""
	return clip([]byte(u.String()))
}

// refuse says why an answer with this head is refused before its body is
// read: a content encoding that was not asked for (mcpbench sends no
// Accept-Encoding and inflates nothing, so a compressed body would only
// be read as broken JSON), or a length past the limit.
func (h *answerHead) refuse(method string, maxBody int) *Error {
	if h.encoding != "" && !strings.EqualFold(h.encoding, "identity") {
		return &Error{Kind: KindTransport, Msg: fmt.Sprintf("%s: the answer is encoded (Content-Encoding: %.40s), which mcpbench did not ask for", method, h.encoding)}
	}
	if h.length > maxBody {
		return tooLarge(method, fmt.Sprintf("Content-Length %d", h.length), maxBody)
	}
	return nil
}

func tooLarge(method, what string, maxBody int) *Error {
	return &Error{Kind: KindTransport, Msg: fmt.Sprintf("%s: %s (%d bytes): %s", method, msgTooLarge, maxBody, what)}
}

// describe says what of the answer had come: its status, type and
// framing, and how much of the body.
func (h *answerHead) describe(body int64, events int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "HTTP %d", h.status)
	if h.contentType != "" {
		fmt.Fprintf(&b, " %.60s", h.contentType)
	}
	switch {
	case h.length >= 0:
		fmt.Fprintf(&b, ", Content-Length %d, %d bytes of it came", h.length, body)
	case h.chunked:
		fmt.Fprintf(&b, ", chunked, %d bytes of body came", body)
	default:
		fmt.Fprintf(&b, ", %d bytes of body came", body)
	}
	if events >= 0 {
		b.WriteString(", " + plural(events, "SSE event"))
	}
	return b.String()
}

// explainCut adds to an error that cut an answer's body short (a time-out,
// a broken connection) what of the answer had come.
func (h *answerHead) explainCut(err error, body int64, events int) error {
	e, ok := err.(*Error)
	if !ok || !e.cut {
		return err
	}
	e.Msg += ": " + h.describe(body, events)
	return e
}

func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return strconv.Itoa(n) + " " + what + "s"
}
