package mcp

import (
	"fmt"
	"hash/maphash"
)

// A listing (tools/list, resources/list, prompts/list...) goes on while pages name a nextCursor. A server
// whose cursors repeat, or grow, would keep a worker paging for ever, each
// page counted as an ordinary request; a session follows its listing's
// cursors and cuts such a listing off with the reason.

const (
	// maxCursorBytes bounds one cursor: real ones are short tokens.
	maxCursorBytes = 16 << 10
	// maxListPages bounds one listing.
	maxListPages = 10000
)

// listing is the state of the session's current tools/list listing: how
// many pages it has had and the cursors they named (hashed, so that a long
// listing costs 8 bytes a page).
type listing struct {
	pages int
	seen  map[uint64]struct{}
	seed  maphash.Seed
}

// follow checks next, the cursor a page of method named, on the page asked
// for with sent ("" for a listing's first page). It returns why the
// listing must end, or nil.
func (l *listing) follow(method, sent, next string) *Error {
	if sent == "" && l.pages > 0 {
		l.pages = 0
		clear(l.seen)
	}
	if next == "" {
		return nil
	}
	if l.seen == nil {
		l.seen, l.seed = map[uint64]struct{}{}, maphash.MakeSeed()
	}
	l.pages++
	h := maphash.String(l.seed, next)
	_, again := l.seen[h]
	var msg string
	switch {
	case len(next) > maxCursorBytes:
		msg = fmt.Sprintf("%s: nextCursor is %d bytes long on page %d, past the bound of %d: a cursor that grows without end", method, len(next), l.pages, maxCursorBytes)
	case again || next == sent:
		msg = fmt.Sprintf("%s: nextCursor %q on page %d repeats a cursor of this listing: it would never end", method, clip([]byte(next)), l.pages)
	case l.pages >= maxListPages:
		msg = fmt.Sprintf("%s: still a nextCursor after %d pages: a listing that never ends", method, l.pages)
	default:
		l.seen[h] = struct{}{}
		return nil
	}
	l.pages = 0
	clear(l.seen)
	return &Error{Kind: KindTransport, Msg: msg}
}
