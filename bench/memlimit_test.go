package bench

import (
	"math"
	"runtime/debug"
	"testing"
)

// TestSoftMemoryLimit: with many sessions open a session level sets a
// soft memory limit above what the runtime holds now, and takes it off at
// the end; with few it sets none, and a limit the user set is left alone.
func TestSoftMemoryLimit(t *testing.T) {
	was := debug.SetMemoryLimit(math.MaxInt64)
	defer debug.SetMemoryLimit(was)

	m := newMemoryLimit()
	m.update(softLimitFrom - 1)
	if got := debug.SetMemoryLimit(-1); got != math.MaxInt64 {
		t.Fatalf("a limit of %d with few sessions open", got)
	}
	m.update(softLimitFrom)
	got := debug.SetMemoryLimit(-1)
	if got == math.MaxInt64 || got < softLimitSlack || got > 1<<30 {
		t.Fatalf("a limit of %d with %d sessions open", got, softLimitFrom)
	}
	m.restore()
	if got := debug.SetMemoryLimit(-1); got != math.MaxInt64 {
		t.Fatalf("the level's limit (%d) stayed after it", got)
	}

	debug.SetMemoryLimit(5 << 30) // as GOMEMLIMIT would
	m = newMemoryLimit()
	m.update(10 * softLimitFrom)
	m.restore()
	if got := debug.SetMemoryLimit(-1); got != 5<<30 {
		t.Fatalf("the user's limit became %d", got)
	}
}
