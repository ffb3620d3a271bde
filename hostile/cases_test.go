package hostile

import "regexp"

// maxFreshLosses is how many sessions in a row mcpbench lets a server
// lose straight after initialize before it stops renewing.
const maxFreshLosses = 3

// expect is what mcpbench must make of one case.
type expect struct {
	name string
	// kind is the error kind every failed request must land in ("" when
	// none may fail); okToo allows some requests to succeed beside it.
	kind  string
	okToo bool
	// mayNot: the failures may not happen at all (a race the client
	// may win, as with an answer sent twice).
	mayNot bool
	// dialFails: the server never gets as far as the load (exit 3).
	dialFails bool
	// example is what the kind's example (or, for dialFails, the one line
	// on stderr) must say about what the server did.
	example *regexp.Regexp
	// n and sweepN are the requests of the run and of each sweep point:
	// 500 and 100 unless every request takes the whole timeout.
	n, sweepN int
	// perRequest is how many exchanges one measured request may cost:
	// 3 where a lost session is renewed (initialize, its notification,
	// the request).
	perRequest int
	// maxInits, when set, bounds the sessions the run may open on the
	// server: a loop of renewals must be cut off.
	maxInits int64
	// why the outcome is right, for the doc.
	why string
}

func re(s string) *regexp.Regexp { return regexp.MustCompile(s) }

// slowN is -n for cases where each request waits out the timeout: two
// rounds of 8 workers for the run, two requests per sweep point.
const slowN, slowSweepN = 16, 2

var expectations = []expect{
	{name: "baseline", why: "every request answered"},
	{name: "sse-keepalive-forever", kind: "timeout", example: re(`text/event-stream.*(0 SSE events|bytes of body came)`), n: slowN, sweepN: slowSweepN, why: "comments are not an answer: each request waits out --timeout"},
	{name: "endless-answer", kind: "transport", example: re(`size limit`), why: "cut off at --max-response-bytes; the connection is dropped, not drained"},
	{name: "2gb-answer", kind: "transport", example: re(`size limit.*Content-Length 2147483648`), why: "refused from its Content-Length before a byte of body is read"},
	{name: "gzip-bomb", kind: "transport", example: re(`(?i)gzip`), why: "mcpbench asks for no compression and inflates nothing: an encoded body is refused as such"},
	{name: "short-body-keepalive", kind: "timeout", example: re(`(?i)100 of 1000|cut short|Content-Length`), n: slowN, sweepN: slowSweepN, why: "the missing 900 bytes never come: each request waits out --timeout"},
	{name: "http10-close-delimited", why: "a body ended by the close is a whole answer; the connection is not reused"},
	{name: "slowloris", kind: "timeout", example: re(`(?i)bytes|slow|arriv`), n: slowN, sweepN: slowSweepN, why: "the answer takes minutes to trickle in: each request waits out --timeout"},
	{name: "wrong-id", kind: "transport", example: re(`does not match`), why: "an answer to no request sent"},
	{name: "id-of-another-type", kind: "transport", example: re(`(?i)string`), why: `JSON-RPC ids keep their type: "7" does not answer 7`},
	{name: "duplicate-answers", kind: "transport", okToo: true, mayNot: true, example: re(`(?i)unasked|earlier|twice|extra|answer id \d+ does not match request id`), why: "the first answer counts; the second, when it is on the connection by the time the next request goes out, is an answer nobody asked for: that request fails and the connection is dropped"},
	{name: "batch-array", kind: "transport", example: re(`(?i)array|batch`), why: "one request has one answer, not a batch"},
	{name: "result-and-error", kind: "transport", example: re(`(?i)both`), why: "JSON-RPC allows one of the two, never both"},
	{name: "invalid-utf8", why: "bytes inside a string the client only passes over; the answer is whole"},
	{name: "nan-number", kind: "transport", example: re(`(?i)malformed|NaN`), why: "NaN is not JSON"},
	{name: "deep-nesting", why: "1,000 levels is deep but within the scanner's bound of 10,000"},
	{name: "cursor-repeats", kind: "transport", okToo: true, example: re(`nextCursor.*(repeat|again)`), why: "the first page is fine; the second names the same cursor again, so the listing would never end"},
	{name: "cursor-grows", kind: "transport", okToo: true, example: re(`nextCursor.*(long|grow|KiB|bytes)`), why: "pages are fine until the cursor passes the bound on its length"},
	{name: "session-id-churn", why: "a session id is fixed by initialize; ids sent with later answers are ignored"},
	{name: "reinitialize-storm", kind: "session_expired", example: re(`(?i)storm|straight after|every session`), perRequest: 3, maxInits: runWorkers*maxFreshLosses + 1, why: "each lost session is renewed until renewals themselves are lost at once; then the worker stops renewing"},
	{name: "redirect-other-port", kind: "http_status", example: re(`302.*(redirect|Location)|(redirect|Location).*302`), why: "redirects are not followed: a load test measures the URL it was given"},
	{name: "429-retry-after", kind: "http_status", example: re(`429.*Retry-After`), why: "counted, not obeyed: backing off would hide the server's limit"},
	{name: "503", kind: "http_status", example: re(`503`), why: "an HTTP error status"},
	{name: "continue-then-nothing", kind: "timeout", example: re(`(?i)100 Continue|no answer|in time`), n: slowN, sweepN: slowSweepN, why: "an interim answer is not an answer: each request waits out --timeout"},
	{name: "1mb-header", kind: "transport", example: re(`(?i)header`), why: "the answer's head is bounded; this one is far past the bound"},
	{name: "10000-headers", kind: "transport", example: re(`(?i)header`), why: "the answer's head is bounded; 10,000 headers are past it"},
	{name: "echo-token-error-message", kind: "jsonrpc", example: re(`may not list tools`), why: "counted as the error it is; the token is masked wherever it is written"},
	{name: "echo-token-sse-event", kind: "jsonrpc", example: re(`bad token`), why: "the notification is passed over, the error counted; the token is masked"},
	{name: "echo-token-location", kind: "http_status", example: re(`302`), why: "not followed; the token is masked"},
	{name: "echo-token-error-data", kind: "jsonrpc", example: re(`unauthorized`), why: "the error's data is not printed; the token is masked wherever it is"},
	{name: "stdio-baseline", why: "every request answered"},
	{name: "stdio-garbage", why: "lines that are not JSON-RPC are passed over, the overlong one too"},
	{name: "stdio-exit-at-once", dialFails: true, example: re(`(?i)exit|closed`), why: "the process is gone before the handshake: exit 3, at once"},
	{name: "stdio-never-answers", dialFails: true, example: re(`(?i)no answer|timeout`), why: "the handshake waits out --timeout: exit 3"},
	{name: "stdio-stderr-flood", why: "stderr is read as it comes, and only its last lines kept"},
	{name: "stdio-ignores-sigterm", why: "stdin closed, then SIGTERM, then SIGKILL: the process is gone when mcpbench exits"},
}
