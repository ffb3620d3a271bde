package h1

import (
	"context"
	"testing"

	"github.com/mcpbench/mcpbench/internal/evloop"
)

// dropper is what both pools offer an abandoned session.
type dropper interface {
	Pool
	DropIdle() bool
}

// dropsAndRedials: after a request, DropIdle closes the idle connection
// (once: then none is idle), and the next request dials afresh. It
// reports with Error, as it may run as a loop's task.
func dropsAndRedials(t *testing.T, p dropper, dials func() int64) {
	var cl Caller
	req := &Request{Head: postHead, Body: []byte("{}")}
	if _, err := roundTrip(&cl, p, req); err != nil {
		t.Error(err)
		return
	}
	if !p.DropIdle() || p.DropIdle() {
		t.Error("DropIdle: want one idle connection dropped, then none idle")
		return
	}
	if _, err := roundTrip(&cl, p, req); err != nil || dials() != 2 {
		t.Errorf("after the drop: %v, %d dials, want 2", err, dials())
	}
}

func TestGoPoolDropIdle(t *testing.T) {
	p := poolFor(fixedServer(t, `{}`), 2)
	defer p.Close()
	dropsAndRedials(t, p, p.cfg.Dials.Load)
}

func TestLoopPoolDropIdle(t *testing.T) {
	if !evloop.Available {
		t.Skip("event loops need Linux")
	}
	g, err := evloop.NewGroup(1, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	base := poolFor(fixedServer(t, `{}`), 2)
	pools := NewLoopPools(base)
	defer pools.Close()
	p := pools.For(g.Loop(0))
	g.Go(context.Background(), 0, func(context.Context) { dropsAndRedials(t, p, base.cfg.Dials.Load) })
	g.Run()
}
