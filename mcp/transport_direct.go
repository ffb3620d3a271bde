package mcp

import (
	"context"
	"net/http"
	"strconv"
	"sync/atomic"

	"github.com/mcpbench/mcpbench/internal/h1"
)

// Streamable HTTP on the direct engine (internal/h1): the session's POSTs
// go out on the engine's connections, everything else (notifications,
// resumed streams, DELETE) through net/http as in transport_http.go. This
// file adapts the engine's plain values to the session: it builds the
// request's bytes, gives the loop memo's answer as the prediction, and
// classifies the engine's errors into Kinds.

// directLink is the direct engine's side of a client: its connections for
// the POSTs (the client's pool, and one per event loop), the loops' parse
// memos, and net/http's connections for the rest.
type directLink struct {
	httpLink
	pool  *h1.GoPool
	loops *h1.LoopPools
	memos *loopMemos
	heads *messageHeads
}

func newDirectLink(hc *http.Client, cfg h1.Config) directLink {
	pool := h1.NewPool(cfg)
	return directLink{newHTTPLink(hc), pool, h1.NewLoopPools(pool), newLoopMemos(), newMessageHeads()}
}

func (l directLink) attach(s *Session) transport {
	return &directTransport{httpTransport: httpTransport{s: s, hc: l.hc, side: l.side}, link: l, pool: l.pool}
}

func (directLink) engine() Engine { return EngineDirect }

func (l directLink) close() {
	l.httpLink.close()
	l.pool.Close()
	l.loops.Close()
}

// directTransport is one session's Streamable HTTP on the direct engine.
type directTransport struct {
	httpTransport
	link directLink
	// pool is the client's, or the pool of the loop the session is on
	// (onLoop), whose parse memo is memo.
	pool h1.Pool
	memo *parseMemo
	call h1.Caller
	ans  h1.Answer // the answer in hand, kept between requests
	// pred is the memo's answer with the request's id (predFrom's text),
	// which the engine compares the body with as it reads it; lent is the
	// text the reply points into after a match, lent from lentOn.
	pred     h1.Prediction
	predFrom *remembered
	predHeld bool // predict's hold on predFrom is up
	idBytes  [20]byte
	lent     *remembered
	lentOn   *parseMemo
	held     heldBody
	current  atomic.Pointer[h1.Conn]
	watched  context.Context
	unwatch  func() bool
	// standing is the session's GET stream when it is read on the
	// session's loop (transport_direct_listen.go).
	standing *loopStream
}

// open is httpTransport's, with the GET stream on the session's loop
// where it is on one.
func (t *directTransport) open(ctx context.Context) error {
	listen, err := t.begin(ctx)
	if listen && !t.listenOnLoop() {
		t.listen()
	}
	return err
}

func (t *directTransport) close() {
	t.stopStanding()
	t.stopListening()
	if t.unwatch != nil {
		t.unwatch()
		t.unwatch, t.watched = nil, nil
	}
}

// dropConn drops an idle connection of the session's pool: the session is
// abandoned (abandon.go).
func (t *directTransport) dropConn() {
	if p, ok := t.pool.(interface{ DropIdle() bool }); ok && !p.DropIdle() && t.s.c.abandons != nil {
		t.s.c.abandons.owed.Add(1) // none idle: the next one given back goes
	}
}

// keepSession is the header the answer to initialize carries the session in.
var keepSession = []byte("Mcp-Session-Id")

// exchange is the net/http exchange on the direct engine. A JSON answer
// is read whole (bounded by --max-response-bytes) before it is parsed; an
// SSE answer is read as it arrives, since the server may wait for an
// answer to a request of its own before it sends the response. The
// engine bounds its requests itself, without a context timer.
func (t *directTransport) exchange(ctx context.Context, p *Prepared, body []byte, id int64, res *Result) (bool, error) {
	if err := ctx.Err(); err != nil {
		return false, &Error{Kind: KindOf(err), Msg: p.req.Method, Err: err}
	}
	start := t.s.sentAt // read by send just now
	req := t.request(p.req.Method, id)
	req.Head, req.Body, req.Deadline = t.headFor(p), body, start.Add(t.s.c.opts.Timeout)
	if dl, ok := ctx.Deadline(); ok && dl.Before(req.Deadline) {
		req.Deadline = dl
	}
	c, waited, err := t.pool.Get(start, req.Deadline)
	res.ConnWait = waited
	if err != nil {
		t.releasePrediction()
		return false, wireError(p, err)
	}
	t.watch(ctx, c)
	a := &t.ans
	err = t.call.Do(t.pool, c, &req, a)
	t.releasePrediction()
	sent := t.call.Sent // before an SSE answer's own requests reuse the caller
	if err != nil {
		t.current.Store(nil)
		t.pool.Put(c, false)
		if ctx.Err() != nil {
			err = ctx.Err() // cut off by the caller, not by the server
		}
		return false, wireError(p, err)
	}
	if a.Stream != nil {
		found, aerr := t.answer(ctx, p, id, res, (*answerHead)(&a.Head), a.Stream)
		res.Stamp, res.SentAt = c.Stamp(), sent
		t.current.Store(nil)
		if aerr != nil && ctx.Err() != nil {
			aerr = wireError(p, ctx.Err())
		}
		state := t.s.stream
		t.s.stream = streamEnded
		// Bytes of the stream the session's reader holds unread mean more
		// than the last chunk is left.
		ahead := state == streamLeftOpen && t.s.sse.r.Buffered() > 0
		h1.Finish(t.pool, c, a, state, ahead, start)
		t.s.returnSSE()
		return found, aerr
	}
	t.current.Store(nil)
	res.Stamp, res.SentAt = c.Stamp(), sent
	// The connection goes back before the answer is handled: handling a
	// lost session sends an initialize, which needs a connection of its
	// own. One that holds bytes past the answer, or whose answer is to
	// another request, is out of step with its requests (the server
	// answered one twice, or late) and is not used again.
	c.Used(start)
	t.held.reset(a.Body, a.Size)
	// The id first: a matched answer's reply is filled there, in step or not.
	inStep := t.answersID(a, id) && c.Buffered() == 0
	t.pool.Put(c, !a.Close && inStep && !t.s.c.abandons.payDrop())
	found, err := t.answer(ctx, p, id, res, (*answerHead)(&a.Head), &t.held)
	res.Received = int64(a.Size)
	t.s.stream = streamEnded // held whole: nothing is left to read
	return found, err
}

// request is what the engine is to make of the answer to method's request
// id: compare it with the loop memo's prediction, and, for initialize,
// keep its session id (its head is then parsed in full).
func (t *directTransport) request(method string, id int64) h1.Request {
	req := h1.Request{Predict: t.predict(id)}
	if method == "initialize" {
		req.Keep = keepSession
	}
	return req
}

// predict is the loop memo's answer with id, for the engine to compare the
// body with; nil off loops or before the memo holds an answer. The text
// the last reply points into is given back first: that reply is done with.
//
// The prediction holds the memo's text from now until the answer is read
// (releasePrediction), not only while the engine compares: other sessions
// on the loop are answered while this request waits, and one that wrote
// its answer into this text left the prediction pointing at the old bytes
// and the reply filled from the new ones (an initialize read as the
// tools/list answer before it, against mcp-go).
func (t *directTransport) predict(id int64) *h1.Prediction {
	t.returnLent()
	if t.memo == nil || len(t.memo.text()) == 0 {
		return nil
	}
	r := t.memo.last
	r.lent++
	t.predFrom, t.predHeld = r, true
	t.pred = h1.Prediction{MediaType: "application/json", Before: r.text[:r.id.from], After: r.text[r.id.to:],
		ID: strconv.AppendInt(t.idBytes[:0], id, 10), Hold: &r.lent}
	return &t.pred
}

// releasePrediction lowers predict's hold on the memo text. A matched
// answer's reply keeps the engine's own hold until returnLent.
func (t *directTransport) releasePrediction() {
	if t.predHeld {
		t.predFrom.lent--
		t.predHeld = false
	}
}

// returnLent gives back the memo text the session's reply points into,
// if it points into one. Only a request on the same loop does: the count
// is the loop's alone, and one left up merely costs the memo a new text.
func (t *directTransport) returnLent() {
	if t.lent != nil && t.lentOn == t.memo {
		t.lent.lent--
	}
	t.lent, t.lentOn = nil, nil
}

// answersID reports whether a JSON answer's id is id, parsing it into the
// session's reply as readJSON would (which then takes it as it is).
// Answers of other kinds are judged later, and count as in step.
func (t *directTransport) answersID(a *h1.Answer, id int64) bool {
	s := t.s
	if a.Matched { // the memo's answer with the request's id
		t.lent, t.lentOn = t.predFrom, t.memo
		s.rep.fill(t.predFrom, t.pred.ID)
		t.held.parsed = true
		return true
	}
	if a.Status < 200 || a.Status > 299 || a.Encoding != "" || !hasMediaType(a.ContentType, "application/json") {
		return true
	}
	if s.rep.parse(a.Body) != nil {
		return true // malformed: readJSON says so
	}
	if !sameID(s.rep.ID, id, s.scratch[:0]) {
		return false
	}
	t.held.parsed = true
	return true
}

// watch makes a cancellation of ctx cut off the request in flight on c:
// past the grace period after an interrupt, a request is not waited for.
// The hook is registered once per context the session sees.
func (t *directTransport) watch(ctx context.Context, c *h1.Conn) {
	t.current.Store(c)
	if ctx == t.watched || ctx.Done() == nil {
		return
	}
	if t.unwatch != nil {
		t.unwatch()
	}
	t.watched = ctx
	t.unwatch = context.AfterFunc(ctx, func() {
		if c := t.current.Load(); c != nil {
			c.Interrupt()
		}
	})
}
