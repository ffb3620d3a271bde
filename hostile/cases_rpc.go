package hostile

import (
	"fmt"
	"strconv"
	"strings"
)

// rpcCases send well-framed HTTP whose JSON-RPC breaks the rules.
var rpcCases = []*Case{
	{Name: "wrong-id", Does: "answers with an id one million above the request's", Handle: withHandshake(wrongID)},
	{Name: "id-of-another-type", Does: `answers the request numbered 7 with the id "7", a string`, Handle: withHandshake(stringID)},
	{Name: "duplicate-answers", Does: "sends every answer twice, as two HTTP responses to one request", Handle: withHandshake(duplicate)},
	{Name: "batch-array", Does: "wraps the answer in a JSON array, as a batch", Handle: withHandshake(batch)},
	{Name: "result-and-error", Does: "an answer with both result and error", Handle: withHandshake(resultAndError)},
	{Name: "invalid-utf8", Does: "a tool name holding bytes that are not UTF-8", Handle: withHandshake(invalidUTF8)},
	{Name: "nan-number", Does: "a result holding NaN, which JSON has no word for", Handle: withHandshake(nanNumber)},
	{Name: "deep-nesting", Does: "a result nested 1,000 levels deep", Handle: withHandshake(deepNesting)},
	{Name: "cursor-repeats", Does: "every tools/list page says nextCursor \"again\"", Handle: withHandshake(cursorRepeats)},
	{Name: "cursor-grows", Does: "every tools/list page's nextCursor is the last one with 1 KiB added", Handle: withHandshake(cursorGrows)},
}

func wrongID(c *conn, r *request) bool {
	id, _ := strconv.ParseInt(string(r.RPC.ID), 10, 64)
	return c.respondJSON(answer(strconv.AppendInt(nil, id+1_000_000, 10), toolsResult))
}

func stringID(c *conn, r *request) bool {
	return c.respondJSON(answer([]byte(strconv.Quote(string(r.RPC.ID))), toolsResult))
}

func duplicate(c *conn, r *request) bool {
	msg := answer(r.RPC.ID, toolsResult)
	return c.respondJSON(msg) && c.respondJSON(msg)
}

func batch(c *conn, r *request) bool {
	return c.respondJSON(fmt.Appendf(nil, "[%s]", answer(r.RPC.ID, toolsResult)))
}

func resultAndError(c *conn, r *request) bool {
	return c.respondJSON(fmt.Appendf(nil, `{"jsonrpc":"2.0","id":%s,"result":%s,"error":{"code":-32000,"message":"both"}}`, r.RPC.ID, toolsResult))
}

func invalidUTF8(c *conn, r *request) bool {
	return c.respondJSON(answer(r.RPC.ID, "{\"tools\":[{\"name\":\"bad\xff\xfe\xc3\",\"inputSchema\":{\"type\":\"object\"}}]}"))
}

func nanNumber(c *conn, r *request) bool {
	return c.respondJSON(answer(r.RPC.ID, `{"tools":[],"load":NaN}`))
}

func deepNesting(c *conn, r *request) bool {
	deep := strings.Repeat("[", 1000) + strings.Repeat("]", 1000)
	return c.respondJSON(answer(r.RPC.ID, `{"tools":[],"deep":`+deep+`}`))
}

func cursorRepeats(c *conn, r *request) bool {
	return c.respondJSON(answer(r.RPC.ID, `{"tools":[],"nextCursor":"again"}`))
}

func cursorGrows(c *conn, r *request) bool {
	next := r.RPC.Params.Cursor + strings.Repeat("x", 1024)
	return c.respondJSON(answer(r.RPC.ID, fmt.Sprintf(`{"tools":[],"nextCursor":%q}`, next)))
}
