package target

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

const (
	methodList = "tools/list"
	methodCall = "tools/call"
)

// Server is one reference MCP server: an SDK server with the capacity model,
// the tools/list cache and fault injection in its receiving middleware, and
// HTTP handlers around it.
type Server struct {
	cfg     Config
	mcp     *mcp.Server
	tools   map[string]*toolDef
	defs    []*mcp.Tool
	handler http.Handler
	started time.Time

	oauth *oauthServer // the OAuth mode's authorization server, or nil

	slots chan *slot    // the free handler slots
	seq   atomic.Uint64 // numbers the random draws, so each has its own stream

	inFlight, peak, waiting    atomic.Int64
	totalRequests, totalErrors atomic.Int64
	streamsOpen                atomic.Int64 // GET streams being served (countStreams)

	mu       sync.Mutex // guards the maps, the cache and stalls below
	byMethod map[string]int64
	faults   map[string]int64
	cache    listCache
	stalls   []StallWindow

	stall  gate
	leaks  leaks
	traces traceIDs

	quit      chan struct{} // closed on the way down: releases stalls and hangs
	done      chan struct{} // closed by Close: stops the stats log
	quitOnce  sync.Once
	closeOnce sync.Once
	stallBg   sync.WaitGroup
	statsBg   sync.WaitGroup
}

// listCache models a tools/list cache with single-flight rebuilds. The SDK
// answers tools/list itself; the model only decides hit or miss and spends
// the build time, so that the stats line and /health have real figures.
type listCache struct {
	built    bool
	builtAt  time.Time
	building chan struct{} // non-nil while a build runs; closed when it ends

	requests, hits, misses, refreshes int64
	builds, failures                  int64
	buildTotal, buildMax              time.Duration
}

// New builds a server from cfg and starts its background work (stall clock,
// stats log). Close stops it.
func New(cfg Config) (*Server, error) {
	cfg, err := cfg.withDefaults()
	if err != nil {
		return nil, fmt.Errorf("target config: %w", err)
	}
	s := &Server{
		cfg:      cfg,
		tools:    make(map[string]*toolDef),
		started:  time.Now(),
		slots:    make(chan *slot, cfg.Capacity),
		byMethod: make(map[string]int64),
		faults:   make(map[string]int64),
		quit:     make(chan struct{}),
		done:     make(chan struct{}),
	}
	for range cfg.Capacity {
		s.slots <- &slot{}
	}
	s.mcp = mcp.NewServer(&mcp.Implementation{Name: cfg.Name, Version: cfg.Version}, &mcp.ServerOptions{
		Instructions: "mcpbench reference server: synthetic tools with a modelled capacity.",
		Capabilities: &mcp.ServerCapabilities{Tools: &mcp.ToolCapabilities{}},
	})
	for _, d := range buildTools(cfg.Tools, cfg.ClientTools) {
		s.tools[d.tool.Name] = d
		s.defs = append(s.defs, d.tool)
		s.mcp.AddTool(wireTool(d.tool), d.handler())
	}
	s.mcp.AddReceivingMiddleware(s.middleware, s.traces.middleware)
	if s.leaks.perRequest = cfg.LeakPerRequest; cfg.LeakPerRequest > 0 {
		s.mcp.AddReceivingMiddleware(s.leaks.middleware)
	}
	s.handler = s.routes()

	if cfg.StatsLog != nil {
		fmt.Fprintf(cfg.StatsLog, "[MCP] Dynamic Loader: %d tools registered\n", len(s.defs))
		s.statsBg.Add(1)
		go s.statsLoop()
	}
	if cfg.Stall > 0 {
		s.stallBg.Add(1)
		go s.stallLoop()
	}
	return s, nil
}

// MCP returns the SDK server, e.g. to run it over stdio.
func (s *Server) MCP() *mcp.Server { return s.mcp }

// Handler serves /mcp (Streamable HTTP), /sse (legacy HTTP+SSE), /health
// and /metrics (Prometheus).
func (s *Server) Handler() http.Handler { return s.handler }

// Config returns the configuration in force, defaults filled in.
func (s *Server) Config() Config { return s.cfg }

// ToolCount is how many tools the server lists.
func (s *Server) ToolCount() int { return len(s.defs) }

// CloseSessions closes every open MCP session, ending their hanging streams.
func (s *Server) CloseSessions() {
	for ss := range s.mcp.Sessions() {
		ss.Close()
	}
}

// release stops the stall clock, lets stalled and hanging requests go and
// closes every session, so that an HTTP shutdown finds nothing to wait for.
func (s *Server) release() {
	s.quitOnce.Do(func() {
		close(s.quit)
		s.stallBg.Wait()
		s.CloseSessions()
	})
}

// Close releases stalled and hanging requests, closes every session and
// stops the stats log, writing a last stats line.
func (s *Server) Close() error {
	s.release()
	s.closeOnce.Do(func() {
		close(s.done)
		s.statsBg.Wait()
		s.leaks.free()
	})
	return nil
}

// rng returns a random source of its own for one draw: safe under
// concurrency without a lock, and reproducible from the seed.
func (s *Server) rng() *rand.Rand {
	n := s.seq.Add(1)
	return rand.New(rand.NewPCG(s.cfg.Seed, splitmix(n)))
}

func splitmix(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9
	x = (x ^ (x >> 27)) * 0x94d049bb133111eb
	return x ^ (x >> 31)
}

// roll decides whether to inject the configured fault into one eligible
// request, and counts it when so.
func (s *Server) roll() bool {
	switch p := s.cfg.FaultRate; {
	case s.cfg.Fault == "" || p <= 0:
		return false
	case p < 1 && s.rng().Float64() >= p:
		return false
	}
	s.mu.Lock()
	s.faults[s.cfg.Fault]++
	s.mu.Unlock()
	s.totalErrors.Add(1)
	return true
}

// serviceTime draws one service time with mean cfg.ServiceTime.
func (s *Server) serviceTime() time.Duration {
	d := s.cfg.ServiceTime
	if d <= 0 {
		return 0
	}
	switch s.cfg.ServiceDist {
	case DistExp:
		return time.Duration(float64(d) * s.rng().ExpFloat64())
	case DistLognormal:
		// exp(mu + sigma*N) has mean exp(mu + sigma^2/2); pick mu for mean d.
		mu := math.Log(float64(d)) - lognormalSigma*lognormalSigma/2
		return time.Duration(math.Exp(mu + lognormalSigma*s.rng().NormFloat64()))
	}
	return d
}

// slot is one handler slot. freeAt is when its last service was due to end:
// the next request to take it, if it was already waiting then, starts its
// service at freeAt rather than when the scheduler gets round to it, so the
// ceiling stays K / service time on a busy machine too.
type slot struct{ freeAt time.Time }

// occupy waits for a handler slot, holds it for one service time, and keeps
// holding it through any stall that began meanwhile.
func (s *Server) occupy(ctx context.Context) error {
	if err := s.stall.wait(ctx, s.quit); err != nil {
		return err
	}
	arrived := time.Now()
	var sl *slot
	s.waiting.Add(1)
	select {
	case sl = <-s.slots:
		s.waiting.Add(-1)
	case <-ctx.Done():
		s.waiting.Add(-1)
		return ctx.Err()
	}
	n := s.inFlight.Add(1)
	for p := s.peak.Load(); n > p && !s.peak.CompareAndSwap(p, n); p = s.peak.Load() {
	}
	end := maxTime(arrived, sl.freeAt).Add(s.serviceTime())
	err := sleep(ctx, time.Until(end))
	if err == nil && s.stall.ch.Load() != nil {
		err = s.stall.wait(ctx, s.quit)
		end = time.Now()
	}
	if err != nil {
		end = time.Now()
	}
	sl.freeAt = end
	s.inFlight.Add(-1)
	s.slots <- sl
	return err
}

func maxTime(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}

func sleep(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return nil
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (s *Server) countMethod(method string) {
	s.mu.Lock()
	s.byMethod[method]++
	s.mu.Unlock()
}

// middleware applies the capacity model, the cache model and MCP-level faults
// to tools/list and tools/call, and counts every method.
func (s *Server) middleware(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		if method != methodList && method != methodCall {
			if !strings.HasPrefix(method, "notifications/") {
				s.totalRequests.Add(1)
			}
			s.countMethod(method)
			res, err := next(ctx, method, req)
			if err != nil {
				s.totalErrors.Add(1)
			}
			return res, err
		}
		if err := s.occupy(ctx); err != nil {
			return nil, fmt.Errorf("request abandoned before service: %w", err)
		}
		s.totalRequests.Add(1)
		s.countMethod(method)

		if method == methodList {
			if s.cfg.Fault == FaultJSONRPCError && s.roll() {
				s.listFailed()
				return nil, injectedError()
			}
			if err := s.listLookup(ctx); err != nil {
				return nil, err
			}
			return next(ctx, method, req)
		}

		var def *toolDef
		if p, ok := req.GetParams().(*mcp.CallToolParamsRaw); ok && p != nil {
			def = s.tools[p.Name]
		}
		switch s.cfg.Fault {
		case FaultJSONRPCError:
			if s.roll() {
				return nil, injectedError()
			}
		case FaultToolError:
			if s.roll() {
				return toolError("injected fault: tool error"), nil
			}
		case FaultBadStructuredContent:
			if def != nil && def.bad != nil && s.roll() {
				return &mcp.CallToolResult{
					Content:           []mcp.Content{&mcp.TextContent{Text: def.text}},
					StructuredContent: def.bad,
				}, nil
			}
		}
		burnCPU(s.cfg.Burn)
		res, err := next(ctx, method, req)
		if r, ok := res.(*mcp.CallToolResult); err != nil || (ok && r.IsError) {
			s.totalErrors.Add(1)
		}
		return res, err
	}
}

func injectedError() error {
	return &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: "injected fault: internal error"}
}

// listLookup accounts one tools/list against the cache: a hit when the last
// build is younger than the TTL or a build is under way (single flight), else
// a miss that builds.
func (s *Server) listLookup(ctx context.Context) error {
	ttl := s.cfg.ListCacheTTL
	s.mu.Lock()
	c := &s.cache
	c.requests++
	if ttl > 0 && c.built && time.Since(c.builtAt) < ttl {
		c.hits++
		s.mu.Unlock()
		return nil
	}
	if ttl > 0 && c.building != nil {
		ch := c.building
		c.hits++
		s.mu.Unlock()
		select {
		case <-ch:
			return nil
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	c.misses++
	if c.built {
		c.refreshes++
	}
	var ch chan struct{}
	if ttl > 0 {
		ch = make(chan struct{})
		c.building = ch
	}
	s.mu.Unlock()

	start := time.Now()
	err := s.buildList(ctx)
	took := time.Since(start)

	s.mu.Lock()
	c.builds++
	c.buildTotal += took
	c.buildMax = max(c.buildMax, took)
	if err != nil {
		c.failures++
	} else {
		c.built, c.builtAt = true, time.Now()
	}
	if ch != nil {
		c.building = nil
		close(ch)
	}
	s.mu.Unlock()
	return err
}

// buildList does the work a real server's list build does: serialise every
// tool definition, then any configured extra build time.
func (s *Server) buildList(ctx context.Context) error {
	if _, err := json.Marshal(s.defs); err != nil {
		return fmt.Errorf("build tools/list: %w", err)
	}
	return sleep(ctx, s.cfg.ListBuildTime)
}

// listFailed accounts a tools/list whose build was made to fail.
func (s *Server) listFailed() {
	s.mu.Lock()
	s.cache.requests++
	s.cache.misses++
	s.cache.builds++
	s.cache.failures++
	if s.cache.built {
		s.cache.refreshes++
	}
	s.mu.Unlock()
}
