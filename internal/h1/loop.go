package h1

import (
	"bufio"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mcpbench/mcpbench/internal/evloop"
)

// A loop's connections can only be used by its own tasks, so the engine
// keeps a pool per event loop. A loop's pool first adopts the client's
// idle connections (the ones opened before the clock), so the measured
// requests dial no more than on goroutines.

// LoopPools are a client's pools, one per event loop that sent on it.
type LoopPools struct {
	cfg  Config
	base *GoPool

	mu sync.Mutex
	// byLoop are the pools made so far, one per loop: a few (the loops
	// are as many as the cores) and most often one (a session's own
	// client), where a map cost an idle session some 250 bytes.
	byLoop []*LoopPool

	// grown is what the loops' read buffers have grown past ReadBuffer,
	// in all; budget bounds it (fit).
	grown  atomic.Int64
	budget int64
}

// NewLoopPools makes the loop pools of a client whose pool is base.
func NewLoopPools(base *GoPool) *LoopPools {
	return &LoopPools{cfg: base.cfg, base: base, budget: loopReadBudget}
}

// SetBudget bounds the growth of the loops' read buffers (tests).
func (lp *LoopPools) SetBudget(n int64) { lp.budget = n }

// For is l's pool, made on its first request.
func (lp *LoopPools) For(l *evloop.Loop) *LoopPool {
	lp.mu.Lock()
	defer lp.mu.Unlock()
	for _, p := range lp.byLoop {
		if p.loop == l {
			return p
		}
	}
	// As large as the client's pool: the loop's workers are a part of
	// the client's, so they never wait for a slot.
	p := &LoopPool{loop: l, pools: lp, free: lp.cfg.Size}
	lp.byLoop = append(lp.byLoop, p)
	return p
}

// Close closes every loop pool's idle connections.
func (lp *LoopPools) Close() {
	if lp == nil {
		return
	}
	lp.mu.Lock()
	defer lp.mu.Unlock()
	for _, p := range lp.byLoop {
		p.Close()
	}
}

// LoopPool is a loop's pool. It is used by its own tasks only, one at a
// time, so it needs no channel: it counts its free slots, and its idle
// connections wait on a stack. A channel, first in first out, would hand
// a nil slot (a new dial) to one worker after another while idle
// connections queued behind the nils, up to the pool's size on every
// loop, where the pool is sized for all the client's workers; and a task
// that waited on it would stop its whole loop.
type LoopPool struct {
	loop  *evloop.Loop
	pools *LoopPools
	// idle are the idle connections, the last used on top, and free the
	// free slots, idle ones among them.
	idle []*Conn
	free int
	// head is the last head (head.go).
	head   headMemo
	closed atomic.Bool
}

var _ Pool = (*LoopPool)(nil)

// Loop is the loop whose connections these are.
func (p *LoopPool) Loop() *evloop.Loop { return p.loop }

// Get is as the client's pool's. The pool is as large as the client's,
// so a slot is always free; were none, the task could not wait for one
// without stopping the loop that would free it.
func (p *LoopPool) Get(now, deadline time.Time) (*Conn, time.Duration, error) {
	if p.free == 0 {
		return nil, 0, ErrNoFreeConn
	}
	p.free--
	c, err := ready(p.takeIdle(), now, deadline, p.dial, p.freeSlot)
	return c, 0, err
}

func (p *LoopPool) dial(deadline time.Time) (*Conn, error) {
	p.pools.cfg.Dials.Add(1)
	nc, err := p.loop.Dial(p.pools.cfg.Addr, deadline) // the loop bounds its dials itself
	if err != nil {
		return nil, err
	}
	return NewConn(nc), nil
}

func (p *LoopPool) freeSlot() { p.free++ }

// Put puts c, when reusable, on top of the idle stack.
func (p *LoopPool) Put(c *Conn, reusable bool) {
	if !reusable || p.closed.Load() {
		c.discard()
	} else {
		c.settle()
		p.idle = append(p.idle, c)
	}
	p.free++
}

func (p *LoopPool) limit() int { return p.pools.cfg.MaxBody }

func (p *LoopPool) ends() *streamEnds { return &p.pools.base.streamEnds }

func (p *LoopPool) Close() {
	p.closed.Store(true)
	for _, c := range p.idle {
		c.discard()
	}
	p.idle = nil
}

// takeIdle is the most recently used idle connection, else one adopted
// from the client's pool, else nil.
func (p *LoopPool) takeIdle() *Conn {
	if n := len(p.idle); n > 0 {
		c := p.idle[n-1]
		p.idle[n-1] = nil
		p.idle = p.idle[:n-1]
		return c
	}
	return p.adopt()
}

// adopt takes an idle connection of the client's pool onto the loop, so
// the connections the sessions opened before the clock started carry the
// measured requests, as they do without loops; nil when there is none.
// The client's pool keeps its slot, to dial again should it need one.
func (p *LoopPool) adopt() *Conn {
	c := p.pools.base.takeIdle()
	if c == nil {
		return nil
	}
	// The rest of a stream (the initialize's, as a rule) is read first,
	// on the client's connection: it has most often come long since.
	if now := time.Now(); c.rest.stream != nil && !c.takeRest(now, now.Add(RestWait)) || c.Buffered() > 0 {
		c.discard() // out of step, or a stream that did not end: not worth keeping
		return nil
	}
	nc, err := p.loop.Adopt(c.nc)
	if err != nil {
		c.discard()
		return nil
	}
	c.rewire(nc)
	return c
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

// fit grows c's read buffer to hold an answer that took used bytes of it,
// within the budget. It is called between answers, with nothing
// buffered.
func (p *LoopPool) fit(c *Conn, used int) {
	old := c.br.Size()
	if used <= old || old >= loopReadMax || c.br.Buffered() > 0 {
		return
	}
	size := min((used+1<<10+4<<10-1)&^(4<<10-1), loopReadMax) // room for longer ids, in 4 KB steps
	if p.pools.grown.Add(int64(size-old)) > p.pools.budget {
		p.pools.grown.Add(int64(old - size))
		return
	}
	giveBack(c.br) // what it holds was read: Buffered is 0
	c.br, c.grown = bufio.NewReaderSize(c, size), true
}
