package h1

import (
	"bufio"
	"bytes"
	"io"
	"slices"
)

// Most answers on an event loop are predictable to the byte: the last
// answer of the same kind with the new request's id. So a caller may give
// a prediction, and the body is compared with it where it lies in the
// connection's read buffer, piece by piece as it is read, and neither
// copied into the caller's answer buffer nor handed over. When every byte
// matched, the answer says so (Matched) and has no body of its own; at the
// first difference the bytes that matched are rebuilt from the
// prediction, the rest is read as before. Copying and comparing a 10 KB
// answer through buffers that sixty callers take turns with was about a
// sixth of the client's own CPU per request against the Go SDK's server.

// Prediction is the body an answer is expected to have: Before, then ID,
// then After. It is compared only for a success of MediaType and, when
// the answer gives a length, of the predicted length. Hold, when not nil,
// counts the readers of the text Before and After lie in: it is raised
// while the body is compared and stays raised when the body matched whole
// (the caller lowers it when done with the text), so the text's owner
// knows not to write it.
type Prediction struct {
	MediaType string
	Before    []byte
	ID        []byte
	After     []byte
	Hold      *int
}

// bodyMatch is one body's comparison with its prediction.
type bodyMatch struct {
	on   bool
	hold *int
	want [3][]byte
	part int // the part being matched; 3 once all are
	at   int // bytes of want[part] matched
	fed  int // body bytes compared so far
}

// start readies the comparison of a's body with pr, when the answer is
// one pr may predict.
func (m *bodyMatch) start(a *Answer, pr *Prediction) {
	m.on = false
	if pr == nil || a.Status < 200 || a.Status > 299 || !HasMediaType(a.ContentType, pr.MediaType) {
		return
	}
	m.want = [3][]byte{pr.Before, pr.ID, pr.After}
	if a.Length >= 0 && a.Length != len(pr.Before)+len(pr.ID)+len(pr.After) {
		return
	}
	m.on, m.hold, m.part, m.at, m.fed = true, pr.Hold, 0, 0, 0
	if m.hold != nil {
		*m.hold++ // until the answer differs, or the caller is done
	}
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

// stop turns the comparison off and lowers the hold.
func (m *bodyMatch) stop() {
	m.on = false
	if m.hold != nil {
		*m.hold--
		m.hold = nil
	}
}

// stopMatch turns the comparison off, with the bytes compared so far
// rebuilt in the answer buffer, which it returns.
func (cl *Caller) stopMatch() []byte {
	cl.match.stop()
	return cl.match.appendFed(cl.in[:0])
}

// readData reads the next n bytes of body data from br. While the body
// matches its prediction they are compared in br's buffer; once it does
// not, they are appended to body, which readData returns. It also
// returns how many of the n bytes came.
func (cl *Caller) readData(br *bufio.Reader, body []byte, n int) ([]byte, int, error) {
	got := 0
	for got < n && cl.match.on {
		if br.Buffered() == 0 {
			if _, err := br.Peek(1); err != nil { // one read into br's buffer
				return body, got, err
			}
		}
		p, _ := br.Peek(min(br.Buffered(), n-got))
		if k := cl.match.feed(p); k < len(p) {
			body = append(cl.stopMatch(), p[k:]...)
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
func (cl *Caller) bodyRead(body []byte) int {
	if cl.match.on {
		return cl.match.fed
	}
	return len(body)
}

// finishMatch ends the comparison at the end of the body: a complete
// match leaves a.Body nil and a.Matched set, anything less the body
// rebuilt and read whole in a.Body.
func (cl *Caller) finishMatch(a *Answer, body []byte) {
	a.Body = body
	if !cl.match.on {
		return
	}
	if cl.match.complete() {
		a.Matched, a.Size, a.Body = true, cl.match.fed, nil
		cl.match.on, cl.match.hold = false, nil // the caller lowers the hold
		return
	}
	a.Body = cl.stopMatch() // shorter than predicted
}
