package mcp

import (
	"bufio"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"io"
	"math/rand/v2"
	"net"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// rndServer is a stateful MCP server (2025-06-18) on raw connections for
// the engine's randomized differential test (engine_random_test.go). Its
// every answer is valid HTTP/1.1 and valid MCP, and the bytes of each are
// chosen at random (engine_random_frame_test.go): JSON or SSE, the body's
// framing, where the writes split it, whether the connection stays. What
// an answer says is a function of the request alone (rndResult), so the
// client can tell whether the reply it counted was the one sent for its
// request. The server counts what it answered, by method and nonce, and
// notes anything a valid client never does.
type rndServer struct {
	url  string
	seed uint64
	l    net.Listener
	wg   sync.WaitGroup
	done chan struct{} // closed by stop

	mu       sync.Mutex
	conns    map[net.Conn]struct{}
	connSeq  uint64
	sessions map[string]bool // the open sessions
	ended    map[string]bool // and those a DELETE ended
	nextSess int
	counts   map[string]int // answered, by method; "DELETE" for a session's end
	answered map[string]int // answered, by rndKey(method, nonce)
	faults   []string       // what a valid client never does
	frames   map[string]int // how the answers were framed, for the log
}

// rndKey names the answers to method with nonce.
func rndKey(method, nonce string) string { return method + " " + nonce }

func startRndServer(tb testing.TB, seed uint64) *rndServer {
	tb.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatal(err)
	}
	s := &rndServer{url: "http://" + l.Addr().String() + "/mcp", seed: seed, l: l, done: make(chan struct{}),
		conns: map[net.Conn]struct{}{}, sessions: map[string]bool{}, ended: map[string]bool{},
		counts: map[string]int{}, answered: map[string]int{}, frames: map[string]int{}}
	s.wg.Add(1)
	go s.accept()
	tb.Cleanup(s.stop)
	return s
}

func (s *rndServer) accept() {
	defer s.wg.Done()
	for {
		c, err := s.l.Accept()
		if err != nil {
			return
		}
		s.mu.Lock()
		s.conns[c] = struct{}{}
		s.connSeq++
		rng := rand.New(rand.NewPCG(s.seed, s.connSeq))
		s.mu.Unlock()
		s.wg.Add(1)
		go s.serve(c, rng)
	}
}

// stop closes the listener and every connection, and waits for their
// goroutines.
func (s *rndServer) stop() {
	s.l.Close()
	s.mu.Lock()
	select {
	case <-s.done:
	default:
		close(s.done)
	}
	for c := range s.conns {
		c.Close()
	}
	s.mu.Unlock()
	s.wg.Wait()
}

func (s *rndServer) fault(format string, args ...any) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.faults) < 20 {
		s.faults = append(s.faults, fmt.Sprintf(format, args...))
	}
}

// rndRequest is what the server read of one request.
type rndRequest struct {
	verb, session string
	body          []byte
}

func (s *rndServer) serve(c net.Conn, rng *rand.Rand) {
	defer s.wg.Done()
	defer func() {
		s.mu.Lock()
		delete(s.conns, c)
		s.mu.Unlock()
		c.Close()
	}()
	br := bufio.NewReader(c)
	for {
		r, err := readRndRequest(br)
		if err != nil {
			if err != io.EOF && !isClosedConn(err) {
				s.fault("reading a request: %v", err)
			}
			return
		}
		if !s.answer(c, r, rng) {
			return
		}
	}
}

func isClosedConn(err error) bool {
	return strings.Contains(err.Error(), "use of closed network connection") ||
		strings.Contains(err.Error(), "connection reset by peer")
}

func readRndRequest(br *bufio.Reader) (*rndRequest, error) {
	line, err := br.ReadString('\n')
	if err != nil {
		if line == "" {
			return nil, io.EOF
		}
		return nil, err
	}
	verb, _, _ := strings.Cut(line, " ")
	r := &rndRequest{verb: verb}
	length := 0
	for {
		h, err := br.ReadString('\n')
		if err != nil {
			return nil, err
		}
		h = strings.TrimRight(h, "\r\n")
		if h == "" {
			break
		}
		name, value, _ := strings.Cut(h, ":")
		value = strings.TrimSpace(value)
		switch strings.ToLower(name) {
		case "content-length":
			if length, err = strconv.Atoi(value); err != nil {
				return nil, fmt.Errorf("content-length %q", value)
			}
		case "mcp-session-id":
			r.session = value
		case "transfer-encoding":
			return nil, fmt.Errorf("a request body in %s", value)
		}
	}
	r.body = make([]byte, length)
	if _, err := io.ReadFull(br, r.body); err != nil {
		return nil, err
	}
	return r, nil
}

// rndMessage is the part of a JSON-RPC request the server reads.
type rndMessage struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Params struct {
		Nonce     string `json:"nonce"`
		Arguments struct {
			Echo string `json:"echo"`
		} `json:"arguments"`
	} `json:"params"`
}

// answer writes the answer to r; false when the connection is done.
func (s *rndServer) answer(c net.Conn, r *rndRequest, rng *rand.Rand) bool {
	switch r.verb {
	case "DELETE":
		s.endSession(r.session)
		return writeRndEmpty(c, rng, 200, s)
	case "GET":
		s.count("GET", "")
		if s.gone(r.session) {
			// Asked for before the session's DELETE, on another
			// connection, and come after it: what a server says then.
			return writeRndEmpty(c, rng, 404, s)
		}
		if rng.IntN(4) == 0 {
			return writeRndEmpty(c, rng, 405, s) // no stream offered
		}
		return s.stream(c, r.session, rng)
	case "POST":
	default:
		s.fault("an HTTP %s", r.verb)
		return false
	}
	var m rndMessage
	if err := json.Unmarshal(r.body, &m); err != nil {
		s.fault("a body that is not JSON-RPC: %v: %q", err, r.body)
		return false
	}
	if m.Method == "initialize" {
		return s.initialize(c, m, rng)
	}
	s.checkSession(r.session, m.Method)
	if len(m.ID) == 0 {
		s.count(m.Method, "")
		return writeRndEmpty(c, rng, 202, s)
	}
	nonce := m.Params.Nonce
	if m.Method == "tools/call" {
		nonce = m.Params.Arguments.Echo
	}
	res, ok := rndResult(m.Method, nonce)
	if !ok {
		s.fault("a request for %s", m.Method)
		return false
	}
	s.count(m.Method, nonce)
	h := fnv.New64a()
	fmt.Fprintf(h, "%s|%s|%s", m.Method, nonce, m.ID)
	return writeRndAnswer(c, rand.New(rand.NewPCG(s.seed, h.Sum64())), m.ID, res, "", s)
}

func (s *rndServer) initialize(c net.Conn, m rndMessage, rng *rand.Rand) bool {
	s.mu.Lock()
	s.nextSess++
	id := "rs-" + strconv.Itoa(s.nextSess)
	s.sessions[id] = true
	s.mu.Unlock()
	s.count("initialize", "")
	res, _ := rndResult("initialize", "")
	return writeRndAnswer(c, rng, m.ID, res, id, s)
}

func (s *rndServer) count(method, nonce string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.counts[method]++
	if nonce != "" {
		s.answered[rndKey(method, nonce)]++
	}
}

func (s *rndServer) checkSession(id, method string) {
	s.mu.Lock()
	open := s.sessions[id]
	s.mu.Unlock()
	if !open {
		s.fault("%s in session %q, which is not open", method, id)
	}
}

// gone says whether a GET stream's session has ended; one the server
// never opened is a fault.
func (s *rndServer) gone(id string) bool {
	s.mu.Lock()
	open, ended := s.sessions[id], s.ended[id]
	s.mu.Unlock()
	if !open && !ended {
		s.fault("GET in session %q, which the server never opened", id)
	}
	return !open
}

func (s *rndServer) endSession(id string) {
	s.mu.Lock()
	open := s.sessions[id]
	delete(s.sessions, id)
	s.ended[id] = true
	s.counts["DELETE"]++
	s.mu.Unlock()
	if !open {
		s.fault("DELETE of session %q, which is not open", id)
	}
}

// stream is a session's GET stream: notifications and comments now and
// then, until the session ends (then the stream does), or at random
// (then the client asks again after the retry the stream gave);
// false when the connection is done.
func (s *rndServer) stream(c net.Conn, session string, rng *rand.Rand) bool {
	chunked := rng.IntN(2) == 0
	head := "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nCache-Control: no-cache\r\n"
	if chunked {
		head += "Transfer-Encoding: chunked\r\n"
	}
	out := head + "\r\n"
	send := func(event string) bool {
		if chunked {
			event = strconv.FormatInt(int64(len(event)), 16) + "\r\n" + event + "\r\n"
		}
		ok := writePieces(c, rng, out+event)
		out = ""
		return ok
	}
	s.framed("GET stream")
	if !send("retry: 5\n\n") {
		return false
	}
	for range 1 + rng.IntN(400) {
		select {
		case <-s.done:
			return false
		case <-time.After(time.Duration(500+rng.IntN(2500)) * time.Microsecond):
		}
		s.mu.Lock()
		open := s.sessions[session]
		s.mu.Unlock()
		if !open {
			break
		}
		event := ": still here\n\n"
		if rng.IntN(2) == 0 {
			event = `data: {"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"standing"}}` + "\n\n"
		}
		if !send(event) {
			return false
		}
	}
	if chunked {
		return writePieces(c, rng, "0\r\n\r\n")
	}
	return false // the stream ends with the connection
}

func (s *rndServer) framed(how string) {
	s.mu.Lock()
	s.frames[how]++
	s.mu.Unlock()
}

// rndResult is the result the server gives method with nonce: the nonce
// is in it, so one request's result is never another's (bar those that
// share a nonce on purpose).
func rndResult(method, nonce string) (string, bool) {
	q := strconv.Quote(nonce)
	switch method {
	case "initialize":
		return `{"protocolVersion":"2025-06-18","capabilities":{"tools":{}},"serverInfo":{"name":"random","version":"1"}}`, true
	case "tools/list":
		return `{"tools":[{"name":"echo","inputSchema":{"type":"object"}}],"nonce":` + q + `,"pad":"` + rndPad(nonce) + `"}`, true
	case "tools/call":
		return `{"content":[{"type":"text","text":` + q + `}],"structuredContent":{"echo":` + q + `},"pad":"` + rndPad(nonce) + `"}`, true
	}
	return "", false
}

// rndPad is filler of a length the nonce decides: mostly short, now and
// then past the engine's read buffer (8 KiB) or a memo's bound (16 KiB),
// so answers of a run differ in size and some span many reads.
func rndPad(nonce string) string {
	h := fnv.New64a()
	h.Write([]byte(nonce))
	v := h.Sum64()
	n := int(v>>8) % 64
	switch v % 20 {
	case 0:
		n = int(v>>8) % 40000
	case 1, 2, 3, 4:
		n = int(v>>8) % 4096
	}
	return strings.Repeat("x", n)
}
