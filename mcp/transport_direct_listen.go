package mcp

import (
	"context"
	"errors"
	"net"
	"net/http"
	"time"

	"github.com/mcpbench/mcpbench/internal/evloop"
	"github.com/mcpbench/mcpbench/internal/h1"
)

// A session on an event loop reads its standing GET stream on the loop:
// the stream is dialled there like the session's POSTs, and read only
// when data comes (h1.Standing.OnReadable), on a helper task lent for
// the while, with read buffers lent for the while too. An idle stream
// holds its socket and this struct, not a goroutine, a stack or a
// buffer: with a goroutine and net/http's reader each, a session with
// --get-stream cost about 154 KB. Off the loops (net/http, TLS, proxies)
// transport_http_listen.go reads it on a goroutine.

// loopStream is one session's GET stream on its loop.
type loopStream struct {
	t    *directTransport
	loop *evloop.Loop
	st   *h1.Standing // nil between a stream's end and the next
	sse  sseReader    // its read buffer lent only while reading
	// retry is how long to wait before asking again for a stream the
	// server ended (its retry field, else a second).
	retry time.Duration
	// reading is set while read runs: its first call, from open, may
	// wait (on an answer to the server) while data comes and the loop
	// calls it again, which must then leave the reading to the first.
	reading, stopped bool
}

// listenOnLoop opens the session's GET stream on the loop whose pool the
// session uses, and reports false for a session on no loop.
func (t *directTransport) listenOnLoop() bool {
	lp, ok := t.pool.(*h1.LoopPool)
	if !ok || lp.Loop() == nil {
		return false
	}
	s := t.s
	if !s.c.opts.Listen || s.id == "" || IsModern(s.c.rev) || t.standing != nil {
		return true
	}
	ls := &loopStream{t: t, loop: lp.Loop(), retry: time.Second}
	ls.sse = sseReader{max: s.c.maxBody, retryMS: -1, idle: ls.idle}
	t.standing = ls
	ls.open() // before the session's first call, as listen does
	return true
}

// open asks for the stream, on a task of the loop. A server that offers
// none (405, or no event stream) is left alone; a failure to reach it is
// tried again after the retry delay.
func (ls *loopStream) open() {
	t := ls.t
	c := t.s.c
	nc, deadline, err := ls.dial()
	if err != nil {
		ls.again()
		return
	}
	if ls.stopped {
		// The session closed while the dial waited: its id is gone, and
		// a GET now would ask for the stream of no session.
		nc.Close()
		return
	}
	h := t.buildHeader(&Prepared{}).Clone()
	h.Del("Content-Type")
	h.Set("Accept", "text/event-stream")
	req := h1.Request{Head: wireHead(http.MethodGet, c.url, h), Deadline: deadline}
	st, err := h1.Stand(nc, &req, c.maxBody)
	switch {
	case err != nil:
		ls.again()
	case st.Status != http.StatusOK || !hasMediaType(st.ContentType, "text/event-stream"):
		st.Stop() // no stream offered
	case st.Body() == nil: // a stream that came whole: it ended at once
		ls.again()
	case ls.stopped: // the session closed meanwhile
		st.Stop()
	default:
		ls.st = st
		st.OnReadable(ls.read)
		ls.read() // what came with the head, if anything did
	}
}

// dial connects to the server on the loop, counted among the client's
// dials, with the deadline of what is to go out on the connection.
func (ls *loopStream) dial() (net.Conn, time.Time, error) {
	c := ls.t.s.c
	deadline := time.Now().Add(c.opts.Timeout)
	if c.dials != nil {
		c.dials.Add(1)
	}
	nc, err := ls.loop.Dial(h1.Addr(c.url), deadline)
	return nc, deadline, err
}

// again opens the stream anew after the retry delay, on a task of its
// own that waits for it, unless the session closes meanwhile.
func (ls *loopStream) again() {
	if ls.stopped {
		return
	}
	at := time.Now().Add(ls.retry)
	ls.loop.Go(func() {
		if ls.loop.SleepUntil(context.Background(), at) && !ls.stopped {
			ls.t.s.c.counts.reopens.Add(1)
			ls.open()
		}
	})
}

// idle is the SSE reader's question at a line boundary: nothing more has
// come, so the read buffers go back until something does.
func (ls *loopStream) idle() bool { return ls.stopped || ls.st.Idle() }

// read reads what came on the stream, on a helper task of the loop,
// answering the server's requests, until the stream is idle or ends.
func (ls *loopStream) read() {
	if ls.stopped || ls.st == nil || ls.reading {
		return
	}
	ls.reading = true
	defer func() { ls.reading = false }()
	sse := &ls.sse
	sse.r = lendSSEBuffer()
	sse.r.Reset(ls.st.Body())
	for !ls.stopped { // (an answer to the server may wait while the session closes)
		data, err := sse.next()
		if sse.retryMS >= 0 {
			ls.retry = time.Duration(sse.retryMS) * time.Millisecond
		}
		if err == errIdle || ls.stopped {
			break
		}
		if err != nil { // the server ended the stream, or it broke
			ls.st.Stop()
			ls.st = nil
			*sse = sseReader{max: sse.max, retryMS: sse.retryMS, idle: sse.idle, r: sse.r}
			ls.again()
			break
		}
		ls.handle(data)
	}
	returnSSEBuffer(sse.r)
	sse.r, sse.pending = nil, sse.pending[:0]
}

// handle answers a request the server sent on the stream.
func (ls *loopStream) handle(data []byte) {
	var rep reply
	if len(data) == 0 || rep.parse(data) != nil || !rep.isNotification() {
		return
	}
	t := ls.t
	msg := t.s.c.serverMessage(&rep, data)
	if msg == nil {
		return
	}
	err := t.respond(context.Background(), msg)
	if !errors.Is(err, h1.ErrNoFreeConn) {
		return
	}
	// Every connection of the session's pool is in use (its call waits
	// for this very answer): the answer goes on a connection of its own.
	c := t.s.c
	nc, deadline, err := ls.dial()
	if err != nil {
		return
	}
	req := h1.Request{Head: wireHead(http.MethodPost, c.url, t.buildHeader(&Prepared{})), Body: msg, Deadline: deadline}
	_, _ = h1.Once(nc, &req, c.maxBody)
}

// stopStanding closes the session's GET stream on its loop, from a task
// of the loop, or from anywhere once the loop no longer runs.
func (t *directTransport) stopStanding() {
	ls := t.standing
	if ls == nil {
		return
	}
	t.standing = nil
	ls.stopped = true
	switch {
	case ls.st == nil:
	case ls.reading:
		// read is suspended in a read of the stream (a line came in
		// pieces): the buffers it reads in stay its own. Given back with
		// the connection, they were lent to the session's DELETE, whose
		// answer's first bytes the waking read then took as its own.
		ls.st.Drop()
	default:
		ls.st.Stop()
	}
	ls.st = nil
}
