package mcp

import (
	"bufio"
	"bytes"
	"context"
	"net"
	"runtime"
	"strconv"
	"testing"
	"time"
)

// rawServer is a keep-alive HTTP/1.1 responder that allocates nothing per
// request, so allocation counts taken in this process are the client's.
// It answers every POST with a JSON-RPC result carrying the request's id
// (the number our bodies end with).
func rawServer(t testing.TB) string {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			go serveRaw(c)
		}
	}()
	return "http://" + l.Addr().String() + "/mcp"
}

func serveRaw(c net.Conn) {
	defer c.Close()
	r := bufio.NewReaderSize(c, 16<<10)
	body := make([]byte, 0, 4096)
	out := make([]byte, 0, 4096)
	discover := []byte("server/discover")
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
			if len(line) > 16 && bytes.EqualFold(line[:15], []byte("Content-Length:")) {
				length, _ = strconv.Atoi(string(bytes.TrimSpace(line[15:])))
			}
		}
		body = body[:length]
		if _, err := readFull(r, body); err != nil {
			return
		}
		end := len(body) - 1
		start := end
		for start > 0 && body[start-1] >= '0' && body[start-1] <= '9' {
			start--
		}
		payload := `{"jsonrpc":"2.0","id":`
		res := `,"result":{"tools":[{"name":"echo","inputSchema":{"type":"object"}}]}}`
		if bytes.Contains(body, discover) {
			res = `,"result":{"supportedVersions":["2026-07-28"],"capabilities":{}}}`
		}
		n := len(payload) + (end - start) + len(res)
		out = append(out[:0], "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: "...)
		out = strconv.AppendInt(out, int64(n), 10)
		out = append(out, "\r\n\r\n"...)
		out = append(out, payload...)
		out = append(out, body[start:end]...)
		out = append(out, res...)
		if _, err := c.Write(out); err != nil {
			return
		}
	}
}

func readFull(r *bufio.Reader, b []byte) (int, error) {
	n := 0
	for n < len(b) {
		m, err := r.Read(b[n:])
		n += m
		if err != nil {
			return n, err
		}
	}
	return n, nil
}

// rawSession is a client of engine on url (a rawServer) with one session
// and a prepared tools/list; the client closes when the test ends.
func rawSession(tb testing.TB, url string, engine Engine) (*Client, *Session, *Prepared) {
	tb.Helper()
	c, s := openSession(tb, Options{URL: url, Engine: engine})
	p, err := s.Prepare(Request{Method: "tools/list"})
	if err != nil {
		tb.Fatal(err)
	}
	return c, s, p
}

// openSession is a client dialled with o (a 5 s time-out if o has none)
// and one session of it; the client closes when the test ends.
func openSession(tb testing.TB, o Options) (*Client, *Session) {
	tb.Helper()
	ctx := context.Background()
	if o.Timeout == 0 {
		o.Timeout = 5 * time.Second
	}
	c, err := Dial(ctx, o)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { c.Close(ctx) })
	s, err := c.NewSession(ctx)
	if err != nil {
		tb.Fatal(err)
	}
	return c, s
}

// TestHotPathDoesNotAllocate: on the direct engine a measured request
// costs the client no heap allocation at all.
func TestHotPathDoesNotAllocate(t *testing.T) {
	ctx := context.Background()
	c, s, p := rawSession(t, rawServer(t), EngineAuto)
	if c.Engine() != EngineDirect {
		t.Fatalf("engine %s", c.Engine())
	}
	// On Linux the path measured is the stamped one. The kernel turns
	// stamping on through deferred work, so the first answers may come
	// without: a few requests, a second at most, find one that has it.
	stamped := runtime.GOOS != "linux"
	for end := time.Now().Add(time.Second); !stamped && time.Now().Before(end); {
		r := s.Do(ctx, p, "")
		if r.Kind != OK {
			t.Fatal(r.Err)
		}
		stamped = r.Stamp != 0 && !r.SentAt.IsZero()
	}
	if !stamped {
		t.Fatal("no receive stamp or write time within a second of requests")
	}
	allocs := testing.AllocsPerRun(2000, func() {
		if r := s.Do(ctx, p, ""); r.Kind != OK {
			t.Fatal(r.Err)
		}
	})
	if allocs > 0.05 {
		t.Fatalf("%.2f allocations per request", allocs)
	}
}

// BenchmarkClientOnly measures the client's own cost per request against
// a server that allocates nothing.
func BenchmarkClientOnly(b *testing.B) {
	url := rawServer(b)
	ctx := context.Background()
	for _, engine := range []Engine{EngineDirect, EngineNetHTTP} {
		b.Run(string(engine), func(b *testing.B) {
			_, s, p := rawSession(b, url, engine)
			b.ReportAllocs()
			for b.Loop() {
				if r := s.Do(ctx, p, ""); r.Kind != OK {
					b.Fatal(r.Err)
				}
			}
		})
	}
}
