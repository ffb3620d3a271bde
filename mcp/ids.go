package mcp

import (
	"bytes"
	"fmt"
	"strconv"
)

// Matching an answer to its request. JSON-RPC says the answer's id MUST be
// the request's: the same value of the same type, so the string "7" does
// not answer the request numbered 7.

// sameID reports whether a reply's raw id is the number id.
func sameID(raw []byte, id int64, scratch []byte) bool {
	return bytes.Equal(bytes.TrimSpace(raw), strconv.AppendInt(scratch[:0], id, 10))
}

// idMismatch says how an answer's id fails to be the request's, in the
// words a user needs to see what the server did.
func idMismatch(raw []byte, id int64) *Error {
	raw = bytes.TrimSpace(raw)
	want := strconv.FormatInt(id, 10)
	var msg string
	switch n, err := strconv.ParseInt(string(raw), 10, 64); {
	case len(raw) == 0:
		msg = fmt.Sprintf("the answer has no id (the request's was %d)", id)
	case string(raw) == strconv.Quote(want):
		msg = fmt.Sprintf("answer id %s is a string; the request's id was the number %d", raw, id)
	case err == nil && n > 0 && n < id:
		msg = fmt.Sprintf("answer id %d belongs to an earlier request, not to this one (%d): the server answered it twice, or late", n, id)
	default:
		msg = fmt.Sprintf("answer id %s does not match request id %d", clip(raw), id)
	}
	return &Error{Kind: KindTransport, Msg: msg, stray: true}
}

// malformed describes an answer the scanner refused.
func malformed(where string, data []byte, err error) *Error {
	if b := bytes.TrimSpace(data); len(b) > 0 && b[0] == '[' {
		return &Error{Kind: KindTransport, Msg: "the " + where + " is a JSON array (a batch), not one response"}
	}
	return &Error{Kind: KindTransport, Msg: "malformed JSON in the " + where, Err: err}
}
