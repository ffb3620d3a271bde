package mcp

import (
	"bufio"
	"bytes"
	"errors"
	"io"

	"github.com/valyala/fasthttp"
)

// An answer's status line and headers, read in place from the
// connection's buffer (wire.go).

// wireAnswer is what a round trip read; body is the session's buffer. An
// SSE answer is not read whole but handed over as stream, which reads the
// rest of it from the connection as it arrives; resp holds the stream's
// parser until the stream is done with.
type wireAnswer struct {
	answerHead
	body      []byte
	size      int  // the body's length
	matched   bool // the body was the memo's prediction, not kept (wire_match.go)
	close     bool
	stream    io.Reader
	resp      *fasthttp.Response
	challenge []string // WWW-Authenticate of a 401 or 403
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
			return nil, errHeadTooLarge
		}
		if _, err := br.Peek(len(b) + 1); err != nil && !errors.Is(err, bufio.ErrBufferFull) {
			return nil, err
		}
	}
}

var (
	crlf2           = []byte("\r\n\r\n")
	lf              = []byte("\n")
	errHeadTooLarge = errors.New("the answer's status line and headers pass 8 KiB, the direct engine's bound (the net/http engine reads up to 64 KiB)")
)

// parseHead reads the status and the headers the client needs from h. It
// returns false, leaving the answer to fasthttp, for anything but a final
// answer with a Content-Length or chunked (and not a stream of events), no
// Content-Encoding and plain header lines.
func parseHead(h []byte, a *wireAnswer, wantSession bool) bool {
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
	if code < 200 || code == 204 || code == 304 {
		return false
	}
	a.status = code
	length := -1
	for len(rest) > 2 {
		line, rest, _ = bytes.Cut(rest, crlf)
		colon := bytes.IndexByte(line, ':')
		if colon <= 0 || !isToken(line[:colon]) {
			return false // folded or malformed: fasthttp decides
		}
		name, value := line[:colon], bytes.TrimSpace(line[colon+1:])
		switch {
		case bytes.EqualFold(name, hContentLength):
			n, ok := atoiDigits(value) // a length past 9 digits is fasthttp's to refuse
			if !ok || length >= 0 && n != length {
				return false
			}
			length = n
		case bytes.EqualFold(name, hTransferEncoding):
			if a.chunked || !bytes.EqualFold(value, []byte("chunked")) {
				return false // a list of codings, or twice: fasthttp decides
			}
			a.chunked = true
		case bytes.EqualFold(name, hContentEncoding):
			return false
		case bytes.EqualFold(name, hContentType):
			a.contentType = bytesToString(value)
		case bytes.EqualFold(name, hConnection):
			if bytes.EqualFold(value, []byte("close")) {
				a.close = true
			}
		case wantSession && bytes.EqualFold(name, hSessionID):
			a.sessionID = string(value)
		case (code == 401 || code == 403) && bytes.EqualFold(name, hWWWAuthenticate):
			a.challenge = append(a.challenge, string(value))
		case code >= 300 && bytes.EqualFold(name, hLocation):
			a.location = string(value)
		case code >= 300 && bytes.EqualFold(name, hRetryAfter):
			a.retryAfter = string(value)
		}
	}
	if a.chunked {
		// A stream is read as it comes (fasthttp's); with a length as
		// well, the framing is ambiguous, fasthttp's to judge.
		a.length = -1
		return length < 0 && !hasMediaType(a.contentType, "text/event-stream")
	}
	if length < 0 {
		return false
	}
	a.length = length
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
	parsed answerHead
	close  bool
}

// recallHead fills a's head from the pool's last one when the answer's
// buffered bytes begin with it, and returns the head's bytes. Initialize
// answers are parsed each time (their session id matters).
func (p *wirePool) recallHead(br *bufio.Reader, a *wireAnswer, method string) ([]byte, bool) {
	m := &p.head
	if p.memo == nil || len(m.text) == 0 || method == "initialize" {
		return nil, false
	}
	if br.Buffered() == 0 {
		if _, err := br.Peek(1); err != nil {
			return nil, false // peekHead says how
		}
	}
	b, _ := br.Peek(br.Buffered())
	if !bytes.HasPrefix(b, m.text) {
		return nil, false
	}
	a.answerHead, a.close = m.parsed, m.close
	return b[:len(m.text)], true
}

// rememberHead keeps h, parsed into a, as the loop pool's last head, when
// it is a success (parseHead reads a challenge, a Location or a
// Retry-After of other answers only).
func (p *wirePool) rememberHead(h []byte, a *wireAnswer, method string) {
	if p.memo == nil || method == "initialize" || a.status > 299 {
		return
	}
	p.head.text = append(p.head.text[:0], h...)
	p.head.parsed, p.head.close = a.answerHead, a.close
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
	hSessionID        = []byte("Mcp-Session-Id")
	hWWWAuthenticate  = []byte("WWW-Authenticate")
)

// bytesToString copies; content types are short.
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
