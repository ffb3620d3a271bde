package mcp

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net"
	"testing"
	"testing/iotest"
)

// fuzzEventLimit is small so that the fuzzer reaches the size checks.
const fuzzEventLimit = 512

// sseEvents parses a whole stream and returns its events and the error that
// ended it; it fails when the parser returns too much or does not stop.
func sseEvents(t *testing.T, r io.Reader, size int) ([][]byte, error) {
	s := newSSEReader(fuzzEventLimit)
	s.reset(r)
	var events [][]byte
	// Every event needs at least one byte ("data" and a blank line), so
	// more events than bytes means the parser is not consuming input.
	for range size + 2 {
		data, err := s.next()
		if err != nil {
			if s.read > int64(size) {
				t.Fatalf("read %d bytes of a %d-byte stream", s.read, size)
			}
			return events, err
		}
		if len(data) > fuzzEventLimit {
			t.Fatalf("event of %d bytes, limit %d", len(data), fuzzEventLimit)
		}
		events = append(events, bytes.Clone(data))
	}
	t.Fatalf("more than %d events from %d bytes: the parser does not terminate", size+1, size)
	return nil, nil
}

// FuzzSSEReader: any byte stream parses without a panic, no event exceeds
// the limit, parsing ends, and the events do not depend on how the network
// cut the stream into reads.
func FuzzSSEReader(f *testing.F) {
	for _, s := range []string{
		"event: message\ndata: {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}\n\n",
		"id: 7\nretry: 100\ndata:\n\n",
		"data: a\r\ndata: b\r\n\r\n",
		"data: a\rdata: b\r\r",
		": keep-alive\n\ndata: x",
		"data: cut off before the blank line",
		"retry: 99999999999\nid: a\x00b\ndata\n\n",
		"data: " + string(bytes.Repeat([]byte("x"), fuzzEventLimit+1)) + "\n\n",
		"data: a\ndata: b\ndata: c\n\nevent: ping\n\n",
		"\r\r\r\n\n\ndata:\r",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, stream []byte) {
		whole, errWhole := sseEvents(t, bytes.NewReader(stream), len(stream))
		bytewise, errBytes := sseEvents(t, iotest.OneByteReader(bytes.NewReader(stream)), len(stream))
		if len(whole) != len(bytewise) {
			t.Fatalf("%d events read whole, %d read byte by byte", len(whole), len(bytewise))
		}
		for i := range whole {
			if !bytes.Equal(whole[i], bytewise[i]) {
				t.Fatalf("event %d: %q whole, %q byte by byte", i, whole[i], bytewise[i])
			}
		}
		if (errWhole == io.EOF) != (errBytes == io.EOF) || errors.Is(errWhole, errEventTooLarge) != errors.Is(errBytes, errEventTooLarge) {
			t.Fatalf("stream ended with %v whole, %v byte by byte", errWhole, errBytes)
		}
	})
}

// fuzzSession is a session on a client that never dials: enough for the
// read and classify steps, which only look at bytes.
func fuzzSession(t *testing.T) (*Session, []*Prepared) {
	c := &Client{maxBody: 4 << 10, opts: Options{Timeout: 1}, link: &fakeLink{}}
	s := c.newSession()
	var ps []*Prepared
	for _, req := range []Request{
		{Method: "tools/call", Tool: "echo", Arguments: []byte(`{"message":"hi"}`)},
		{Method: "tools/list"},
		{Method: "ping"},
	} {
		p, err := s.Prepare(req)
		if err != nil {
			t.Fatal(err)
		}
		ps = append(ps, p)
	}
	return s, ps
}

// outcome mirrors Session.do after the exchange: an error's kind, a missing
// answer, or the classification of the answer.
func outcome(s *Session, p *Prepared, found bool, err error) Result {
	var res Result
	switch {
	case err != nil:
		res.Kind, res.Err = KindOf(err), err
		if res.Kind == OK {
			res.Kind = KindTransport
		}
	case !found:
		res.Kind = KindTransport
		res.Err = &Error{Kind: KindTransport, Msg: "stream ended without the response"}
	default:
		s.classify(p, &res, "")
	}
	return res
}

func checkOutcome(t *testing.T, how string, res Result) {
	t.Helper()
	if res.Kind >= NumKinds {
		t.Fatalf("%s: kind %d out of range", how, res.Kind)
	}
	if (res.Kind == OK) != (res.Err == nil) {
		t.Fatalf("%s: kind %s with error %v", how, res.Kind, res.Err)
	}
	if res.Err != nil && KindOf(res.Err) != res.Kind {
		t.Fatalf("%s: kind %s, but the error says %s: %v", how, res.Kind, KindOf(res.Err), res.Err)
	}
	// An answer to a request is never a time-out or a connection failure:
	// those come from the network, not from bytes.
	if res.Kind == KindConnect || res.Kind == KindTimeout || res.Kind == KindHTTPStatus || res.Kind == KindSessionExpired {
		t.Fatalf("%s: bytes alone classified as %s: %v", how, res.Kind, res.Err)
	}
}

// FuzzClassify: any answer body, read as JSON or as an SSE stream for
// request id 7, gets exactly one kind, consistent with its error.
func FuzzClassify(f *testing.F) {
	for _, s := range []string{
		`{"jsonrpc":"2.0","id":7,"result":{"content":[],"structuredContent":{"message":"hi"}}}`,
		`{"jsonrpc":"2.0","id":"7","result":{"isError":true,"content":[]}}`,
		`{"jsonrpc":"2.0","id":7,"error":{"code":-32603,"message":"boom","data":{"x":1}}}`,
		`{"jsonrpc":"2.0","id":8,"result":{}}`,
		`{"jsonrpc":"2.0","id":7,"result":{"tools":[],"nextCursor":"abc"}}`,
		`{"jsonrpc":"2.0","id":7,"result":{"tools":[],"nextCursor":12}}`,
		`{"jsonrpc":"2.0","id":7,"result":null,"error":null}`,
		`{"jsonrpc":"2.0","id":7,"result":{"tools":[{"name":"tool_000",,"inputSchema":{"type":`,
		"event: message\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\"}\n\n" +
			"event: message\ndata: {\"jsonrpc\":\"2.0\",\"id\":7,\"result\":{}}\n\n",
		"event: message\ndata: {\"jsonrpc\":\"2.0\",\"id\":7,\"result\":{\"con",
		"id: 1\ndata:\n\ndata: {\"jsonrpc\":\"2.0\",\"id\":7,\"result\":{\"isError\":false}}\n\n",
		`[]`, `null`, ``,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		s, ps := fuzzSession(t)
		for _, p := range ps {
			var res Result
			found, err := s.readJSON(bytes.NewReader(body), 7, &res)
			got := outcome(s, p, found, err)
			checkOutcome(t, "JSON "+p.Method(), got)
			if res.Received > int64(len(body)) {
				t.Fatalf("received %d of %d bytes", res.Received, len(body))
			}
			res = Result{}
			found, err = s.readSSE(context.Background(), bytes.NewReader(body), 7, &res)
			checkOutcome(t, "SSE "+p.Method(), outcome(s, p, found, err))
			if res.Received > int64(len(body)) {
				t.Fatalf("received %d of %d bytes", res.Received, len(body))
			}
		}
	})
}

// FuzzParseMemo: an answer recalled from the last one (the same bytes but
// for the id) parses to exactly what a full scan of it gives, and is
// rejected exactly when a full scan rejects it.
func FuzzParseMemo(f *testing.F) {
	f.Add([]byte(toolsListAnswer), []byte(`12`))
	f.Add([]byte(`{"jsonrpc":"2.0","id":7,"result":{"content":[],"isError":false,"structuredContent":{"a":1}}}`), []byte(`"x"`))
	f.Add([]byte(` {"result":{"nextCursor":"c"},"id":1 } `), []byte(`{}`))
	f.Add([]byte(`{"id":1,"id":2,"error":{"code":1,"message":"m"}}`), []byte(`3,"id":4`))
	f.Add([]byte(`{"id":1}`), []byte(`1}`))
	f.Fuzz(func(t *testing.T, first, id []byte) {
		var warm reply
		if warm.parse(first) != nil || warm.ID == nil {
			return
		}
		from := cap(first) - cap(warm.ID)
		second := append(append(append([]byte{}, first[:from]...), id...), first[from+len(warm.ID):]...)
		var fresh reply
		errFresh := fresh.parse(second)
		errWarm := warm.parse(second)
		if (errFresh == nil) != (errWarm == nil) {
			t.Fatalf("%q: full scan says %v, recalled says %v", second, errFresh, errWarm)
		}
		if errFresh != nil {
			return
		}
		for i := range fresh.found {
			if !bytes.Equal(fresh.found[i], warm.found[i]) || (fresh.found[i] == nil) != (warm.found[i] == nil) {
				t.Fatalf("%q: member %d: %q, recalled %q", second, i, fresh.found[i], warm.found[i])
			}
		}
		for i := range fresh.inResult {
			if !bytes.Equal(fresh.inResult[i], warm.inResult[i]) || (fresh.inResult[i] == nil) != (warm.inResult[i] == nil) {
				t.Fatalf("%q: result member %d: %q, recalled %q", second, i, fresh.inResult[i], warm.inResult[i])
			}
		}
	})
}

// readerConn is a connection that only reads, from r.
type readerConn struct {
	net.Conn
	r io.Reader
}

func (c readerConn) Read(p []byte) (int, error) { return c.r.Read(p) }
