package h1

import "sync"

// stampHold is the process's one hold on the kernel's stamping, shared by
// all pools: a session with connections of its own makes a pool, and a
// hold per pool would cost each such session a socket and a round of
// syscalls for what one hold already keeps on.
var stampHold struct {
	mu      sync.Mutex
	pools   int
	release func()
}

// holdStampsShared takes a share of the hold, making it if it is the
// first; the function it returns gives the share back, the last one
// releasing the hold.
func holdStampsShared() func() {
	stampHold.mu.Lock()
	defer stampHold.mu.Unlock()
	if stampHold.pools == 0 {
		stampHold.release = holdStamps()
	}
	stampHold.pools++
	return func() {
		stampHold.mu.Lock()
		defer stampHold.mu.Unlock()
		if stampHold.pools--; stampHold.pools == 0 {
			stampHold.release()
			stampHold.release = nil
		}
	}
}
