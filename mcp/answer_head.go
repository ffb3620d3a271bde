package mcp

import (
	"fmt"
	"net/http"
	"net/url"
	"strings"

	"github.com/mcpbench/mcpbench/internal/h1"
)

// answerHead is what the client reads of an answer's status line and
// headers, whichever engine read them: the direct engine's Head (Kept is
// the Mcp-Session-Id, read on initialize answers only), with what the
// client makes of it.
type answerHead h1.Head

// headOf reads the head of a net/http answer.
func headOf(resp *http.Response) answerHead {
	h := resp.Header
	a := answerHead{
		Status: resp.StatusCode, ContentType: h.Get("Content-Type"), Kept: h.Get("Mcp-Session-Id"),
		Encoding: h.Get("Content-Encoding"), Location: h.Get("Location"), RetryAfter: h.Get("Retry-After"),
		Length: int(min(resp.ContentLength, 1<<62)), Chunked: len(resp.TransferEncoding) > 0,
	}
	if isAuthStatus(a.Status) {
		a.Challenge = h.Values("WWW-Authenticate")
	}
	return a
}

// statusError is the error for a status outside 2xx: the status, where a
// redirect pointed (not followed: a load test measures the URL it was
// given) and how long the server asked the client to wait.
func (h *answerHead) statusError(method string) *Error {
	msg := fmt.Sprintf("%s: HTTP %d", method, h.Status)
	if h.Status >= 300 && h.Status < 400 && h.Location != "" {
		msg += " redirect to " + redactLocation(h.Location) + ", not followed"
	}
	if h.RetryAfter != "" {
		msg += fmt.Sprintf(" (Retry-After: %.40s)", h.RetryAfter)
	}
	return &Error{Kind: KindHTTPStatus, Status: h.Status, Msg: msg}
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
	if h.Encoding != "" && !strings.EqualFold(h.Encoding, "identity") {
		return &Error{Kind: KindTransport, Msg: fmt.Sprintf("%s: the answer is encoded (Content-Encoding: %.40s), which mcpbench did not ask for", method, h.Encoding)}
	}
	if h.Length > maxBody {
		return tooLarge(method, fmt.Sprintf("Content-Length %d", h.Length), maxBody)
	}
	return nil
}

func tooLarge(method, what string, maxBody int) *Error {
	return &Error{Kind: KindTransport, Msg: fmt.Sprintf("%s: %s (%d bytes): %s", method, msgTooLarge, maxBody, what)}
}

// describe says what of the answer had come: its status, type and
// framing, and how much of the body.
func (h *answerHead) describe(body int64, events int) string {
	return (*h1.Head)(h).Describe(body, events)
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

func plural(n int, what string) string { return h1.Plural(n, what) }
