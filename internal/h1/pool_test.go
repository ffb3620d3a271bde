package h1

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"net"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcpbench/mcpbench/internal/evloop"
)

// fixedServer answers every POST on its connections with body, as JSON of
// a Content-Length, and returns its address; it stops when tb ends.
func fixedServer(tb testing.TB, body string) string {
	tb.Helper()
	return answerServer(tb, withLength(body))
}

// answerServer answers every request on its connections with ans, whole
// as given, and returns its address; it stops when tb ends.
func answerServer(tb testing.TB, answer string) string {
	tb.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { l.Close() })
	ans := []byte(answer)
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			go answerEach(c, ans)
		}
	}()
	return l.Addr().String()
}

// answerEach reads requests on c (a head, then a body of its
// Content-Length) and writes ans after each.
func answerEach(c net.Conn, ans []byte) {
	defer c.Close()
	r := bufio.NewReader(c)
	for {
		length := 0
		for {
			line, err := r.ReadSlice('\n')
			if err != nil {
				return
			}
			if len(line) <= 2 {
				break
			}
			if name, value, ok := bytes.Cut(line, []byte(":")); ok && bytes.EqualFold(name, hContentLength) {
				length, _ = strconv.Atoi(string(bytes.TrimSpace(value)))
			}
		}
		if _, err := r.Discard(length); err != nil {
			return
		}
		if _, err := c.Write(ans); err != nil {
			return
		}
	}
}

var postHead = []byte("POST /mcp HTTP/1.1\r\nHost: h\r\nContent-Type: application/json\r\nContent-Length: ")

func poolFor(addr string, size int) *GoPool {
	return NewPool(Config{Addr: addr, Size: size, MaxBody: 1 << 20, Dials: new(atomic.Int64)})
}

// roundTrip sends one request on a connection of p and gives it back.
func roundTrip(cl *Caller, p Pool, req *Request) (Answer, error) {
	now := time.Now()
	req.Deadline = now.Add(5 * time.Second)
	c, _, err := p.Get(now, req.Deadline)
	if err != nil {
		return Answer{}, err
	}
	var a Answer
	err = cl.Do(p, c, req, &a)
	c.Used(now)
	p.Put(c, err == nil && !a.Close && c.Buffered() == 0)
	return a, err
}

// Round trips one after another use one connection, read the answer in
// place and allocate nothing; a prediction of the body is matched
// without the body being kept.
func TestGoPoolRoundTrips(t *testing.T) {
	const body = `{"jsonrpc":"2.0","id":1,"result":{}}`
	p := poolFor(fixedServer(t, body), 1)
	defer p.Close()
	var cl Caller
	req := &Request{Head: postHead, Body: []byte(`{"id":1}`)}
	for range 3 {
		a, err := roundTrip(&cl, p, req)
		if err != nil || a.Status != 200 || string(a.Body) != body || a.Size != len(body) {
			t.Fatalf("%v: %d %q", err, a.Status, a.Body)
		}
	}
	if n := p.cfg.Dials.Load(); n != 1 {
		t.Errorf("%d dials for requests one after another", n)
	}
	if n := testing.AllocsPerRun(200, func() { _, _ = roundTrip(&cl, p, req) }); n != 0 {
		t.Errorf("%v allocations per round trip", n)
	}
	hold := 0
	req.Predict = &Prediction{MediaType: "application/json", Before: []byte(`{"jsonrpc":"2.0","id":`), ID: []byte("1"), After: []byte(`,"result":{}}`), Hold: &hold}
	a, err := roundTrip(&cl, p, req)
	if err != nil || !a.Matched || a.Body != nil || a.Size != len(body) || hold != 1 {
		t.Fatalf("%v: matched %v body %q size %d hold %d", err, a.Matched, a.Body, a.Size, hold)
	}
	req.Predict.ID, hold = []byte("2"), 0
	a, err = roundTrip(&cl, p, req)
	if err != nil || a.Matched || string(a.Body) != body || hold != 0 {
		t.Fatalf("%v: another id matched %v, body %q, hold %d", err, a.Matched, a.Body, hold)
	}
}

// A 204 without a Content-Length (how net/http's server answers a
// DELETE) has no body and keeps its connection: taken as a body up to the
// close, each scenario session's DELETE cost it its connection and the
// next session a connect.
// The second answer is one the in-place parser leaves to fasthttp's.
func TestNoContentKeepsTheConnection(t *testing.T) {
	for _, answer := range []string{
		"HTTP/1.1 204 No Content\r\nDate: Thu, 26 Nov 2026 03:43:50 GMT\r\n\r\n",
		"HTTP/1.1 204 No Content\r\nContent-Encoding: gzip\r\n\r\n",
	} {
		p := poolFor(answerServer(t, answer), 1)
		var cl Caller
		req := &Request{Head: postHead, Body: []byte(`{}`)}
		for range 3 {
			a, err := roundTrip(&cl, p, req)
			if err != nil || a.Status != 204 || a.Close || len(a.Body) != 0 {
				t.Fatalf("%q: %v: status %d, close %v, body %q", answer, err, a.Status, a.Close, a.Body)
			}
		}
		if n := p.cfg.Dials.Load(); n != 1 {
			t.Errorf("%q: %d dials for three 204s one after another, want 1", answer, n)
		}
		p.Close()
	}
}

// A pool with every slot taken gives up at the deadline, saying so, and
// a slot given back serves the next request.
func TestGoPoolWaitsForAFreeSlotUntilTheDeadline(t *testing.T) {
	p := poolFor(fixedServer(t, `{}`), 1)
	defer p.Close()
	now := time.Now()
	c, _, err := p.Get(now, now.Add(time.Second))
	if err != nil {
		t.Fatal(err)
	}
	_, waited, err := p.Get(time.Now(), time.Now().Add(50*time.Millisecond))
	if !errors.Is(err, ErrNoFreeConn) || waited < 40*time.Millisecond {
		t.Fatalf("%v after %v, want no free connection after 50ms", err, waited)
	}
	p.Put(c, true)
	c2, _, err := p.Get(time.Now(), time.Now().Add(time.Second))
	if err != nil || c2 != c {
		t.Fatalf("%v: the idle connection was not taken again", err)
	}
	p.Put(c2, true)
}

// A loop connection's read buffer grows to hold the answers it carries,
// so that an answer that has come is read in one call; past the client's
// budget for that growth it is lent per request, as others are, and the
// idle connection holds none.
func TestLoopReadBuffersGrowToTheAnswerWithinBudget(t *testing.T) {
	if !evloop.Available {
		t.Skip("event loops need Linux")
	}
	body := `{"tools":[{"name":"t","description":"` + string(bytes.Repeat([]byte("d"), 20<<10)) + `"}]}`
	addr := fixedServer(t, body)
	for _, budget := range []int64{loopReadBudget, 0} {
		g, err := evloop.NewGroup(1, nil)
		if err != nil {
			t.Fatal(err)
		}
		pools := NewLoopPools(poolFor(addr, 2))
		pools.SetBudget(budget)
		p := pools.For(g.Loop(0))
		g.Go(context.Background(), 0, func(context.Context) {
			var cl Caller
			for range 3 {
				if _, err := roundTrip(&cl, p, &Request{Head: postHead, Body: []byte("{}")}); err != nil {
					t.Errorf("budget %d: %v", budget, err)
					return
				}
			}
		})
		g.Run()
		if len(p.idle) != 1 {
			t.Fatalf("budget %d: %d idle loop connections, want 1", budget, len(p.idle))
		}
		size := 0
		if br := p.idle[0].br; br != nil {
			size = br.Size()
		}
		grew := size > len(body)
		if grew != (budget > 0) || !grew && size != 0 {
			t.Errorf("budget %d: a %d-byte answer left a %d-byte read buffer", budget, len(body), size)
		}
		pools.Close()
		g.Close()
	}
}

// BenchmarkRoundTrip is one POST and its answer on the goroutine pool.
func BenchmarkRoundTrip(b *testing.B) {
	p := poolFor(fixedServer(b, `{"jsonrpc":"2.0","id":1,"result":{"tools":[]}}`), 1)
	defer p.Close()
	var cl Caller
	req := &Request{Head: postHead, Body: []byte(`{"id":1}`)}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := roundTrip(&cl, p, req); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkRoundTripLoop is BenchmarkRoundTrip on an event loop's pool.
func BenchmarkRoundTripLoop(b *testing.B) {
	if !evloop.Available {
		b.Skip("event loops need Linux")
	}
	addr := fixedServer(b, `{"jsonrpc":"2.0","id":1,"result":{"tools":[]}}`)
	g, err := evloop.NewGroup(1, nil)
	if err != nil {
		b.Fatal(err)
	}
	defer g.Close()
	pools := NewLoopPools(poolFor(addr, 1))
	defer pools.Close()
	p := pools.For(g.Loop(0))
	req := &Request{Head: postHead, Body: []byte(`{"id":1}`)}
	b.ReportAllocs()
	b.ResetTimer()
	g.Go(context.Background(), 0, func(context.Context) {
		var cl Caller
		for range b.N {
			if _, err := roundTrip(&cl, p, req); err != nil {
				b.Error(err)
				return
			}
		}
	})
	g.Run()
}
