package mcp

import (
	"bufio"
	"bytes"
	"io"
	"slices"
	"strconv"
)

// On an event loop, most answers are predictable to the byte: the loop's
// memo (memo.go) holds the last answer its sessions got, and the next
// one is usually that answer again with the new request's id. So the body
// is compared with that prediction where it lies in the connection's read
// buffer, piece by piece as it is read, and neither copied into the
// session's answer buffer nor scanned. When every byte matched, the reply
// points into the memo's text (lent until the session's next request);
// at the first difference the bytes that matched are rebuilt from the
// prediction, the rest is read as before, and the answer is parsed in
// full. Copying and comparing a 10 KB answer through buffers that sixty
// sessions take turns with was about a sixth of the client's own CPU per
// request against the Go SDK's server.

// bodyMatch is one body's comparison with its prediction: the memo's text
// before the id, the id the request was sent with, the text after it.
type bodyMatch struct {
	on      bool
	from    *remembered
	want    [3][]byte
	part    int // the part being matched; 3 once all are
	at      int // bytes of want[part] matched
	fed     int // body bytes compared so far
	idBytes [20]byte
}

// startMatch readies t to compare a's body with its prediction for the
// request id, when the answer is one the memo may predict: a success in
// JSON, on a loop whose memo holds an answer, and, with a length, of the
// predicted length.
func (t *directTransport) startMatch(a *wireAnswer, id int64) {
	t.match.on = false
	memo := t.pool.memo
	if memo == nil || len(memo.text()) == 0 || a.status < 200 || a.status > 299 || !hasMediaType(a.contentType, "application/json") {
		return
	}
	m, r := &t.match, memo.last
	m.want = [3][]byte{r.text[:r.id.from], strconv.AppendInt(m.idBytes[:0], id, 10), r.text[r.id.to:]}
	if a.length >= 0 && a.length != len(m.want[0])+len(m.want[1])+len(m.want[2]) {
		return
	}
	m.on, m.from, m.part, m.at, m.fed = true, r, 0, 0, 0
	r.lent++ // until the answer differs, or the session's next request
	t.lent, t.lentOn = r, t.pool
}

// returnLent gives back the memo text the session's reply points into,
// if it points into one. Only a request on the same loop does: the count
// is the loop's alone, and one left up merely costs the memo a new text.
func (t *directTransport) returnLent(pool *wirePool) {
	if t.lent != nil && t.lentOn == pool {
		t.lent.lent--
	}
	t.lent, t.lentOn = nil, nil
}

// feed compares p, the next bytes of the body, and returns how many of
// them matched; fewer than len(p) turns the comparison off.
func (m *bodyMatch) feed(p []byte) int {
	k := 0
	for k < len(p) {
		if m.part == len(m.want) {
			m.on = false // longer than predicted
			return k
		}
		w := m.want[m.part][m.at:]
		n := min(len(w), len(p)-k)
		if !bytes.Equal(p[k:k+n], w[:n]) {
			m.on = false
			return k
		}
		k, m.at, m.fed = k+n, m.at+n, m.fed+n
		for m.part < len(m.want) && m.at == len(m.want[m.part]) {
			m.part, m.at = m.part+1, 0
		}
	}
	return k
}

// appendFed appends the body bytes compared so far: the prediction up to
// where the comparison is.
func (m *bodyMatch) appendFed(dst []byte) []byte {
	for i := range m.part {
		dst = append(dst, m.want[i]...)
	}
	if m.part < len(m.want) {
		dst = append(dst, m.want[m.part][:m.at]...)
	}
	return dst
}

// complete says the whole prediction was matched.
func (m *bodyMatch) complete() bool { return m.on && m.part == len(m.want) }

// stopMatch turns the comparison off, with the bytes compared so far
// rebuilt in the answer buffer, which it returns.
func (t *directTransport) stopMatch() []byte {
	m := &t.match
	m.on = false
	t.returnLent(t.pool) // lent when the comparison started
	return m.appendFed(t.in[:0])
}

// readData reads the next n bytes of body data from br. While the body
// matches its prediction they are compared in br's buffer; once it does
// not, they are appended to body, which readData returns. It also
// returns how many of the n bytes came.
func (t *directTransport) readData(br *bufio.Reader, body []byte, n int) ([]byte, int, error) {
	got := 0
	for got < n && t.match.on {
		if br.Buffered() == 0 {
			if _, err := br.Peek(1); err != nil { // one read into br's buffer
				return body, got, err
			}
		}
		p, _ := br.Peek(min(br.Buffered(), n-got))
		if k := t.match.feed(p); k < len(p) {
			body = append(t.stopMatch(), p[k:]...)
		}
		_, _ = br.Discard(len(p)) // buffered: cannot fail
		got += len(p)
	}
	if got == n {
		return body, got, nil
	}
	start := len(body)
	body = slices.Grow(body, n-got)[:start+n-got]
	k, err := io.ReadFull(br, body[start:])
	return body[:start+k], got + k, err
}

// bodyRead is how many body bytes have been read: compared or held.
func (t *directTransport) bodyRead(body []byte) int {
	if t.match.on {
		return t.match.fed
	}
	return len(body)
}

// finishMatch ends the comparison at the end of the body: a complete
// match leaves a.body nil and a.matched set, anything less the body
// rebuilt and read whole in a.body.
func (t *directTransport) finishMatch(a *wireAnswer, body []byte) {
	a.body = body
	if !t.match.on {
		return
	}
	if t.match.complete() {
		a.matched, a.size, a.body = true, t.match.fed, nil
		return
	}
	a.body = t.stopMatch() // shorter than predicted
}
