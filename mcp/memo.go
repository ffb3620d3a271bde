package mcp

import "bytes"

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
	text  []byte
	id    span
	found [4]span
	inner [numResultKeys]span
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
		m.text = m.text[:0]
		return
	}
	m.text = append(m.text[:0], b...)
	m.id = offset(b, found[0])
	for i, f := range found {
		m.found[i] = offset(b, f)
	}
	for i, f := range inner {
		m.inner[i] = offset(b, f)
	}
}

// recall fills found and inner for b from the remembered answer when b is
// it with another id, and reports whether it could.
func (m *parseMemo) recall(b []byte, found *[4][]byte, inner *[numResultKeys][]byte) bool {
	t := m.text
	if len(t) == 0 || len(b) < m.id.from || !bytes.Equal(b[:m.id.from], t[:m.id.from]) {
		return false
	}
	end, err := skipValue(b, m.id.from, 1)
	if err != nil {
		return false
	}
	if !bytes.Equal(b[end:], t[m.id.to:]) {
		return false
	}
	shift := end - m.id.to
	at := func(s span) []byte {
		switch {
		case s.from < 0:
			return nil
		case s.from >= m.id.to:
			return b[s.from+shift : s.to+shift : s.to+shift]
		}
		return b[s.from:s.to:s.to]
	}
	found[0] = b[m.id.from:end:end]
	for i := 1; i < len(found); i++ {
		found[i] = at(m.found[i])
	}
	for i := range inner {
		inner[i] = at(m.inner[i])
	}
	return true
}
