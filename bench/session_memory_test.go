package bench

import (
	"context"
	"runtime"
	"testing"
	"time"

	"github.com/mcpbench/mcpbench/internal/evloop"
	"github.com/mcpbench/mcpbench/measure"
)

// idleSessions are sessions that step once and then think: the
// generator's own share of an idle session (user, records, task).
type idleSessions struct{ fakeSessions }

func (f *idleSessions) NewUser(context.Context, int) (User, error) {
	return &idleUser{fakeUser{f: &f.fakeSessions}}, nil
}

type idleUser struct{ fakeUser }

func (*idleUser) OnLoop(*evloop.Loop) bool { return true }

// TestIdleSessionMemory: 1000 users thinking at once are all counted open,
// and on the event loops the generator's own memory per idle session, as
// the report gives it, is at most 10 KB (one goroutine each with records
// of its own costs several times that).
func TestIdleSessionMemory(t *testing.T) {
	const users = 1000
	run := func(loops int) *measure.SessionStats {
		f := &idleSessions{fakeSessions{think: time.Second}}
		p, err := Run(context.Background(), Config{Model: ClosedLoop{Concurrency: users}, Duration: 300 * time.Millisecond, Loops: loops}, f)
		if err != nil {
			t.Fatal(err)
		}
		return p.Sessions
	}
	onLoops, onGoroutines := run(1), run(0)
	t.Logf("per idle session: %.0f B on loops (%d open), %.0f B on goroutines (%d open)", onLoops.MemoryPerSession, onLoops.PeakOpen, onGoroutines.MemoryPerSession, onGoroutines.PeakOpen)
	for _, s := range []*measure.SessionStats{onLoops, onGoroutines} {
		if s.PeakOpen != users || s.MemoryPerSession <= 0 {
			t.Fatalf("peak %d open (want %d), %.0f B per session", s.PeakOpen, users, s.MemoryPerSession)
		}
	}
	if runtime.GOOS == "linux" && onLoops.MemoryPerSession > 10<<10 {
		t.Fatalf("%.0f B per idle session on the loops, want at most 10 KB", onLoops.MemoryPerSession)
	}
}
