package bench

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"

	"github.com/mcpbench/mcpbench/mcp"
)

// Op is one operation of a workload, with its weight in a mix and, for
// generated arguments, several argument sets to cycle through.
type Op struct {
	Request mcp.Request
	// ArgSets, when set, replaces Request.Arguments: the worker cycles
	// through them, one per call.
	ArgSets []json.RawMessage
	Weight  float64
}

// Validator checks a tools/call's structuredContent; a non-nil error makes
// the request a schema_violation.
type Validator func(tool string, structured json.RawMessage) error

// Workload is what MCP workers send.
type Workload struct {
	Client   *mcp.Client
	Ops      []Op
	Validate Validator // nil: no output validation
	Seed     uint64
}

// Operations names the workload's operations for Config.Operations.
func (wl *Workload) Operations() []Operation {
	ops := make([]Operation, len(wl.Ops))
	for i, op := range wl.Ops {
		ops[i] = Operation{Method: op.Request.Method, Tool: op.Request.Tool}
	}
	return ops
}

// NewWorker opens a session for worker id and prepares every operation on
// it, so the hot loop only appends ids.
func (wl *Workload) NewWorker(ctx context.Context, id int) (Worker, error) {
	if len(wl.Ops) == 0 {
		return nil, fmt.Errorf("no operation to send")
	}
	s, err := wl.Client.NewSession(ctx)
	if err != nil {
		return nil, err
	}
	w := &mcpWorker{wl: wl, s: s, rng: rand.New(rand.NewPCG(wl.Seed, uint64(id)))}
	total := 0.0
	for _, op := range wl.Ops {
		var prepared []*mcp.Prepared
		if len(op.ArgSets) == 0 {
			p, err := s.Prepare(op.Request)
			if err != nil {
				_ = s.Close(ctx)
				return nil, err
			}
			prepared = append(prepared, p)
		}
		for _, args := range op.ArgSets {
			req := op.Request
			req.Arguments = args
			p, err := s.Prepare(req)
			if err != nil {
				_ = s.Close(ctx)
				return nil, err
			}
			prepared = append(prepared, p)
		}
		// Workers start at different argument sets so a small pool is
		// still spread evenly.
		w.ops = append(w.ops, preparedOp{variants: prepared, next: id % len(prepared)})
		total += max(op.Weight, 0)
		w.cum = append(w.cum, total)
	}
	if total == 0 { // no weights given: all alike
		for i := range w.cum {
			w.cum[i] = float64(i + 1)
		}
	}
	return w, nil
}

type preparedOp struct {
	variants []*mcp.Prepared
	next     int
}

type mcpWorker struct {
	wl  *Workload
	s   *mcp.Session
	ops []preparedOp
	cum []float64 // cumulative weights
	rng *rand.Rand
	// A tools/list with more pages continues on the next request.
	cursor   string
	cursorOp int
}

func (w *mcpWorker) pick() int {
	if len(w.cum) == 1 {
		return 0
	}
	x := w.rng.Float64() * w.cum[len(w.cum)-1]
	for i, c := range w.cum {
		if x < c {
			return i
		}
	}
	return len(w.cum) - 1
}

func (w *mcpWorker) Do(ctx context.Context) Sample {
	i := w.cursorOp
	if w.cursor == "" {
		i = w.pick()
	}
	op := &w.ops[i]
	p := op.variants[op.next]
	if w.cursor == "" {
		op.next++
		if op.next == len(op.variants) {
			op.next = 0
		}
	}
	r := w.s.Do(ctx, p, w.cursor)
	w.cursor, w.cursorOp = r.NextCursor, i
	if r.Kind == mcp.OK && r.Structured != nil && w.wl.Validate != nil {
		if err := w.wl.Validate(p.Tool(), r.Structured); err != nil {
			r.Kind, r.Err = mcp.KindSchemaViolation, fmt.Errorf("%s: %w", p.Tool(), err)
		}
	}
	return Sample{Kind: r.Kind, Op: i, Sent: r.Sent, Received: r.Received, Err: r.Err, ConnWait: r.ConnWait}
}

func (w *mcpWorker) Close(ctx context.Context) error { return w.s.Close(ctx) }
