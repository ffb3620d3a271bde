package h1

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"net/http/httputil"
	"strconv"
	"testing"

	"github.com/valyala/fasthttp"
)

// A fuzz target for each of the engine's parsers beside FuzzWireAnswer's
// whole answer: the head, chunked framing (whole and streamed), the
// rest of a stream, and the comparison with a prediction. Each runs its
// seed corpus as a plain test in go test; make fuzz runs them for long.

// FuzzParseHead: a head parseHead takes is one fasthttp's header parser
// reads the same: status, framing, length, content type, the kept header
// and the connection's close.
func FuzzParseHead(f *testing.F) {
	f.Add([]byte("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}"))
	f.Add([]byte("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nMcp-Session-Id: abc\r\nConnection: close\r\n\r\n"))
	f.Add([]byte("HTTP/1.1 204 No Content\r\nContent-Length: 0\r\n\r\n"))
	f.Add([]byte("HTTP/1.1 202 Accepted\r\n\r\n"))
	f.Add([]byte("HTTP/1.1 200\r\ncontent-length:3 \r\nX: y\r\n\r\n"))
	f.Add([]byte("HTTP/1.1 200 OK\r\nContent-Length: 2\r\nContent-Length: 3\r\n\r\n"))
	f.Add([]byte("HTTP/1.1 200 OK\r\nContent-Length: 2\r\nTransfer-Encoding: chunked\r\n\r\n"))
	f.Add([]byte("HTTP/1.1 200 OK\nContent-Length: 2\n\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		h, err := peekHead(bufio.NewReaderSize(bytes.NewReader(data), ReadBuffer))
		if err != nil {
			return
		}
		if !bytes.HasPrefix(data, h) || !bytes.HasSuffix(h, crlf2) {
			t.Fatalf("peekHead gave %q, not the input's beginning through a blank line", h)
		}
		var a Answer
		if !parseHead(h, &a, hSession) {
			return
		}
		var fh fasthttp.ResponseHeader
		if fh.Read(bufio.NewReader(bytes.NewReader(h))) != nil {
			return // fasthttp is stricter about this one
		}
		compareHead(t, h, &a, &fh)
	})
}

func compareHead(t *testing.T, h []byte, a *Answer, fh *fasthttp.ResponseHeader) {
	t.Helper()
	flen := fh.ContentLength()
	switch {
	case a.Status != fh.StatusCode():
		t.Fatalf("status %d, fasthttp %d", a.Status, fh.StatusCode())
	case bodiless(a.Status) && (a.Chunked || a.Length != 0):
		t.Fatalf("status %d with a body: chunked %v, length %d", a.Status, a.Chunked, a.Length)
	case !bodiless(a.Status) && a.Chunked != (flen == -1):
		t.Fatalf("chunked %v, fasthttp's length %d", a.Chunked, flen)
	case !bodiless(a.Status) && !a.Chunked && a.Length != flen:
		t.Fatalf("length %d, fasthttp %d", a.Length, flen)
	case a.ContentType != "" && a.ContentType != string(fh.ContentType()):
		t.Fatalf("content type %q, fasthttp %q", a.ContentType, fh.ContentType())
	case a.Kept != string(fh.PeekBytes(hSession)):
		t.Fatalf("session %q, fasthttp %q", a.Kept, fh.PeekBytes(hSession))
	case a.Close != (fh.ConnectionClose() || closeInOtherCase(h)):
		t.Fatalf("close %v, fasthttp %v", a.Close, fh.ConnectionClose())
	}
}

// chunkedSeeds are chunked bodies, some broken, for the chunked targets.
func chunkedSeeds(f *testing.F) {
	f.Add([]byte("2\r\n{}\r\n0\r\n\r\n"), uint8(3))
	f.Add([]byte("1\r\na\r\n1;x=y\r\nb\r\n00\r\n\r\nrest"), uint8(1))
	f.Add([]byte("A\r\n0123456789\r\n0\r\nX-T: y\r\n\r\n"), uint8(0))
	f.Add([]byte("a \r\n0123456789\r\n0\r\n\r\n"), uint8(2))
	f.Add([]byte("2\r\n{}0\r\n\r\n"), uint8(5))
	f.Add([]byte("2\n{}\r\n0\r\n\r\n"), uint8(5))
	f.Add([]byte("fffffffffffffff\r\n"), uint8(7))
	f.Add([]byte("3\r\nab"), uint8(1))
}

// FuzzChunked: the in-place chunked reader and the streamed one
// (chunkStream, an SSE answer's) take the same inputs and give the same
// body, which net/http's chunked reader gives too, and leave the same
// bytes unread; the streamed one's drain agrees with its reads. step
// cuts the input into reads of that many bytes (0: whole).
func FuzzChunked(f *testing.F) {
	chunkedSeeds(f)
	f.Fuzz(checkChunked)
}

func checkChunked(t *testing.T, data []byte, step uint8) {
	{
		const limit = 1 << 16
		var cl Caller
		whole := NewConn(readerConn{r: piecewise(data, step)})
		var a Answer
		err := cl.readChunks(whole.Reader(), &a, limit)
		rest, _ := io.ReadAll(whole.Reader())

		streamed := NewConn(readerConn{r: piecewise(data, step)})
		sbody, serr := io.ReadAll(io.LimitReader(streamed.events.start(streamed), limit+1))
		srest, _ := io.ReadAll(streamed.Reader())
		var tooLarge *TooLarge
		if errors.As(err, &tooLarge) {
			return // the whole reader's bound; the stream has none of its own
		}
		if (err == nil) != (serr == nil) {
			t.Fatalf("in place: %v; streamed: %v", err, serr)
		}
		if err != nil {
			return
		}
		if !bytes.Equal(a.Body, sbody) || !bytes.Equal(rest, srest) {
			t.Fatalf("in place %q, then %q; streamed %q, then %q", a.Body, rest, sbody, srest)
		}
		ref, rerr := io.ReadAll(httputil.NewChunkedReader(bytes.NewReader(data)))
		if rerr == nil && !bytes.Equal(ref, a.Body) {
			t.Fatalf("body %q, net/http's chunked reader %q", a.Body, ref)
		}
		drained := NewConn(readerConn{r: piecewise(data, step)})
		s := drained.events.start(drained).(*chunkStream)
		if !s.drain(limit) {
			t.Fatalf("drain failed where reading got %q", sbody)
		}
		if drest, _ := io.ReadAll(drained.Reader()); !bytes.Equal(drest, rest) {
			t.Fatalf("drain left %q, reading %q", drest, rest)
		}
	}
}

// piecewise reads data step bytes at a time (all at once for 0).
func piecewise(data []byte, step uint8) io.Reader {
	if step == 0 {
		return bytes.NewReader(data)
	}
	return &trickle{r: bytes.NewReader(data), step: int(step)}
}

// FuzzStreamEnd: an SSE answer's stream read up to some point, then left:
// endBuffered says its end has come only when it has (reading the rest
// then waits for nothing and reaches it), and ReadToEnd reaches the end
// exactly when the framing is whole.
func FuzzStreamEnd(f *testing.F) {
	f.Add([]byte("7\r\ndata: x\r\n0\r\n\r\n"), uint8(9), uint8(0))
	f.Add([]byte("7\r\ndata: x\r\n"), uint8(7), uint8(3))
	f.Add([]byte("3\r\nabc\r\n0\r\n\r\nHTTP/1.1"), uint8(3), uint8(0))
	f.Add([]byte("3\r\nabc\r\n0\r\nT: 1\r\n\r\n"), uint8(1), uint8(1))
	f.Fuzz(func(t *testing.T, body []byte, upto, step uint8) {
		head := "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n"
		data := append([]byte(head), body...)
		c := NewConn(readerConn{r: piecewise(data, step)})
		var cl Caller
		var a Answer
		if err := cl.Read(NewPool(Config{Size: 1, MaxBody: 1 << 16}), c, &Request{}, &a); err != nil || a.Stream == nil {
			t.Fatalf("a chunked SSE head: %v, stream %v", err, a.Stream)
		}
		got, err := io.ReadAll(io.LimitReader(a.Stream, int64(upto)))
		if err != nil {
			return
		}
		ended := endBuffered(c, &a)
		reached := ReadToEnd(a.Stream)
		if ended && !reached {
			t.Fatalf("endBuffered after %q, but the rest did not end", got)
		}
		ref, rerr := io.ReadAll(httputil.NewChunkedReader(bytes.NewReader(body)))
		if reached && rerr != nil {
			t.Fatalf("the stream ended where net/http's chunked reader fails: %v", rerr)
		}
		if reached && !bytes.HasPrefix(ref, got) {
			t.Fatalf("read %q, net/http's reader %q", got, ref)
		}
	})
}

// FuzzBodyMatch: an answer compared with a prediction as it is read, in
// pieces of any size, is Matched exactly when its body is the prediction
// (and not empty),
// and otherwise has its body whole; the prediction's hold is up after a
// match (for the caller to lower) and down otherwise.
func FuzzBodyMatch(f *testing.F) {
	f.Add([]byte(`{"id":7,"result":{}}`), 6, 7, uint8(0), false)
	f.Add([]byte(`{"id":7,"result":{}}`), 6, 7, uint8(1), true)
	f.Add([]byte(`{"id":12,"result":{}}`), 6, 7, uint8(2), false)
	f.Add([]byte(`{"id":7,"result":{"a":1}}`), 6, 7, uint8(3), true)
	f.Add([]byte(``), 0, 0, uint8(0), false)
	f.Fuzz(func(t *testing.T, body []byte, from, to int, step uint8, chunked bool) {
		// The prediction is the body with the id between from and to as
		// predicted, and differs from it where the fuzzer made it differ.
		pred := bytes.Clone(body)
		from, to = clampSpan(from, to, len(pred))
		if step%5 == 4 && len(pred) > 0 {
			pred[int(step)%len(pred)] ^= 1
		}
		hold := 0
		pr := &Prediction{MediaType: "application/json", Before: pred[:from], ID: pred[from:to], After: pred[to:], Hold: &hold}
		data := matchAnswer(body, chunked)
		c := NewConn(readerConn{r: piecewise(data, step)})
		var cl Caller
		var a Answer
		if err := cl.Read(NewPool(Config{Size: 1, MaxBody: 1 << 16}), c, &Request{Predict: pr}, &a); err != nil {
			t.Fatal(err)
		}
		// (An empty body is never matched, and needs not be: a
		// prediction is a JSON answer's text, never empty.)
		same := bytes.Equal(body, pred) && len(body) > 0
		switch {
		case a.Matched != same:
			t.Fatalf("matched %v for a body %q and a prediction %q", a.Matched, body, pred)
		case a.Matched && (a.Body != nil || a.Size != len(body) || hold != 1):
			t.Fatalf("a match with body %q, size %d, hold %d", a.Body, a.Size, hold)
		case !a.Matched && (!bytes.Equal(a.Body, body) || hold != 0):
			t.Fatalf("body %q for %q, hold %d", a.Body, body, hold)
		}
	})
}

func clampSpan(from, to, n int) (int, int) {
	from = min(max(from, 0), n)
	to = min(max(to, from), n)
	return from, to
}

// matchAnswer is a JSON answer carrying body, with a length or in
// chunks of growing size.
func matchAnswer(body []byte, chunked bool) []byte {
	head := "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"
	if !chunked {
		return append([]byte(head+"Content-Length: "+strconv.Itoa(len(body))+"\r\n\r\n"), body...)
	}
	out := []byte(head + "Transfer-Encoding: chunked\r\n\r\n")
	for n := 1; len(body) > 0; n++ {
		k := min(n, len(body))
		out = append(out, strconv.FormatInt(int64(k), 16)+"\r\n"...)
		out = append(append(out, body[:k]...), "\r\n"...)
		body = body[k:]
	}
	return append(out, "0\r\n\r\n"...)
}
