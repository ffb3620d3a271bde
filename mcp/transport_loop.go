package mcp

import (
	"bufio"
	"context"
	"net/url"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mcpbench/mcpbench/internal/evloop"
)

// A request made with a context that carries an event loop (evloop.With)
// goes out on a connection of that loop: the direct engine keeps a pool
// per loop, since a loop's connections can only be used by its own tasks.
// Everything else about the exchange is the direct engine's as it is.

// The sessions of a loop also share one parse memo (memo.go): they ask
// the same things and get the same answers, so one remembered answer,
// read by every request, stays in the core's cache, where one per session
// (ten thousand of them, 10 KB each against the Go SDK's tools/list) was
// read cold each time and held memory besides.

// loopPools are a client's pools, one per event loop that sent on it.
type loopPools struct {
	u     *url.URL
	o     Options
	size  int
	dials *atomic.Int64

	mu     sync.Mutex
	byLoop map[*evloop.Loop]*wirePool

	// grown is what the loops' read buffers have grown past
	// wireReadBuffer, in all; budget bounds it (fitBuffer).
	grown  atomic.Int64
	budget int64
}

func newLoopPools(u *url.URL, o Options, size int, dials *atomic.Int64) *loopPools {
	return &loopPools{u: u, o: o, size: size, dials: dials, byLoop: map[*evloop.Loop]*wirePool{}, budget: loopReadBudget}
}

// poolFor is the pool for a request on ctx: its loop's, else the
// client's. The session keeps the last one it used, so a worker that
// stays on one loop takes no lock shared with the other loops.
func (t *directTransport) poolFor(ctx context.Context) *wirePool {
	l := evloop.From(ctx)
	if l == nil || t.loops == nil {
		return t.base
	}
	if l != t.onLoop {
		t.onLoop, t.loopPool = l, t.loops.forLoop(l, t.base)
	}
	return t.loopPool
}

// forLoop is l's pool, made on its first request.
func (lp *loopPools) forLoop(l *evloop.Loop, base *wirePool) *wirePool {
	lp.mu.Lock()
	defer lp.mu.Unlock()
	p := lp.byLoop[l]
	if p == nil {
		// As large as the client's pool: the loop's workers are a part
		// of the client's, so they never wait for a slot.
		p = newWirePool(lp.u, lp.o, 0, lp.dials)
		p.onLoop, p.base, p.memo, p.free, p.pools = l, base, new(parseMemo), lp.size, lp
		lp.byLoop[l] = p
	}
	return p
}

func (lp *loopPools) close() {
	if lp == nil {
		return
	}
	lp.mu.Lock()
	defer lp.mu.Unlock()
	for _, p := range lp.byLoop {
		p.close()
	}
}

// A loop's pool is used by its own tasks only, one at a time, so it
// needs no channel: it counts its free slots, and its idle connections
// wait on a stack. The channel, first in first out, would hand a nil
// slot (a new dial) to one worker after another while idle connections
// queued behind the nils, up to the pool's size on every loop, where the
// pool is sized for all the client's workers; and a task that waited on
// it would stop its whole loop.

// getOnLoop is get for a loop's pool. The pool is as large as the
// client's, so a slot is always free; were none, the task could not wait
// for one without stopping the loop that would free it.
func (p *wirePool) getOnLoop(now, deadline time.Time) (*wireConn, error) {
	if p.free == 0 {
		return nil, errNoFreeConn
	}
	p.free--
	return p.ready(p.takeIdle(), now, deadline)
}

// putOnLoop is put for a loop's pool: c, when not nil, goes on top of
// the idle stack.
func (p *wirePool) putOnLoop(c *wireConn) {
	if c != nil {
		p.idle = append(p.idle, c)
	}
	p.free++
}

// takeIdle is the loop pool's most recently used idle connection, else
// one adopted from the client's pool, else nil.
func (p *wirePool) takeIdle() *wireConn {
	if n := len(p.idle); n > 0 {
		c := p.idle[n-1]
		p.idle[n-1] = nil
		p.idle = p.idle[:n-1]
		return c
	}
	return p.adopt()
}

// keepIdle takes back a lent connection whose stream has ended, while
// the free slots outnumber the idle connections; else it closes it.
func (p *wirePool) keepIdle(c *wireConn, reusable bool) {
	if reusable && !p.closed.Load() && len(p.idle) < p.free {
		p.idle = append(p.idle, c)
		return
	}
	c.nc.Close()
}

// adopt takes an idle connection of the client's pool onto the loop, so
// the connections the sessions opened before the clock started carry the
// measured requests, as they do without loops; nil when there is none.
// The client's pool keeps its slot, to dial again should it need one.
func (p *wirePool) adopt() *wireConn {
	select {
	case c := <-p.base.slots:
		p.base.slots <- nil
		if c == nil {
			return nil
		}
		if c.br.Buffered() > 0 { // out of step: not worth keeping
			c.nc.Close()
			return nil
		}
		nc, err := p.onLoop.Adopt(c.nc)
		if err != nil {
			c.nc.Close()
			return nil
		}
		c.nc = nc
		return c
	default:
		return nil
	}
}

// A loop connection's read buffer grows to hold a whole answer, so an
// answer that has come reads in one call: the Go SDK's 11 KB tools/list
// took three reads into 8 KB, two into 12 KB (the last for the end of its
// chunks, which the server writes apart). The growth of all of a client's
// loop buffers is bounded, so ten thousand connections stay affordable:
// past the budget, buffers stay as they were made.
const (
	loopReadMax    = 64 << 10
	loopReadBudget = 16 << 20
)

// fitBuffer grows c's read buffer to hold an answer that took used bytes
// of it, within the budget. It is called between answers, with nothing
// buffered.
func (p *wirePool) fitBuffer(c *wireConn, used int) {
	old := c.br.Size()
	if p.pools == nil || used <= old || old >= loopReadMax || c.br.Buffered() > 0 {
		return
	}
	size := min((used+1<<10+4<<10-1)&^(4<<10-1), loopReadMax) // room for longer ids, in 4 KB steps
	if p.pools.grown.Add(int64(size-old)) > p.pools.budget {
		p.pools.grown.Add(int64(old - size))
		return
	}
	c.br = bufio.NewReaderSize(c, size)
}

// LoopReady says whether the client's measured requests wait only on
// event-loop connections when made on a loop's context, so workers may
// run as loop tasks: the direct engine, with neither OAuth (its token
// requests go through net/http) nor a session per request (its DELETE
// does), nor GET streams.
func (c *Client) LoopReady() bool {
	return c.Engine() == EngineDirect && c.auth == nil && c.opts.SessionMode != SessionPerRequest && !c.opts.Listen
}
