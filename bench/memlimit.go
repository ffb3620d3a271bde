package bench

import (
	"math"
	"runtime/debug"
	"runtime/metrics"
)

// A run that holds many sessions holds a large live heap, and at the
// collector's default pace the heap may reach twice that before the next
// collection: the garbage of the opening burst, and of the closing one,
// stood on top of twenty thousand idle sessions (a live heap of 168 MB
// grew to 225 MB at the end of the ramp, and the collection goal was
// 337 MB while the sessions closed), and none of it went back to the
// system while the sessions idled, since the heap stayed under its goal.
// So while at least softLimitFrom sessions are open, the session run
// sets a soft memory limit from its own figures: what the runtime holds
// besides heap objects, the live heap, and headroom of a seventh of it
// plus softLimitSlack. The collector then runs before the heap passes
// it, and the runtime gives free pages back down to it. Below some 19 MB
// of live heap the default pace collects first anyway, so smaller runs
// (and a plain run's request path) are not affected. A limit the user
// set (GOMEMLIMIT) is left alone; the run's own is taken off when the
// level ends.
const (
	softLimitFrom  = 1000
	softLimitSlack = 16 << 20
)

// memoryLimit is the soft limit a session level keeps.
type memoryLimit struct {
	was int64 // the limit before the level; -1 until the level set one
	set int64
}

func newMemoryLimit() *memoryLimit { return &memoryLimit{was: -1} }

// update sets the limit from the runtime's figures now, when open
// sessions are many, unless the user set one.
func (m *memoryLimit) update(open int64) {
	if open < softLimitFrom {
		return
	}
	if m.was < 0 {
		m.was = debug.SetMemoryLimit(-1)
		if m.was != math.MaxInt64 {
			return // the user's
		}
	} else if m.was != math.MaxInt64 {
		return
	}
	limit := softLimit()
	// Moved only by more than a MiB: the limit follows the live heap, not
	// every allocation.
	if d := limit - m.set; d > 1<<20 || d < -1<<20 {
		m.set = limit
		debug.SetMemoryLimit(limit)
	}
}

// restore puts back the limit from before the level.
func (m *memoryLimit) restore() {
	if m.was == math.MaxInt64 && m.set != 0 {
		debug.SetMemoryLimit(m.was)
	}
}

// softLimit is the runtime's memory other than heap objects (stacks,
// span overhead, metadata), the live heap as of the last collection,
// and the headroom above it.
func softLimit() int64 {
	s := []metrics.Sample{
		{Name: "/memory/classes/total:bytes"},
		{Name: "/memory/classes/heap/released:bytes"},
		{Name: "/memory/classes/heap/free:bytes"},
		{Name: "/memory/classes/heap/objects:bytes"},
		{Name: "/gc/heap/live:bytes"},
	}
	metrics.Read(s)
	v := make([]int64, len(s))
	for i := range s {
		if s[i].Value.Kind() == metrics.KindUint64 {
			v[i] = int64(s[i].Value.Uint64())
		}
	}
	total, released, free, objects, live := v[0], v[1], v[2], v[3], v[4]
	other := max(total-released-free-objects, 0)
	return other + live + live/7 + softLimitSlack
}
