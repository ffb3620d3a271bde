package bench

import (
	"runtime"
	"runtime/metrics"
	"sync"
	"sync/atomic"
	"time"
)

// What an open session costs the generator: its Go heap objects and
// goroutine stacks, over what the process held before the users were
// made, at the moment the most sessions were open. A session run whose
// users mostly think measures the cost of an idle session, the figure
// that says how many sessions one process can hold.

// memoryEvery is how often the watch looks at the sessions open; a peak
// held for heldFor with no collection since it was reached gets one, so
// the figure is of live memory, not of garbage not yet collected. While
// the peak holds, each later collection measures it again, the figure
// being the least: the sessions that make a peak all start at once and
// first hold what their opening requests use (answers in flight, their
// buffers and stacks), and only later what an open session keeps; and
// when their thinks end together they hold their closing requests
// before the first of them is done (the last figure, as it was, caught
// 2,000 DELETEs in flight at 23 KB a session, against 8 KB idle). So
// collections are asked for again, each after twice the wait of the one
// before (up to settleMax), so that a long hold costs few of them.
const (
	memoryEvery = 50 * time.Millisecond
	heldFor     = 200 * time.Millisecond
	settleMax   = 10 * time.Second
)

type memoryWatch struct {
	base  uint64
	open  atomic.Int64 // sessions under way
	limit *memoryLimit // the watch's goroutine's

	mu sync.Mutex
	// seen is the most sessions open so far, since seenAt (and the
	// collection count then); the peak is measured by the first
	// collection after, while as many are still open.
	seen       int64
	seenAt     time.Time
	seenCycle  uint64
	wait       time.Duration // until the next collection asked for
	peakOpen   int64
	peakMemory uint64
	stop       chan struct{}
	done       chan struct{}
}

// goMemory is the process's live Go heap (as of the last collection)
// and goroutine stacks, in bytes, and the collections so far.
func goMemory() (bytes, cycles uint64) {
	s := []metrics.Sample{{Name: "/gc/heap/live:bytes"}, {Name: "/memory/classes/heap/stacks:bytes"}, {Name: "/gc/cycles/total:gc-cycles"}}
	metrics.Read(s)
	v := func(i int) uint64 {
		if s[i].Value.Kind() == metrics.KindUint64 {
			return s[i].Value.Uint64()
		}
		return 0
	}
	return v(0) + v(1), v(2)
}

// newMemoryWatch takes the base, before any user is made and off the
// clock, after a collection: what the process holds before the load.
func newMemoryWatch() *memoryWatch {
	runtime.GC()
	b, _ := goMemory()
	return &memoryWatch{base: b, limit: newMemoryLimit()}
}

// start looks at the open sessions every memoryEvery until finish.
func (w *memoryWatch) start() {
	w.stop, w.done = make(chan struct{}), make(chan struct{})
	go func() {
		defer close(w.done)
		t := time.NewTicker(memoryEvery)
		defer t.Stop()
		for {
			select {
			case <-w.stop:
				return
			case now := <-t.C:
				w.look(now)
			}
		}
	}()
}

// look keeps the live memory at the most sessions open so far.
func (w *memoryWatch) look(now time.Time) {
	n := w.open.Load()
	w.limit.update(n)
	mem, cycles := goMemory()
	w.mu.Lock()
	defer w.mu.Unlock()
	switch {
	case n > w.seen: // a new peak: wait for a collection that sees it
		w.seen, w.seenAt, w.seenCycle, w.wait = n, now, cycles, heldFor
	case n < w.seen:
	case cycles > w.seenCycle: // measured again, as the peak settles
		if n > w.peakOpen || mem < w.peakMemory {
			w.peakOpen, w.peakMemory = n, mem
		}
		w.seenAt, w.seenCycle = now, cycles
	case now.Sub(w.seenAt) >= w.wait:
		w.seenAt, w.wait = now, min(2*w.wait, settleMax)
		w.mu.Unlock()
		runtime.GC()
		w.mu.Lock()
	}
}
func (w *memoryWatch) finish() {
	if w.stop != nil {
		close(w.stop)
		<-w.done
	}
	w.limit.restore()
}

// perSession is the memory per open session at the peak, and that peak.
func (w *memoryWatch) perSession() (float64, int64) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.peakOpen == 0 || w.peakMemory < w.base {
		return 0, w.peakOpen
	}
	return float64(w.peakMemory-w.base) / float64(w.peakOpen), w.peakOpen
}
