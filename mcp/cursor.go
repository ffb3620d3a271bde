package mcp

import (
	"fmt"
	"hash/maphash"
)

// A tools/list listing goes on while pages name a nextCursor. A server
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

// follow checks next, the cursor a page named, on the page asked for with
// sent ("" for a listing's first page). It returns why the listing must
// end, or nil.
func (l *listing) follow(sent, next string) *Error {
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
		msg = fmt.Sprintf("tools/list: nextCursor is %d bytes long on page %d, past the bound of %d: a cursor that grows without end", len(next), l.pages, maxCursorBytes)
	case again || next == sent:
		msg = fmt.Sprintf("tools/list: nextCursor %q on page %d repeats a cursor of this listing: it would never end", clip([]byte(next)), l.pages)
	case l.pages >= maxListPages:
		msg = fmt.Sprintf("tools/list: still a nextCursor after %d pages: a listing that never ends", l.pages)
	default:
		l.seen[h] = struct{}{}
		return nil
	}
	l.pages = 0
	clear(l.seen)
	return &Error{Kind: KindTransport, Msg: msg}
}
