package workload

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"

	"github.com/mcpbench/mcpbench/bench"
	"github.com/mcpbench/mcpbench/internal/evloop"
	"github.com/mcpbench/mcpbench/mcp"
	"github.com/mcpbench/mcpbench/measure"
)

// Op is one operation of a workload, with its weight in a mix and, for
// generated arguments, several argument sets to cycle through.
type Op struct {
	Request mcp.Request
	// ArgSets, when set, replaces Request.Arguments: the worker cycles
	// through them, one per call.
	ArgSets []json.RawMessage
	Weight  float64
	// Info is the tool's entry in the server's listing, for tools/call
	// operations built from one; nil otherwise.
	Info *ToolInfo
}

// Workload is what MCP workers send: the generator's bench.RequestLoad.
type Workload struct {
	Client   *mcp.Client
	Ops      []Op
	Validate Validator // nil: no output validation
	Seed     uint64
}

var (
	_ bench.RequestLoad = (*Workload)(nil)
	_ bench.Counting    = (*Workload)(nil)
	_ bench.LoopWorker  = (*mcpWorker)(nil)
)

// An mcp.Kind is reported to the engine as the bench.Kind of the same
// number, so the conversion costs nothing; this fails to compile if the
// engine could not count every mcp.Kind.
var _ [bench.MaxKinds - int(mcp.NumKinds)]struct{}

// kindNames are the mcp.Kinds' names, which reports use as error kinds.
var kindNames = func() []string {
	names := make([]string, mcp.NumKinds)
	for k := range names {
		names[k] = mcp.Kind(k).String()
	}
	return names
}()

// Counters are the client's counts beside the requests (mcp.Client.Counters):
// requests from the server by method, progress events, extra round trips,
// token refreshes.
func (wl *Workload) Counters() map[string]int64 { return wl.Client.Counters() }

// Kinds names the outcomes the workers report: mcp's error kinds.
func (wl *Workload) Kinds() []string { return kindNames }

// Operations names the workload's operations.
func (wl *Workload) Operations() []measure.Operation {
	ops := make([]measure.Operation, len(wl.Ops))
	for i, op := range wl.Ops {
		ops[i] = measure.Operation{Method: op.Request.Method, Tool: op.Request.Tool}
	}
	return ops
}

// NewWorker opens a session for worker id and prepares every operation on
// it, so the hot loop only appends ids.
func (wl *Workload) NewWorker(ctx context.Context, id int) (bench.Worker, error) {
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
		prepared, err := prepare(s, op)
		if err != nil {
			_ = s.Close(ctx)
			return nil, err
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

// prepare readies op on s: once, or once per argument set.
func prepare(s *mcp.Session, op Op) ([]*mcp.Prepared, error) {
	if len(op.ArgSets) == 0 {
		p, err := s.Prepare(op.Request)
		if err != nil {
			return nil, err
		}
		return []*mcp.Prepared{p}, nil
	}
	prepared := make([]*mcp.Prepared, 0, len(op.ArgSets))
	for _, args := range op.ArgSets {
		req := op.Request
		req.Arguments = args
		p, err := s.Prepare(req)
		if err != nil {
			return nil, err
		}
		prepared = append(prepared, p)
	}
	return prepared, nil
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
	valid    lastConforming
}

func (w *mcpWorker) pick() int { return pickWeighted(w.cum, w.rng) }

func (w *mcpWorker) Do(ctx context.Context) bench.Sample {
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
		if err := w.valid.check(w.wl.Validate, p.Tool(), r.Structured); err != nil {
			r.Kind, r.Err = mcp.KindSchemaViolation, fmt.Errorf("%s: %w", p.Tool(), err)
		}
	}
	return bench.Sample{Kind: bench.Kind(r.Kind), Op: i, Sent: r.Sent, Received: r.Received, Err: r.Err, ConnWait: r.ConnWait,
		FirstEvent: r.FirstEvent, Created: r.Created, Stamp: r.Stamp, SentAt: r.SentAt}
}

func (w *mcpWorker) Close(ctx context.Context) error { return w.s.Close(ctx) }

// OnLoop puts the worker's session on l's connections (bench.LoopWorker):
// it may run as a task of l when the client waits only on the loop.
func (w *mcpWorker) OnLoop(l *evloop.Loop) bool { return w.s.OnLoop(l) }
