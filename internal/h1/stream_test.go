package h1

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"net"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// sseServer answers each POST with an SSE stream of one event and closes
// the stream end after it (never, when end is negative). It returns its
// address; it stops when t ends.
func sseServer(t *testing.T, end time.Duration) string {
	t.Helper()
	return sseServerEnds(t, end)
}

// sseServerEnds is sseServer whose n-th stream (counted over all its
// connections) ends ends[n] after its event, the last of ends from there on.
func sseServerEnds(t *testing.T, ends ...time.Duration) string {
	t.Helper()
	var streams atomic.Int32
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	event := "event: message\ndata: {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}\n\n"
	ans := fmt.Sprintf("HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n%x\r\n%s\r\n", len(event), event)
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				r := bufio.NewReader(c)
				for readRequest(r) == nil {
					if _, err := io.WriteString(c, ans); err != nil {
						return
					}
					end := ends[min(int(streams.Add(1))-1, len(ends)-1)]
					if end < 0 {
						_, _ = io.Copy(io.Discard, r) // until the client closes
						return
					}
					time.Sleep(end)
					if _, err := c.Write(lastChunk); err != nil {
						return
					}
				}
			}()
		}
	}()
	return l.Addr().String()
}

// readRequest reads one request's head and body of its Content-Length.
func readRequest(r *bufio.Reader) error {
	length := 0
	for {
		line, err := r.ReadSlice('\n')
		if err != nil {
			return err
		}
		if len(line) <= 2 {
			break
		}
		if name, value, ok := bytes.Cut(line, []byte(":")); ok && bytes.EqualFold(name, hContentLength) {
			length, _ = strconv.Atoi(string(bytes.TrimSpace(value)))
		}
	}
	_, err := r.Discard(length)
	return err
}

// streamTwice sends two requests on p, leaving the first answer's stream
// open at its event as the session does, and returns how long the second
// took to get its connection.
func streamTwice(t *testing.T, p *GoPool) time.Duration {
	t.Helper()
	return streamN(t, p, 2)[0]
}

// streamN sends n requests on p as streamTwice does and returns how long
// each after the first took to get its connection.
func streamN(t *testing.T, p *GoPool, n int) []time.Duration {
	t.Helper()
	var cl Caller
	var took []time.Duration
	for i := range n {
		now := time.Now()
		req := Request{Head: postHead, Body: []byte(`{}`), Deadline: now.Add(5 * time.Second)}
		c, _, err := p.Get(now, req.Deadline)
		if err != nil {
			t.Fatal(err)
		}
		if i > 0 {
			took = append(took, time.Since(now))
		}
		var a Answer
		if err := cl.Do(p, c, &req, &a); err != nil {
			t.Fatal(err)
		}
		if a.Stream == nil {
			t.Fatalf("the answer is not a stream: %+v", a.Head)
		}
		line, err := bufio.NewReader(a.Stream).ReadString('\n')
		if err != nil || line != "event: message\n" {
			t.Fatalf("the stream began %q (%v)", line, err)
		}
		Finish(p, c, &a, StreamLeftOpen, false, now)
	}
	return took
}

// A stream whose end comes after its response leaves its connection to
// the next request, which waits for the end: no second connection. One
// that never ends costs the next request the wait, then a connection of
// its own, and the first is closed.
func TestStreamRestKeepsTheConnection(t *testing.T) {
	defer func(w time.Duration) { RestWait = w }(RestWait)
	RestWait = 100 * time.Millisecond

	p := poolFor(sseServer(t, 20*time.Millisecond), 1)
	defer p.Close()
	took := streamTwice(t, p)
	if d := p.cfg.Dials.Load(); d != 1 {
		t.Errorf("%d dials for two requests on one connection whose stream ended 20 ms after its answer", d)
	}
	if took > RestWait {
		t.Errorf("the second request waited %v for an end 20 ms away", took)
	}

	p = poolFor(sseServer(t, -1), 1)
	defer p.Close()
	took = streamTwice(t, p)
	if d := p.cfg.Dials.Load(); d != 2 {
		t.Errorf("%d dials with a stream that never ends, want 2", d)
	}
	if took < RestWait || took > RestWait+time.Second {
		t.Errorf("the second request waited %v for a stream that never ends, want about %v", took, RestWait)
	}
}

// A server that holds every stream open is not waited for once it has
// shown it: after heldInARow waits in vain, each request dials at once, as
// it did before streams were waited for, so such a server is not slowed
// by a wait per request.
func TestHeldStreamsStopTheWait(t *testing.T) {
	defer func(w time.Duration) { RestWait = w }(RestWait)
	RestWait = 100 * time.Millisecond

	p := poolFor(sseServer(t, -1), 1)
	defer p.Close()
	n := heldInARow + 3
	took := streamN(t, p, n)
	for i, d := range took {
		waited := i < heldInARow
		if waited && d < RestWait || !waited && d > RestWait/2 {
			t.Errorf("request %d took %v for its connection (waits expected for the first %d): %v", i+2, d, heldInARow, took)
		}
	}
	if d := p.cfg.Dials.Load(); d != int64(n) {
		t.Errorf("%d dials for %d requests whose streams never end", d, n)
	}
}

// chunkStream reads the data of a chunked body across chunk boundaries,
// extensions and trailers, stops at its end with the next answer's bytes
// left unread, and fails for good on broken framing.
func TestChunkStream(t *testing.T) {
	cases := []struct {
		name, wire, want, left string
		broken                 bool
	}{
		{"one chunk", "5\r\nhello\r\n0\r\n\r\nNEXT", "hello", "NEXT", false},
		{"event split across chunks", "3\r\nev:\r\n4;x=y\r\n a\n\n\r\n0\r\nTrailer: t\r\n\r\n", "ev: a\n\n", "", false},
		{"upper-case size", "A\r\n0123456789\r\n0\r\n\r\n", "0123456789", "", false},
		{"no CRLF after the data", "2\r\nabX\r\n0\r\n\r\n", "ab", "", true},
		{"not a size", "zz\r\nab\r\n0\r\n\r\n", "", "", true},
		{"cut short", "5\r\nhel", "hel", "", true},
		{"cut between chunks", "2\r\nab\r\n", "ab", "", true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			br := bufio.NewReaderSize(bytes.NewReader([]byte(tc.wire)), 16)
			var s chunkStream
			got, err := io.ReadAll(iotestOneByte{s.start(&Conn{br: br})})
			if string(got) != tc.want || (err != nil) != tc.broken {
				t.Fatalf("read %q, %v; want %q, broken %v", got, err, tc.want, tc.broken)
			}
			if !tc.broken {
				rest, _ := io.ReadAll(br)
				if string(rest) != tc.left {
					t.Errorf("left %q, want %q", rest, tc.left)
				}
			}
			if n, again := s.Read(make([]byte, 4)); n != 0 || again == nil {
				t.Errorf("a read after the end gave %d, %v", n, again)
			}
		})
	}
}

// iotestOneByte reads through r a byte at a time, as a caller with a
// small buffer would.
type iotestOneByte struct{ r io.Reader }

func (o iotestOneByte) Read(p []byte) (int, error) { return o.r.Read(p[:min(len(p), 1)]) }

// A stream's rest is drained in place to its end, with the next answer's
// bytes left unread, whether some of it was read first or none; broken
// framing, a cut and data past the bound are no end.
func TestChunkStreamDrain(t *testing.T) {
	cases := []struct {
		name, wire, left string
		limit, readFirst int
		ended            bool
	}{
		{"last chunk only", "0\r\n\r\nNEXT", "NEXT", 100, 0, true},
		{"chunks and trailers", "3\r\nev:\r\n4;x=y\r\n a\n\n\r\n0\r\nTrailer: t\r\n\r\nNEXT", "NEXT", 100, 2, true},
		{"past a chunk larger than the buffer", "20\r\n" + strings.Repeat("d", 32) + "\r\n0\r\n\r\nN", "N", 100, 1, true},
		{"data up to the bound", "5\r\nhello\r\n0\r\n\r\n", "", 5, 0, true},
		{"data past the bound", "5\r\nhello\r\n3\r\nabc\r\n0\r\n\r\n", "", 7, 0, false},
		{"broken framing", "2\r\nabX\r\n0\r\n\r\n", "", 100, 0, false},
		{"cut short", "5\r\nhel", "", 100, 1, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			br := bufio.NewReaderSize(iotestOneByte{bytes.NewReader([]byte(tc.wire))}, 16)
			var s chunkStream
			r := s.start(&Conn{br: br})
			if tc.readFirst > 0 {
				if _, err := io.ReadFull(r, make([]byte, tc.readFirst)); err != nil {
					t.Fatal(err)
				}
			}
			if ended := s.drain(tc.limit); ended != tc.ended {
				t.Fatalf("drained to the end: %v, want %v", ended, tc.ended)
			}
			if tc.ended {
				if rest, _ := io.ReadAll(br); string(rest) != tc.left {
					t.Errorf("left %q, want %q", rest, tc.left)
				}
				if !ReadToEnd(r) {
					t.Error("a drained stream does not read as ended")
				}
			}
		})
	}
}

// BenchmarkStreamRest is what the next request pays to read the rest of
// an SSE answer left on its connection, the last chunk, once it has come:
// "in place" as the engine reads its own streams, "copied" through
// io.Copy to io.Discard, as it reads any other stream (and read its own
// before).
func BenchmarkStreamRest(b *testing.B) {
	rest := bytes.NewReader(lastChunk)
	br := bufio.NewReaderSize(rest, ReadBuffer)
	for _, bc := range []struct {
		name string
		wrap func(io.Reader) io.Reader
	}{
		{"in place", func(r io.Reader) io.Reader { return r }},
		{"copied", func(r io.Reader) io.Reader { return struct{ io.Reader }{r} }},
	} {
		b.Run(bc.name, func(b *testing.B) {
			var s chunkStream
			c := &Conn{br: br}
			b.ReportAllocs()
			for b.Loop() {
				rest.Reset(lastChunk)
				br.Reset(rest)
				if !ReadToEnd(bc.wrap(s.start(c))) {
					b.Fatal("the stream did not end")
				}
			}
		})
	}
}

// Once the server has been seen to end a stream after its response, a
// late end is waited for (LateEndWait) rather than given up at RestWait:
// a busy server's ends come late, and a connection dialled for each was
// twice the connections at a run's start on a loaded machine.
func TestLateEndsAreWaitedForOnceEndsAreSeen(t *testing.T) {
	defer func(w time.Duration) { RestWait = w }(RestWait)
	RestWait = 20 * time.Millisecond
	late := 150 * time.Millisecond
	// Before any end is seen a late one is given up at RestWait.
	p := poolFor(sseServer(t, late), 1)
	defer p.Close()
	if took := streamN(t, p, 2); p.cfg.Dials.Load() != 2 || took[0] > late {
		t.Fatalf("%d dials, the second request waited %v, want 2 and about %v", p.cfg.Dials.Load(), took[0], RestWait)
	}
	// The first stream ends at once, the others late.
	p = poolFor(sseServerEnds(t, 0, late), 1)
	defer p.Close()
	took := streamN(t, p, 5)
	if d := p.cfg.Dials.Load(); d != 1 {
		t.Errorf("%d dials for 5 requests, want 1: late ends were not waited for (waits %v)", d, took)
	}
	if took[len(took)-1] < late/2 {
		t.Errorf("the last request waited %v for an end %v away", took[len(took)-1], late)
	}
}
