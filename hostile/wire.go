package hostile

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// Server is one hostile case listening on 127.0.0.1. Close stops it and
// everything it started: no goroutine or connection outlives it.
type Server struct {
	Case  *Case
	ln    net.Listener
	done  chan struct{}
	wg    sync.WaitGroup
	mu    sync.Mutex
	conns map[net.Conn]bool
	// Counts, for the tests to see what the client did.
	Initializes atomic.Int64
	Requests    atomic.Int64
	sessions    atomic.Int64
	// extra is a second listener some cases point at (the redirect's
	// other port); nil for most.
	extra *Server
}

// conn is one client connection: a buffered reader and the server it
// belongs to.
type conn struct {
	nc  net.Conn
	br  *bufio.Reader
	srv *Server
}

// request is one HTTP request as the server read it, with the JSON-RPC
// message in its body, if any.
type request struct {
	Method string
	Path   string
	Header map[string]string // lower-case names
	Body   []byte
	RPC    rpcMessage
}

// rpcMessage is what the servers need of a JSON-RPC request.
type rpcMessage struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Params struct {
		Cursor string `json:"cursor"`
	} `json:"params"`
}

// isNotification says the message needs no answer.
func (m rpcMessage) isNotification() bool { return len(m.ID) == 0 }

// Start starts the case named name.
func Start(name string) (*Server, error) {
	c := Find(name)
	if c == nil || c.Handle == nil {
		return nil, fmt.Errorf("no HTTP case %q", name)
	}
	s, err := listen(c)
	if err != nil {
		return nil, err
	}
	if c.Extra != nil {
		if s.extra, err = listen(&Case{Name: name + "/extra", Handle: c.Extra}); err != nil {
			s.Close()
			return nil, err
		}
		s.extra.extra = s // each can name the other's port
	}
	return s, nil
}

func listen(c *Case) (*Server, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	s := &Server{Case: c, ln: ln, done: make(chan struct{}), conns: map[net.Conn]bool{}}
	s.wg.Add(1)
	go s.accept()
	return s, nil
}

// URL is the MCP endpoint.
func (s *Server) URL() string { return "http://" + s.ln.Addr().String() + "/mcp" }

// Close stops the server and its twin, closes every connection and waits
// for every handler to return.
func (s *Server) Close() {
	select {
	case <-s.done:
		return
	default:
	}
	close(s.done)
	s.ln.Close()
	s.mu.Lock()
	for nc := range s.conns {
		nc.Close()
	}
	s.mu.Unlock()
	s.wg.Wait()
	if s.extra != nil {
		s.extra.Close()
	}
}

func (s *Server) accept() {
	defer s.wg.Done()
	for {
		nc, err := s.ln.Accept()
		if err != nil {
			return
		}
		s.mu.Lock()
		select {
		case <-s.done:
			s.mu.Unlock()
			nc.Close()
			return
		default:
		}
		s.conns[nc] = true
		s.wg.Add(1)
		s.mu.Unlock()
		go s.serve(nc)
	}
}

// serve reads requests off one connection until the client leaves, the
// case closes it or the server stops.
func (s *Server) serve(nc net.Conn) {
	defer s.wg.Done()
	defer func() {
		nc.Close()
		s.mu.Lock()
		delete(s.conns, nc)
		s.mu.Unlock()
	}()
	c := &conn{nc: nc, br: bufio.NewReader(nc), srv: s}
	for {
		r, err := c.readRequest()
		if err != nil {
			return
		}
		if r.RPC.Method == "initialize" {
			s.Initializes.Add(1)
		} else if r.Method == "POST" && !r.RPC.isNotification() {
			s.Requests.Add(1)
		}
		if !s.Case.Handle(c, r) {
			return
		}
	}
}

// stopped reports whether the server is closing, for loops that would
// otherwise write forever.
func (c *conn) stopped() bool {
	select {
	case <-c.srv.done:
		return true
	default:
		return false
	}
}

// sleep waits d or until the server stops; false means it stopped.
func (c *conn) sleep(d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-c.srv.done:
		return false
	}
}

// hang holds the connection open without a word until the client leaves
// or the server stops.
func (c *conn) hang() bool {
	go func() {
		_, _ = io.Copy(io.Discard, c.br) // returns when either side closes
		c.nc.Close()
	}()
	<-c.srv.done
	return false
}

var errBadRequest = errors.New("bad request")

func (c *conn) readRequest() (*request, error) {
	line, err := c.br.ReadString('\n')
	if err != nil {
		return nil, err
	}
	f := strings.Fields(line)
	if len(f) != 3 {
		return nil, errBadRequest
	}
	r := &request{Method: f[0], Path: f[1], Header: map[string]string{}}
	for {
		line, err := c.br.ReadString('\n')
		if err != nil {
			return nil, err
		}
		line = strings.TrimRight(line, "\r\n")
		if line == "" {
			break
		}
		k, v, ok := strings.Cut(line, ":")
		if !ok || len(r.Header) > 100 {
			return nil, errBadRequest
		}
		r.Header[strings.ToLower(strings.TrimSpace(k))] = strings.TrimSpace(v)
	}
	if n, err := strconv.Atoi(r.Header["content-length"]); err == nil && n > 0 {
		if n > 1<<20 {
			return nil, errBadRequest
		}
		r.Body = make([]byte, n)
		if _, err := io.ReadFull(c.br, r.Body); err != nil {
			return nil, err
		}
		_ = json.Unmarshal(r.Body, &r.RPC)
	}
	return r, nil
}

// write sends raw bytes; false means the client is gone.
func (c *conn) write(b []byte) bool {
	_ = c.nc.SetWriteDeadline(time.Now().Add(10 * time.Second))
	_, err := c.nc.Write(b)
	return err == nil
}

// respond sends a complete answer with a Content-Length and keeps the
// connection open.
func (c *conn) respond(status int, header []string, body []byte) bool {
	var b bytes.Buffer
	fmt.Fprintf(&b, "HTTP/1.1 %d %s\r\n", status, statusText(status))
	for _, h := range header {
		b.WriteString(h + "\r\n")
	}
	fmt.Fprintf(&b, "Content-Length: %d\r\n\r\n", len(body))
	b.Write(body)
	return c.write(b.Bytes())
}

// respondJSON sends a JSON-RPC message with status 200.
func (c *conn) respondJSON(msg []byte, header ...string) bool {
	return c.respond(200, append([]string{"Content-Type: application/json"}, header...), msg)
}

// startChunked sends the head of a chunked answer.
func (c *conn) startChunked(status int, header ...string) bool {
	var b bytes.Buffer
	fmt.Fprintf(&b, "HTTP/1.1 %d %s\r\n", status, statusText(status))
	for _, h := range header {
		b.WriteString(h + "\r\n")
	}
	b.WriteString("Transfer-Encoding: chunked\r\n\r\n")
	return c.write(b.Bytes())
}

// chunk sends one chunk of a chunked body (an empty one ends it).
func (c *conn) chunk(p []byte) bool {
	return c.write(fmt.Appendf(nil, "%x\r\n%s\r\n", len(p), p))
}

func statusText(code int) string {
	switch code {
	case 100:
		return "Continue"
	case 200:
		return "OK"
	case 202:
		return "Accepted"
	case 301:
		return "Moved Permanently"
	case 302:
		return "Found"
	case 401:
		return "Unauthorized"
	case 404:
		return "Not Found"
	case 405:
		return "Method Not Allowed"
	case 429:
		return "Too Many Requests"
	case 503:
		return "Service Unavailable"
	}
	return "Status"
}
