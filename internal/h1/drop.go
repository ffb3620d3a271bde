package h1

// A client that goes away drops its connection: DropIdle closes one idle
// connection of a pool, its slot left free to dial again, so the server
// sees a connection closed where such a client would have closed one. The
// pools do not know which session a kept-alive connection last carried,
// and neither does the server.

// DropIdle closes an idle connection of the client's pool and reports
// whether one was idle.
func (p *GoPool) DropIdle() bool {
	for range cap(p.slots) {
		select {
		case c := <-p.slots:
			p.slots <- nil
			if c != nil {
				c.nc.Close()
				return true
			}
		default:
			return false // every slot is in use
		}
	}
	return false
}

// DropIdle closes the loop's most recently used idle connection and
// reports whether one was idle. It runs on the pool's loop.
func (p *LoopPool) DropIdle() bool {
	n := len(p.idle)
	if n == 0 {
		return false
	}
	c := p.idle[n-1]
	p.idle[n-1] = nil
	p.idle = p.idle[:n-1]
	c.nc.Close()
	return true
}
