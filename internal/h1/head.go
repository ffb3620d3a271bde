package h1

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/valyala/fasthttp"
)

// Head is what the engine reads of an answer's status line and headers:
// enough to handle the answer, and to say what the server did when it
// went wrong. (mcp reads net/http's answers into the same shape.)
type Head struct {
	Status      int
	ContentType string
	Kept        string // the header the request asked to keep (Request.Keep)
	Encoding    string // Content-Encoding
	Location    string // where a redirect points
	RetryAfter  string
	Length      int // Content-Length; -1 when the answer gives none
	Chunked     bool
	Challenge   []string // WWW-Authenticate of a 401 or 403
}

// Describe says what of the answer had come: its status, type and
// framing, how much of the body, and, when events >= 0, how many events.
func (h *Head) Describe(body int64, events int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "HTTP %d", h.Status)
	if h.ContentType != "" {
		fmt.Fprintf(&b, " %.60s", h.ContentType)
	}
	switch {
	case h.Length >= 0:
		fmt.Fprintf(&b, ", Content-Length %d, %d bytes of it came", h.Length, body)
	case h.Chunked:
		fmt.Fprintf(&b, ", chunked, %d bytes of body came", body)
	default:
		fmt.Fprintf(&b, ", %d bytes of body came", body)
	}
	if events >= 0 {
		b.WriteString(", " + Plural(events, "SSE event"))
	}
	return b.String()
}

// Plural is n what, with an s past one.
func Plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return strconv.Itoa(n) + " " + what + "s"
}

// Answer is what a round trip read. Body is the caller's buffer (valid
// until its next request), nil when the body matched its prediction. An
// SSE answer is not read whole but handed over as Stream, which reads the
// rest of it from the connection as it arrives (Finish ends it).
type Answer struct {
	Head
	Body    []byte
	Size    int  // the body's length
	Matched bool // the body was the prediction, not kept (match.go)
	Close   bool // the connection cannot carry another request
	Stream  io.Reader
	resp    *fasthttp.Response
}

// peekHead returns the answer's status line and headers, through the
// blank line, without consuming them.
func peekHead(br *bufio.Reader) ([]byte, error) {
	for searched := 0; ; {
		n := max(br.Buffered(), 1)
		b, err := br.Peek(n)
		if i := bytes.Index(b[max(searched-3, 0):], crlf2); i >= 0 {
			return b[:max(searched-3, 0)+i+4], nil
		}
		if err != nil {
			return nil, err
		}
		searched = len(b)
		if len(b) == br.Size() {
			return nil, ErrHeadTooLarge
		}
		if _, err := br.Peek(len(b) + 1); err != nil && !errors.Is(err, bufio.ErrBufferFull) {
			return nil, err
		}
	}
}

var (
	crlf2 = []byte("\r\n\r\n")
	lf    = []byte("\n")
	// ErrHeadTooLarge is an answer whose head does not fit the read buffer.
	ErrHeadTooLarge = errors.New("the answer's status line and headers pass 8 KiB, the direct engine's bound (the net/http engine reads up to 64 KiB)")
)

// parseHead reads the status and the headers the engine needs from h, and
// the value of keep when not nil. It returns false, leaving the answer to
// fasthttp, for anything but a final answer with a Content-Length or
// chunked, no Content-Encoding and plain header lines.
func parseHead(h []byte, a *Answer, keep []byte) bool {
	if bytes.Count(h, lf) != bytes.Count(h, crlf) {
		return false // a bare LF ends a line for fasthttp, not for the cuts below
	}
	line, rest, _ := bytes.Cut(h, crlf)
	// "HTTP/1.x NNN reason"
	if len(line) < 12 || string(line[:8]) != "HTTP/1.1" || line[8] != ' ' || len(line) > 12 && line[12] != ' ' {
		return false // HTTP/1.0 among them: its keep-alive rules are fasthttp's
	}
	code := 0
	for _, d := range line[9:12] {
		if d < '0' || d > '9' {
			return false
		}
		code = code*10 + int(d-'0')
	}
	if code < 200 {
		return false // interim: fasthttp reads on to the final answer
	}
	a.Status = code
	length := -1
	for len(rest) > 2 {
		line, rest, _ = bytes.Cut(rest, crlf)
		colon := bytes.IndexByte(line, ':')
		if colon <= 0 || !isToken(line[:colon]) {
			return false // folded or malformed: fasthttp decides
		}
		if !headerLine(a, line[:colon], bytes.TrimSpace(line[colon+1:]), keep, &length) {
			return false
		}
	}
	if bodiless(code) {
		// No body, whatever the head says of one (RFC 9112, section
		// 6.3): a DELETE's 204, once a session, read here rather than by
		// fasthttp's parser.
		a.Chunked, a.Length = false, 0
		return true
	}
	if a.Chunked {
		// With a length as well, the framing is ambiguous, fasthttp's
		// to judge.
		a.Length = -1
		return length < 0
	}
	if length < 0 {
		return false
	}
	a.Length = length
	return true
}

// headerLine takes one header line into a; false leaves the answer to
// fasthttp.
func headerLine(a *Answer, name, value, keep []byte, length *int) bool {
	code := a.Status
	switch {
	case bytes.EqualFold(name, hContentLength):
		n, ok := AtoiDigits(value) // a length past 9 digits is fasthttp's to refuse
		if !ok || *length >= 0 && n != *length {
			return false
		}
		*length = n
	case bytes.EqualFold(name, hTransferEncoding):
		if a.Chunked || !bytes.EqualFold(value, []byte("chunked")) {
			return false // a list of codings, or twice: fasthttp decides
		}
		a.Chunked = true
	case bytes.EqualFold(name, hContentEncoding):
		return false
	case bytes.EqualFold(name, hContentType):
		a.ContentType = bytesToString(value)
	case bytes.EqualFold(name, hConnection):
		if bytes.EqualFold(value, []byte("close")) {
			a.Close = true
		}
	case keep != nil && bytes.EqualFold(name, keep):
		a.Kept = string(value)
	case (code == 401 || code == 403) && bytes.EqualFold(name, hWWWAuthenticate):
		a.Challenge = append(a.Challenge, string(value))
	case code >= 300 && bytes.EqualFold(name, hLocation):
		a.Location = string(value)
	case code >= 300 && bytes.EqualFold(name, hRetryAfter):
		a.RetryAfter = string(value)
	}
	return true
}

// A loop's answers mostly come with the same head, byte for byte, but
// for the Date header once a second. So a loop pool keeps the last head
// it parsed and what parseHead made of it, and an answer whose buffered
// bytes begin with that head takes it as it is: one comparison instead
// of a search for the head's end and a pass over each header line.

// headMemo is a loop pool's last plain head: a success without anything
// parseHead reads only for other answers.
type headMemo struct {
	text   []byte
	parsed Head
	close  bool
}

// recallHead reads a head as the pool's last one when the answer's
// buffered bytes begin with it: it returns the head's bytes, what was
// made of them (nil when the answer is not the last one's head) and
// whether the connection then closes. (Not an *Answer to fill: through
// the Pool interface it would escape.) Answers
// whose request keeps a header are parsed each time (the header matters).
func (p *LoopPool) recallHead(br *bufio.Reader, keep []byte) ([]byte, *Head, bool) {
	m := &p.head
	if len(m.text) == 0 || keep != nil {
		return nil, nil, false
	}
	if br.Buffered() == 0 {
		if _, err := br.Peek(1); err != nil {
			return nil, nil, false // peekHead says how
		}
	}
	b, _ := br.Peek(br.Buffered())
	if !bytes.HasPrefix(b, m.text) {
		return nil, nil, false
	}
	return b[:len(m.text)], &m.parsed, m.close
}

// rememberHead keeps h, parsed, as the loop pool's last head, when
// it is a success (parseHead reads a challenge, a Location or a
// Retry-After of other answers only) with a body: an empty answer (a
// notification's 202, a DELETE's 204) comes once a session, and kept it
// put out the head of the session's calls.
func (p *LoopPool) rememberHead(h []byte, parsed Head, close bool, keep []byte) {
	if keep != nil || parsed.Status > 299 || parsed.Length == 0 {
		return
	}
	p.head.text = append(p.head.text[:0], h...)
	p.head.parsed, p.head.close = parsed, close
}

// isToken reports whether b is an HTTP token, as a header name must be.
func isToken(b []byte) bool {
	for _, c := range b {
		if !tokenByte[c] {
			return false
		}
	}
	return true
}

// TokenByte says whether c may be in an HTTP token (RFC 9110, 5.6.2).
func TokenByte(c byte) bool { return tokenByte[c] }

var tokenByte = func() (t [256]bool) {
	for c := '0'; c <= '9'; c++ {
		t[c] = true
	}
	for c := 'a'; c <= 'z'; c++ {
		t[c], t[c-'a'+'A'] = true, true
	}
	for _, c := range "!#$%&'*+-.^_`|~" {
		t[c] = true
	}
	return t
}()

var (
	crlf              = []byte("\r\n")
	hContentLength    = []byte("Content-Length")
	hTransferEncoding = []byte("Transfer-Encoding")
	hContentEncoding  = []byte("Content-Encoding")
	hLocation         = []byte("Location")
	hRetryAfter       = []byte("Retry-After")
	hContentType      = []byte("Content-Type")
	hConnection       = []byte("Connection")
	hWWWAuthenticate  = []byte("WWW-Authenticate")
)

// bytesToString copies; content types are short, and the two common ones
// are not copied at all.
func bytesToString(b []byte) string {
	if bytes.Equal(b, ctJSON) {
		return "application/json"
	}
	if bytes.Equal(b, ctSSE) {
		return "text/event-stream"
	}
	return string(b)
}

var (
	ctJSON = []byte("application/json")
	ctSSE  = []byte("text/event-stream")
)

// HasMediaType says whether the content type ct is want (with or without
// parameters), in any case.
func HasMediaType(ct, want string) bool {
	if len(ct) < len(want) {
		return false
	}
	if rest := ct[len(want):]; rest != "" && rest[0] != ';' && rest[0] != ' ' && rest[0] != '\t' {
		return false // another type that begins with want's name
	}
	// Servers write the media type in lower case, as it is asked for
	// here: the plain comparison settles it without EqualFold's folding
	// (about 0.1 µs a request of the client's two or three calls, perf).
	return ct[:len(want)] == want || strings.EqualFold(ct[:len(want)], want)
}
