package target

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"slices"
	"sync/atomic"
	"time"
)

// gate is closed while the server stalls: it holds a channel that is closed
// when the stall ends, or nil when the server runs.
type gate struct{ ch atomic.Pointer[chan struct{}] }

// wait returns once no stall is under way, or the error of ctx.
func (g *gate) wait(ctx context.Context, done <-chan struct{}) error {
	p := g.ch.Load()
	if p == nil {
		return nil
	}
	select {
	case <-*p:
		return nil
	case <-done:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// StallWindow is one whole-server pause.
type StallWindow struct {
	Start time.Time `json:"start"`
	End   time.Time `json:"end"`
}

// stallLoop pauses the server for cfg.Stall every cfg.StallEvery.
func (s *Server) stallLoop() {
	defer s.stallBg.Done()
	tick := time.NewTicker(s.cfg.StallEvery)
	defer tick.Stop()
	for {
		select {
		case <-s.quit:
			return
		case <-tick.C:
		}
		ch := make(chan struct{})
		start := time.Now()
		s.stall.ch.Store(&ch)
		t := time.NewTimer(s.cfg.Stall)
		select {
		case <-t.C:
		case <-s.quit:
			t.Stop()
		}
		s.stall.ch.Store(nil)
		close(ch)
		end := time.Now()
		s.mu.Lock()
		s.stalls = append(s.stalls, StallWindow{Start: start, End: end})
		s.mu.Unlock()
	}
}

// ListStats are the tools/list cache counters, cumulative since start.
type ListStats struct {
	Requests      int64   `json:"requests"`
	CacheHits     int64   `json:"cache_hits"`
	CacheMisses   int64   `json:"cache_misses"`
	Refreshes     int64   `json:"cache_refreshes"`
	HitRatePct    float64 `json:"hit_rate_pct"`
	BuildCount    int64   `json:"build_count"`
	BuildFailures int64   `json:"build_failures"`
	BuildAvgMs    float64 `json:"build_avg_ms"`
	BuildMaxMs    float64 `json:"build_max_ms"`
}

// Observability is the seed servers' request-pressure summary.
type Observability struct {
	TotalRequests int64 `json:"total_requests"`
	TotalErrors   int64 `json:"total_errors"`
	InFlight      int64 `json:"in_flight"`
}

// Health is the /health document.
type Health struct {
	Status           string           `json:"status"`
	Name             string           `json:"name"`
	Version          string           `json:"version"`
	Mode             string           `json:"mode"` // stateful or stateless
	StartedAt        time.Time        `json:"started_at"`
	UptimeS          float64          `json:"uptime_s"`
	Tools            int              `json:"tools"`
	InFlight         int64            `json:"in_flight"`
	Waiting          int64            `json:"waiting"`
	PeakInFlight     int64            `json:"peak_in_flight"`
	MaxInFlight      int              `json:"max_in_flight"`
	RequestsByMethod map[string]int64 `json:"requests_by_method"`
	SessionsOpen     int              `json:"sessions_open"`
	StreamsOpen      int64            `json:"streams_open"` // standing GET streams being served
	CacheHits        int64            `json:"cache_hits"`
	CacheMisses      int64            `json:"cache_misses"`
	CacheRefreshes   int64            `json:"cache_refreshes"`
	HitRatePct       float64          `json:"hit_rate_pct"`
	ToolsList        ListStats        `json:"tools_list"`
	Observability    Observability    `json:"observability"`
	FaultsInjected   map[string]int64 `json:"faults_injected"`
	Stalls           []StallWindow    `json:"stalls"`
}

// Health returns the server's figures now.
func (s *Server) Health() Health {
	sessions := 0
	for range s.mcp.Sessions() {
		sessions++
	}
	s.mu.Lock()
	ls := s.listStatsLocked()
	h := Health{
		Status:           "ok",
		Name:             s.cfg.Name,
		Version:          s.cfg.Version,
		Mode:             "stateful",
		StartedAt:        s.started,
		UptimeS:          time.Since(s.started).Seconds(),
		Tools:            len(s.defs),
		InFlight:         s.inFlight.Load(),
		Waiting:          s.waiting.Load(),
		PeakInFlight:     s.peak.Load(),
		MaxInFlight:      s.cfg.Capacity,
		RequestsByMethod: maps.Clone(s.byMethod),
		SessionsOpen:     sessions,
		StreamsOpen:      s.streamsOpen.Load(),
		CacheHits:        ls.CacheHits,
		CacheMisses:      ls.CacheMisses,
		CacheRefreshes:   ls.Refreshes,
		HitRatePct:       ls.HitRatePct,
		ToolsList:        ls,
		FaultsInjected:   maps.Clone(s.faults),
		Stalls:           slices.Clone(s.stalls),
	}
	s.mu.Unlock()
	if s.cfg.Stateless {
		h.Mode = "stateless"
	}
	if h.Stalls == nil {
		h.Stalls = []StallWindow{}
	}
	h.Observability = Observability{
		TotalRequests: s.totalRequests.Load(),
		TotalErrors:   s.totalErrors.Load(),
		InFlight:      h.InFlight,
	}
	return h
}

func (s *Server) listStatsLocked() ListStats {
	c := &s.cache
	ls := ListStats{
		Requests:      c.requests,
		CacheHits:     c.hits,
		CacheMisses:   c.misses,
		Refreshes:     c.refreshes,
		BuildCount:    c.builds,
		BuildFailures: c.failures,
		BuildMaxMs:    ms(c.buildMax),
	}
	if c.requests > 0 {
		ls.HitRatePct = 100 * float64(c.hits) / float64(c.requests)
	}
	if c.builds > 0 {
		ls.BuildAvgMs = ms(c.buildTotal) / float64(c.builds)
	}
	return ls
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

func (s *Server) serveHealth(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		w.Header().Set("Allow", "GET, HEAD")
		http.Error(w, "Method Not Allowed", http.StatusMethodNotAllowed)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.Encode(s.Health())
}

// StatsLine is the "[MCP] tools/list stats" line (with its newline) of the
// cumulative counters now.
func (s *Server) StatsLine() string {
	s.mu.Lock()
	ls := s.listStatsLocked()
	s.mu.Unlock()
	return fmt.Sprintf("[MCP] tools/list stats requests=%d hit_rate=%.2f%% cache_hits=%d cache_misses=%d "+
		"build_count=%d build_failures=%d build_avg_ms=%.3f build_max_ms=%.3f "+
		"in_flight=%d peak_in_flight=%d max_in_flight=%d\n",
		ls.Requests, ls.HitRatePct, ls.CacheHits, ls.CacheMisses,
		ls.BuildCount, ls.BuildFailures, ls.BuildAvgMs, ls.BuildMaxMs,
		s.inFlight.Load(), s.peak.Load(), s.cfg.Capacity)
}

// statsLoop writes the stats line every interval, and once more on Close.
func (s *Server) statsLoop() {
	defer s.statsBg.Done()
	tick := time.NewTicker(s.cfg.StatsInterval)
	defer tick.Stop()
	for {
		select {
		case <-tick.C:
			s.cfg.StatsLog.Write([]byte(s.StatsLine()))
		case <-s.done:
			s.cfg.StatsLog.Write([]byte(s.StatsLine()))
			return
		}
	}
}

// FetchHealth reads a running server's /health at url (a test's or a
// script's view of what the server counted).
func FetchHealth(url string) (Health, error) {
	var h Health
	resp, err := http.Get(url) //nolint:gosec // the caller's own server
	if err != nil {
		return h, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return h, fmt.Errorf("%s: %s", url, resp.Status)
	}
	return h, json.NewDecoder(resp.Body).Decode(&h)
}
