// Package record watches a real client's MCP sessions and writes them as
// a scenario file that `run --scenario` replays: a transparent Streamable
// HTTP proxy the client is pointed at (proxy.go) forwards every message
// unchanged and notes each request of a session, with when it was sent
// and answered; scenario.go turns a session's requests into steps, pauses
// and parallel blocks.
package record

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"maps"
	"net/http"
	"net/http/httputil"
	"net/url"
	"slices"
	"sync"
	"time"
)

// Call is one request a client sent in a session, and when it went out and
// its answer was complete.
type Call struct {
	Method       string
	Params       json.RawMessage
	Sent, Answer time.Time
	// ServerRequests are the methods of the requests the server sent the
	// client while this call was in flight (on its own SSE answer, or on
	// the session's GET stream while it was the latest call sent).
	ServerRequests []string
}

// Proxy forwards a client's Streamable HTTP traffic to Upstream unchanged
// and notes the requests of each session. OnEnd, when set, is called with
// a session's calls when the client ends it (its DELETE).
type Proxy struct {
	// MinAnswerTime holds an answer that comes sooner until this long
	// after its request. Answer times alone cannot tell two requests a
	// client sent at once from two it sent in turn when the server is
	// fast: the first answer can be back before the second request, on a
	// connection of its own, reaches the proxy. Held, the answer cannot
	// have reached the client when it sent a request that arrives
	// meanwhile, so that request was sent at once, whatever the server's
	// speed; a request sent in turn still comes after the answer.
	MinAnswerTime time.Duration

	upstream *url.URL
	rp       *httputil.ReverseProxy
	onEnd    func(id string, calls []Call)

	mu       sync.Mutex
	sessions map[string][]Call
	order    []string                   // sessions in the order they began
	stray    map[string][]strayRequest  // those on a session's GET stream
	asked    map[string]string          // a server request's session and id -> its method
	answers  map[string]json.RawMessage // the client's first result to each method
}

// strayRequest is a request the server sent on a session's GET stream,
// and when.
type strayRequest struct {
	method string
	at     time.Time
}

// NewProxy forwards to upstream, the server's MCP endpoint.
func NewProxy(upstream *url.URL, onEnd func(id string, calls []Call)) *Proxy {
	p := &Proxy{upstream: upstream, onEnd: onEnd, sessions: map[string][]Call{}, stray: map[string][]strayRequest{},
		asked: map[string]string{}, answers: map[string]json.RawMessage{}}
	p.rp = &httputil.ReverseProxy{
		Rewrite: func(r *httputil.ProxyRequest) {
			r.SetURL(&url.URL{Scheme: upstream.Scheme, Host: upstream.Host})
			r.Out.URL.Path, r.Out.URL.RawPath = upstream.Path, upstream.RawPath
			r.Out.Host = upstream.Host
		},
		FlushInterval:  -1, // SSE events reach the client as they come
		ModifyResponse: tapEvents,
	}
	return p
}

// message is what the proxy reads of a JSON-RPC message.
type message struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Params json.RawMessage `json:"params"`
	Result json.RawMessage `json:"result"`
}

// ServeHTTP forwards r and notes the requests it carries.
func (p *Proxy) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	var msgs []message
	if r.Method == http.MethodPost {
		body, err := io.ReadAll(r.Body)
		if err != nil {
			http.Error(w, "record: reading the request: "+err.Error(), http.StatusBadRequest)
			return
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
		all := messagesIn(body)
		msgs = requests(all)
		p.noteAnswers(r.Header.Get("Mcp-Session-Id"), all)
	}
	sent := time.Now()
	sw := &sessionWriter{ResponseWriter: w}
	sid := r.Header.Get("Mcp-Session-Id")
	var asked []string // server requests on this POST's own stream
	seen := func(m message) {
		asked = append(asked, m.Method)
		p.noteAsked(sid, m, false)
	}
	if r.Method == http.MethodGet && sid != "" {
		seen = func(m message) { p.noteAsked(sid, m, true) }
	}
	var answered time.Time // when the last bytes of an answer came
	l := &listener{seen: seen, answered: func() { answered = time.Now() }}
	if len(msgs) > 0 && p.MinAnswerTime > 0 {
		l.holdUntil = sent.Add(p.MinAnswerTime)
	}
	p.rp.ServeHTTP(sw, r.WithContext(context.WithValue(r.Context(), tapKey{}, l)))
	id := r.Header.Get("Mcp-Session-Id")
	if id == "" {
		id = sw.Header().Get("Mcp-Session-Id") // the initialize answer names it
	}
	if id == "" {
		return
	}
	if r.Method == http.MethodDelete {
		p.end(id)
		return
	}
	if answered.IsZero() {
		answered = time.Now()
	}
	p.note(id, msgs, sent, answered, asked)
}

// requestsIn are the requests (not notifications or answers) in a POST
// body: one message, or a batch.
func requestsIn(body []byte) []message { return requests(messagesIn(body)) }

// requests are the requests among batch, in a slice of their own (batch
// is read again for the client's answers).
func requests(batch []message) []message {
	out := batch[:0:0]
	for _, m := range batch {
		if m.Method != "" && len(m.ID) > 0 && string(m.ID) != "null" {
			out = append(out, m)
		}
	}
	return out
}

func (p *Proxy) note(id string, msgs []message, sent, answer time.Time, asked []string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if _, ok := p.sessions[id]; !ok {
		p.order = append(p.order, id)
	}
	for _, m := range msgs {
		p.sessions[id] = append(p.sessions[id], Call{Method: m.Method, Params: m.Params, Sent: sent, Answer: answer, ServerRequests: asked})
	}
}

// messagesIn are the messages of a POST body: one, or a batch.
func messagesIn(body []byte) []message {
	var batch []message
	if err := json.Unmarshal(body, &batch); err != nil {
		var m message
		if json.Unmarshal(body, &m) != nil {
			return nil
		}
		batch = []message{m}
	}
	return batch
}

// noteAsked notes a request of the server's, to know the client's answer
// to it; stray ones (on the GET stream) are kept for attribute.
func (p *Proxy) noteAsked(sid string, m message, stray bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.asked[sid+" "+string(m.ID)] = m.Method
	if stray {
		p.stray[sid] = append(p.stray[sid], strayRequest{method: m.Method, at: time.Now()})
	}
}

// noteAnswers keeps the client's first result to each method the server
// asked it, for a replay's --client-requests.
func (p *Proxy) noteAnswers(sid string, batch []message) {
	for _, m := range batch {
		if m.Method != "" || len(m.Result) == 0 {
			continue
		}
		p.mu.Lock()
		if method, ok := p.asked[sid+" "+string(m.ID)]; ok {
			delete(p.asked, sid+" "+string(m.ID))
			if _, had := p.answers[method]; !had {
				p.answers[method] = m.Result
			}
		}
		p.mu.Unlock()
	}
}

// Answers are the client's first result to each request of the
// server's, by method.
func (p *Proxy) Answers() map[string]json.RawMessage {
	p.mu.Lock()
	defer p.mu.Unlock()
	return maps.Clone(p.answers)
}

// end hands a session the client ended to onEnd.
func (p *Proxy) end(id string) {
	p.mu.Lock()
	calls, ok := p.sessions[id]
	p.mu.Unlock()
	if ok && p.onEnd != nil {
		p.onEnd(id, calls)
	}
}

// Sessions are the calls of every session seen, in the order they began.
func (p *Proxy) Sessions() [][]Call {
	p.mu.Lock()
	defer p.mu.Unlock()
	out := make([][]Call, 0, len(p.order))
	for _, id := range p.order {
		out = append(out, attribute(p.sessions[id], p.stray[id]))
	}
	return out
}

// attribute copies calls, noting each request that came on the GET stream
// on the latest call sent before it: the one a server that answers
// outside the call's own stream was most likely serving. One that came
// before any call stays unnoted.
func attribute(calls []Call, stray []strayRequest) []Call {
	out := make([]Call, len(calls))
	for i, c := range calls {
		c.ServerRequests = slices.Clone(c.ServerRequests)
		out[i] = c
	}
	for _, r := range stray {
		latest := -1
		for i, c := range out {
			if !c.Sent.After(r.at) && (latest < 0 || !c.Sent.Before(out[latest].Sent)) {
				latest = i
			}
		}
		if latest >= 0 {
			out[latest].ServerRequests = append(out[latest].ServerRequests, r.method)
		}
	}
	return out
}

// sessionWriter passes an answer through and lets the proxy read its
// headers; Flush keeps SSE streaming.
type sessionWriter struct{ http.ResponseWriter }

func (w *sessionWriter) Flush() {
	if f, ok := w.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

// Unwrap lets http.ResponseController reach the connection.
func (w *sessionWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }
