package mcp

import (
	"bytes"

	"github.com/mcpbench/mcpbench/internal/jsonscan"
)

// A server answers the same request with the same bytes but for the id:
// every tools/list of a run, every tools/call with the same arguments. The
// scanner's pass over such an answer is the largest part of the client's
// own work per request, so a session remembers the last answer it scanned
// and where its members were. An answer that matches it byte for byte
// before and after the id, with a well-formed value where the id was, is
// well-formed too (one JSON value replaced by another), and its members
// are where they were, moved by the change in the id's length.

// memoMax bounds the answer a session keeps: a copy per session, and ten
// thousand sessions must stay affordable.
const memoMax = 16 << 10

// span locates a member's value in the remembered text; from < 0 when the
// member was absent.
type span struct{ from, to int }

type parseMemo struct {
	last *remembered // nil until an answer is remembered
	// spare is the text last had before a held one replaced it, taken
	// again once nothing holds it: a loop whose answers alternate between
	// two kinds, each held by a request in flight, allocates none.
	spare *remembered
}

// remembered is one answer a memo keeps. A session whose answer was
// found equal to it while being read (wire_match.go) points its reply
// into text instead of holding a copy, and lends it until its next
// request: a lent text is never written again, the memo takes a new one.
type remembered struct {
	text  []byte
	id    span
	found [4]span
	inner [numResultKeys]span
	lent  int // replies pointing into text; the loop's tasks only
}

// offset locates sub, a sub-slice of b, in b.
func offset(b, sub []byte) span {
	if sub == nil {
		return span{-1, -1}
	}
	from := cap(b) - cap(sub)
	return span{from, from + len(sub)}
}

// remember keeps b and where members found in it were.
func (m *parseMemo) remember(b []byte, found *[4][]byte, inner *[numResultKeys][]byte) {
	if len(b) > memoMax || found[0] == nil {
		m.forget()
		return
	}
	if m.last == nil || m.last.lent > 0 {
		m.last, m.spare = m.free(), m.last
	}
	r := m.last
	r.text = append(r.text[:0], b...)
	r.id = offset(b, found[0])
	for i, f := range found {
		r.found[i] = offset(b, f)
	}
	for i, f := range inner {
		r.inner[i] = offset(b, f)
	}
}

// free is the spare text when nothing holds it, else a new one.
func (m *parseMemo) free() *remembered {
	if r := m.spare; r != nil && r.lent == 0 {
		return r
	}
	return new(remembered)
}

// forget empties the memo, keeping its buffer for the next answer
// unless a reply points into it.
func (m *parseMemo) forget() {
	if m.last != nil && m.last.lent == 0 {
		m.last.text = m.last.text[:0]
		return
	}
	m.last = nil
}

// text is the remembered answer, empty when there is none.
func (m *parseMemo) text() []byte {
	if m.last == nil {
		return nil
	}
	return m.last.text
}

// recall fills found and inner for b from the remembered answer when b is
// it with another id, and reports whether it could.
func (m *parseMemo) recall(b []byte, found *[4][]byte, inner *[numResultKeys][]byte) bool {
	r := m.last
	if r == nil || len(r.text) == 0 {
		return false
	}
	t := r.text
	if len(b) < r.id.from || !bytes.Equal(b[:r.id.from], t[:r.id.from]) {
		return false
	}
	end, err := jsonscan.SkipValue(b, r.id.from, 1)
	if err != nil {
		return false
	}
	if !bytes.Equal(b[end:], t[r.id.to:]) {
		return false
	}
	shift := end - r.id.to
	at := func(s span) []byte {
		switch {
		case s.from < 0:
			return nil
		case s.from >= r.id.to:
			return b[s.from+shift : s.to+shift : s.to+shift]
		}
		return b[s.from:s.to:s.to]
	}
	found[0] = b[r.id.from:end:end]
	for i := 1; i < len(found); i++ {
		found[i] = at(r.found[i])
	}
	for i := range inner {
		inner[i] = at(r.inner[i])
	}
	return true
}

// fill points the reply's members into r's text, with id as its id: what
// parse would have found in an answer that was r's text with that id.
func (rep *reply) fill(r *remembered, id []byte) {
	at := func(s span) []byte {
		if s.from < 0 {
			return nil
		}
		return r.text[s.from:s.to:s.to]
	}
	rep.found[0] = id
	for i := 1; i < len(rep.found); i++ {
		rep.found[i] = at(r.found[i])
	}
	for i := range rep.inResult {
		rep.inResult[i] = at(r.inner[i])
	}
	rep.settle()
}
