package mcp

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/mcpbench/mcpbench/internal/h1"
)

// Session is one worker's conversation with the server. It is not safe for
// concurrent use: each worker owns one, with its buffers. It frames
// requests and classifies answers; its transport carries them.
type Session struct {
	c      *Client
	t      transport
	id     string // Mcp-Session-Id of stateful revisions
	shared bool   // id belongs to the client, not to this session
	// branches counts the branches made of this session (branch.go),
	// which number their requests apart.
	branches int64

	taskReq     map[string]*Prepared // tasks/get and tasks/result, made when a task first comes
	resp        bytes.Buffer
	sse         *sseReader
	rep         reply
	scratch     [24]byte
	result      Result
	sendScratch []byte
	// sentAt is when the current request went out, for the time to its
	// first SSE event; callAt when its logical call began (the first of
	// its rounds). sentAtSet says do has just set sentAt for send.
	sentAt, callAt time.Time
	sentAtSet      bool
	// retrying is set while a request refused for its credentials is
	// sent again with a new token.
	retrying bool
	// stream is how the last SSE answer was left: read up to the
	// response but not to its end, the transport reads the rest off the
	// clock.
	stream streamEnd
	// ending says whether the session was abandoned (abandon.go).
	ending ending
	// list follows the listing (tools/list, prompts/list...) in progress; cursor is the
	// cursor the current call was sent with.
	list   listing
	cursor string
	// renewal tells a session that was lost before its first answer
	// (fresh) from one lost in use, and counts the first kind in a row.
	renewal renewal
}

// Result is the outcome of one measured request.
type Result struct {
	Kind     Kind
	Err      error // why, when Kind is not OK
	Sent     int64 // request body bytes
	Received int64 // response body bytes
	// NextCursor is set when a tools/list page says more follow.
	NextCursor string
	// Structured is a tools/call's structuredContent, valid until the next
	// Do on the session.
	Structured json.RawMessage
	// ConnWait is how long the request waited for a pooled connection
	// (including a dial, when it needed one).
	ConnWait time.Duration
	// FirstEvent is the time from sending to the first event of an SSE
	// answer (0 for a JSON answer): the first byte, beside the full
	// answer's latency.
	FirstEvent time.Duration
	// Created is the time until the server took the call on as a task (0
	// when it did not); the call's latency runs to the task's end.
	Created time.Duration
	// Stamp is when the kernel received the end of the answer (Unix ns,
	// CLOCK_REALTIME), 0 where the engine gets no receive stamps: the
	// generator ends the latency there rather than when it noticed.
	Stamp int64
	// SentAt is when the engine wrote the request, when it read the clock
	// there (with Stamp: the start of the wire's interval).
	SentAt time.Time
}

// ID returns the session id ("" for stateless revisions).
func (s *Session) ID() string { return s.id }

// Prepare frames req for this session once.
func (s *Session) Prepare(req Request) (*Prepared, error) {
	params, err := buildParams(req, s.c.meta, "")
	if err != nil {
		return nil, fmt.Errorf("%s params: %w", req.Method, err)
	}
	p := &Prepared{req: req, head: frameHead(req.Method, params)}
	if nameKey(req.Method) != "" {
		p.nameHeader = headerValue(req.Tool)
	}
	if req.Method == "tools/call" {
		p.params = paramHeaders(s.c.params.get(req.Tool), req.Arguments)
	}
	return p, nil
}

// headerValue encodes a value for an Mcp-Name or Mcp-Param header, with the
// base64 sentinel form for anything not plain visible ASCII.
func headerValue(v string) string {
	plain := v != "" && v[0] != ' ' && v[len(v)-1] != ' ' &&
		!(strings.HasPrefix(v, "=?base64?") && strings.HasSuffix(v, "?="))
	for i := 0; plain && i < len(v); i++ {
		if v[i] < 0x20 || v[i] > 0x7e {
			plain = false
		}
	}
	if plain {
		return v
	}
	return "=?base64?" + base64.StdEncoding.EncodeToString([]byte(v)) + "?="
}

// exchange sends p (with a cursor, if given) and returns the raw result of
// the matching response, valid until the next exchange.
func (s *Session) exchange(ctx context.Context, p *Prepared, cursor string) (json.RawMessage, error) {
	r := s.Do(ctx, p, cursor)
	if r.Kind != OK && r.Kind != KindToolError {
		return nil, r.Err
	}
	return s.rep.Result, nil
}

// Do sends one request and classifies its answer. It is the hot path.
func (s *Session) Do(ctx context.Context, p *Prepared, cursor string) Result {
	if s.c.tracer != nil {
		return s.doTraced(ctx, p, cursor)
	}
	return s.doPlain(ctx, p, cursor)
}

func (s *Session) doPlain(ctx context.Context, p *Prepared, cursor string) Result {
	if s.c.opts.SessionMode == SessionPerRequest && !IsModern(s.c.rev) && p.req.Method != "initialize" {
		return s.doPerRequest(ctx, p, cursor)
	}
	return s.do(ctx, p, cursor)
}

func (s *Session) doPerRequest(ctx context.Context, p *Prepared, cursor string) Result {
	if err := s.initialize(ctx, s.c.rev); err != nil {
		return Result{Kind: KindOf(err), Err: err}
	}
	r := s.do(ctx, p, cursor)
	// The call spans its own session's opening and end, which the wire's
	// interval of its one exchange would leave out: the user-space clock.
	r.Stamp, r.SentAt = 0, time.Time{}
	if s.c.abandonNext() {
		s.abandon()
		s.id = "" // gone: the next request opens another
		return r
	}
	if err := s.t.endSession(ctx); err != nil && r.Kind == OK {
		r.Kind, r.Err = KindOf(err), err
	}
	return r
}

func (s *Session) do(ctx context.Context, p *Prepared, cursor string) Result {
	head := p.head
	if cursor != "" {
		params, err := buildParams(p.req, s.c.meta, cursor)
		if err != nil {
			return Result{Kind: KindTransport, Err: err}
		}
		head = frameHead(p.req.Method, params)
	}
	s.callAt, s.cursor = time.Now(), cursor
	s.sentAt, s.sentAtSet = s.callAt, true // the first round goes out now: one clock read, not two
	r := s.send(ctx, p, head)
	if r.Kind == KindJSONRPC && s.relistForHeaders(ctx, p, r) {
		s.c.counts.rounds.Add(1)
		s.cursor = cursor // the listing sent cursors of its own
		r = addRound(r, s.send(ctx, p, head))
	}
	if r.Kind == OK && (s.rep.inputRequired() || s.rep.inResult[inTask] != nil) {
		return s.follow(ctx, p, cursor, r) // rounds.go
	}
	return r
}

// send completes head with a new id, exchanges it and classifies the
// answer: one round trip.
func (s *Session) send(ctx context.Context, p *Prepared, head []byte) Result {
	id := s.t.nextID()
	body := append(s.sendBuf(len(head)), head...)
	body = strconv.AppendInt(body, id, 10)
	body = append(body, '}')
	s.sendScratch = body

	if !s.sentAtSet {
		s.sentAt = time.Now()
	}
	s.sentAtSet = false
	token := s.c.authToken()
	// The result lives in the session: passed by address through
	// interfaces, a local would escape to the heap on every request.
	res := &s.result
	*res = Result{Sent: int64(len(body))}
	// The transport fills res: ConnWait, Received, FirstEvent.
	found, err := s.t.exchange(ctx, p, body, id, res)
	if err != nil {
		res.Kind = KindOf(err)
		if res.Kind == OK {
			res.Kind = KindTransport
		}
		res.Err = err
		if res.Kind == KindTimeout && !errors.Is(err, h1.ErrNoFreeConn) {
			s.t.cancel(id) // it went out: tell the server it is abandoned
		}
		if res.Kind == KindAuth && s.c.auth != nil && !s.retrying && s.reauthorize(ctx, err, token) {
			s.retrying = true // once: the new token is in force now
			r := addRound(*res, s.send(ctx, p, head))
			s.retrying = false
			return r
		}
		return *res
	}
	if !found {
		res.Kind = KindTransport
		res.Err = &Error{Kind: KindTransport, Msg: p.req.Method + ": stream ended without the response"}
		return *res
	}
	s.classify(p, res, s.cursor)
	return *res
}

// Sleep waits d, or until ctx ends, and reports whether it waited the whole
// time (a d of zero or less reports whether ctx is still live). Every
// package that waits on a context uses it, bar the reference server, which
// shares no code with the client.
func Sleep(ctx context.Context, d time.Duration) bool {
	if d <= 0 {
		return ctx.Err() == nil
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	}
}

func (s *Session) sendBuf(n int) []byte {
	if cap(s.sendScratch) < n+24 {
		s.sendScratch = make([]byte, 0, n+64)
	}
	return s.sendScratch[:0]
}

// renew replaces an expired session with a fresh one, once.
func (s *Session) renew(ctx context.Context) {
	if IsModern(s.c.rev) || s.shared {
		return
	}
	_ = s.initialize(ctx, s.c.rev)
}

// maxFreshLosses is how many sessions in a row may be lost before their
// first answer before a worker stops renewing.
const maxFreshLosses = 3

// renewal follows a session's losses: whether the session in use has had
// an answer since its initialize, and how many in a row had none.
type renewal struct {
	fresh   bool
	strikes int
}

func (r *renewal) started()  { r.fresh = true }
func (r *renewal) answered() { r.fresh, r.strikes = false, 0 }

// lost handles a 404 to the session's id: the session is gone, and is
// renewed. A server that loses every session straight after initialize
// would have each request cost a handshake too, for ever; after a few
// such losses in a row the worker stops renewing, and says why.
func (s *Session) lost(ctx context.Context, status int) *Error {
	e := &Error{Kind: KindSessionExpired, Status: status, Msg: "session " + shortID(s.id) + " is gone"}
	r := &s.renewal
	if !r.fresh {
		s.renew(ctx)
		return e
	}
	r.strikes++
	e.Msg = fmt.Sprintf("session %s was lost straight after initialize, %s running", shortID(s.id), plural(r.strikes, "time"))
	if r.strikes < maxFreshLosses {
		e.Msg += fmt.Sprintf(" (at %d, a re-initialize storm, the worker stops renewing)", maxFreshLosses)
		s.renew(ctx)
		return e
	}
	e.Msg += ": a re-initialize storm, so this worker no longer renews its session"
	return e
}

// classify turns a matched JSON-RPC response into a kind. cursor is the
// one the request was sent with.
func (s *Session) classify(p *Prepared, res *Result, sent string) {
	rep := &s.rep
	if p.req.Method != "initialize" {
		s.renewal.answered() // the session served a request
	}
	if len(rep.Error) > 0 && len(rep.Result) > 0 {
		res.Kind = KindTransport
		res.Err = &Error{Kind: KindTransport, Msg: p.req.Method + ": the answer has both a result and an error, which JSON-RPC forbids"}
		return
	}
	if len(rep.Error) > 0 {
		var e rpcError
		_ = json.Unmarshal(rep.Error, &e)
		res.Kind = KindJSONRPC
		res.Err = &Error{Kind: KindJSONRPC, Code: e.Code, Msg: fmt.Sprintf("%s: %s (code %d)", p.label(), s.c.serverText(e.Message), e.Code), data: bytes.Clone(e.Data)}
		return
	}
	if len(rep.Result) == 0 || rep.Result[0] != '{' {
		res.Kind = KindTransport
		res.Err = &Error{Kind: KindTransport, Msg: p.req.Method + ": response has neither result nor error"}
		return
	}
	cursor, isError, structured := rep.inResult[inNextCursor], rep.inResult[inIsError], rep.inResult[inStructured]
	switch m := p.req.Method; {
	case Paged(m):
		if raw := nonNull(cursor); raw != nil {
			if err := json.Unmarshal(raw, &res.NextCursor); err != nil {
				res.Kind = KindTransport
				res.Err = &Error{Kind: KindTransport, Msg: m + ": nextCursor is not a string", Err: err}
				return
			}
		}
		if err := s.list.follow(m, sent, res.NextCursor); err != nil {
			res.Kind, res.Err, res.NextCursor = KindTransport, err, ""
			return
		}
	case m == "tools/call":
		if string(isError) == "true" {
			res.Kind = KindToolError
			res.Err = &Error{Kind: KindToolError, Msg: p.req.Tool + ": " + s.toolErrorMessage(rep.Result)}
			return
		}
		res.Structured = nonNull(structured)
	}
}

// toolErrorMessage is what a tool said when it failed, or "isError true"
// when it said nothing in text.
func (s *Session) toolErrorMessage(result []byte) string {
	if text := s.c.serverText(toolErrorText(result)); text != "" {
		return text
	}
	return "isError true"
}

// Close ends the session: DELETE for stateful revisions, as the spec asks.
func (s *Session) Close(ctx context.Context) error {
	s.t.close()
	if s.shared || s.id == "" || s.Abandon() {
		return nil
	}
	return s.t.endSession(ctx)
}
