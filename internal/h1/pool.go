package h1

import (
	"bufio"
	"errors"
	"net"
	"sync/atomic"
	"time"
)

// Pool is where a request gets its connection: the client's pool, shared
// by goroutines through a channel, or an event loop's (loop.go), used by
// the loop's tasks alone. The reading of answers asks a pool the few
// things that differ between the two through its unexported methods.
type Pool interface {
	// Get returns a connection, dialling one if a free slot has none, and
	// how long it waited for a slot. It gives up at deadline.
	Get(now, deadline time.Time) (*Conn, time.Duration, error)
	// Put gives c back; a connection that cannot carry another request
	// (broken, closed by the server, out of step) frees its slot instead.
	Put(c *Conn, reusable bool)
	// Close closes the idle connections; ones in use are closed when
	// they come back.
	Close()

	// limit is the largest body an answer may have.
	limit() int
	// recallHead, rememberHead and fit are a loop pool's: its last head
	// (head.go) and its read buffers grown to the answers (loop.go).
	recallHead(br *bufio.Reader, keep []byte) ([]byte, *Head, bool)
	rememberHead(h []byte, parsed Head, close bool, keep []byte)
	fit(c *Conn, used int)
	// ends is what the client has seen of the server's stream ends
	// (stream.go).
	ends() *streamEnds
}

// ErrNoFreeConn is a request that found no free connection in time.
var ErrNoFreeConn = errors.New("no free connection in time")

// Config is what a pool needs: where to dial, how many connections it
// may hold, how large a body it takes, and a counter of its dials.
type Config struct {
	Addr    string
	Size    int
	MaxBody int
	Dials   *atomic.Int64
	Gate    DialGate // bounds the goroutine pool's dials in flight
}

// GoPool holds at most Size connections to one address for goroutines.
// Its slots channel holds one entry per connection the pool may have: an
// idle connection, or nil for one not dialled. Taking a request's
// connection is one receive, giving it back one send.
type GoPool struct {
	cfg    Config
	dialer net.Dialer
	slots  chan *Conn
	closed atomic.Bool
	// unhold lets the kernel stop stamping once the pool is closed.
	unhold func()
	// streamEnds is what the client has seen of stream ends: the loop
	// pools share the client's.
	streamEnds streamEnds
}

var _ Pool = (*GoPool)(nil)

// NewPool makes the client's pool.
func NewPool(cfg Config) *GoPool {
	if cfg.Gate == nil {
		cfg.Gate = NewDialGate(max(cfg.Size, 1))
	}
	p := &GoPool{
		cfg:    cfg,
		dialer: net.Dialer{Timeout: 10 * time.Second, KeepAlive: 30 * time.Second},
		slots:  make(chan *Conn, cfg.Size),
	}
	for range cfg.Size {
		p.slots <- nil
	}
	if ReceiveStamps {
		// The kernel turns stamping on for all sockets through deferred
		// work: without the hold, a run's first answers often came before
		// it and the report's clock read "mixed".
		p.unhold = holdStampsShared()
	}
	return p
}

func (p *GoPool) Get(now, deadline time.Time) (*Conn, time.Duration, error) {
	var c *Conn
	var waited time.Duration
	select {
	case c = <-p.slots:
	default:
		asked := now
		t := time.NewTimer(deadline.Sub(now))
		select {
		case c = <-p.slots:
			t.Stop()
			now = time.Now()
			waited = now.Sub(asked)
		case <-t.C:
			return nil, time.Since(asked), ErrNoFreeConn
		}
	}
	c, err := ready(c, now, deadline, p.dial, p.freeSlot)
	return c, waited, err
}

// ready makes c, the connection of the slot just taken, fit to send on:
// the rest of a stream left on it is read off, a stale one is checked and
// dropped if dead, and nil is dialled. A failed dial frees the slot
// again.
func ready(c *Conn, now, deadline time.Time, dial func(time.Time) (*Conn, error), free func()) (*Conn, error) {
	var restWaited time.Duration
	if c != nil && c.rest.stream != nil {
		ok := c.takeRest(now, deadline)
		restWaited = time.Since(now)
		if !ok {
			c.discard()
			c = nil
		}
	}
	if c != nil && now.Sub(c.lastUsed) > StaleAfter && !c.alive() {
		c.discard()
		c = nil
	}
	if c == nil {
		var err error
		if c, err = dial(deadline); err != nil {
			free()
			return nil, err
		}
	}
	c.restWaited = restWaited
	return c, nil
}

func (p *GoPool) dial(deadline time.Time) (*Conn, error) {
	p.cfg.Dials.Add(1)
	leave := p.cfg.Gate.Enter()
	d := p.dialer
	d.Deadline = deadline
	nc, err := d.Dial("tcp", p.cfg.Addr)
	leave()
	if err != nil {
		return nil, err
	}
	return NewConn(nc), nil
}

func (p *GoPool) Put(c *Conn, reusable bool) {
	if !reusable || p.closed.Load() {
		c.discard()
		c = nil
	} else {
		c.settle()
	}
	p.slots <- c
}

// freeSlot frees a slot that holds no connection.
func (p *GoPool) freeSlot() { p.slots <- nil }

func (p *GoPool) limit() int { return p.cfg.MaxBody }

// Gate is the bound on the pool's dials in flight, for a pool that is to
// share it.
func (p *GoPool) Gate() DialGate { return p.cfg.Gate }

func (p *GoPool) ends() *streamEnds { return &p.streamEnds }

// The goroutine pool keeps no head and grows no buffer: its connections
// take turns among all the client's goroutines.
func (p *GoPool) recallHead(*bufio.Reader, []byte) ([]byte, *Head, bool) { return nil, nil, false }
func (p *GoPool) rememberHead([]byte, Head, bool, []byte)                {}
func (p *GoPool) fit(*Conn, int)                                         {}

func (p *GoPool) Close() {
	if !p.closed.Swap(true) && p.unhold != nil {
		p.unhold()
	}
	emptied := 0
	defer func() {
		for range emptied {
			p.slots <- nil
		}
	}()
	for {
		select {
		case c := <-p.slots:
			if c != nil {
				c.discard()
			}
			emptied++
		default:
			return
		}
	}
}

// takeIdle takes an idle connection of the pool, for a loop pool to adopt,
// leaving its slot free to dial again; nil when none is idle.
func (p *GoPool) takeIdle() *Conn {
	select {
	case c := <-p.slots:
		p.slots <- nil
		return c
	default:
		return nil
	}
}
