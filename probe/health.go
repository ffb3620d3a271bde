package probe

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"sort"
	"strings"
	"time"

	"github.com/mcpbench/mcpbench/mcp"
)

// maxPlainBody bounds the body of a health or server-info GET: these are
// small documents, and a probe must not swallow a stream.
const maxPlainBody = 1 << 20

// getInfoTimeout bounds the GET of the endpoint: a server that answers it
// with an SSE stream would otherwise hold it for the whole request timeout.
const getInfoTimeout = 3 * time.Second

// HealthSnapshot is one GET of the health endpoint.
type HealthSnapshot struct {
	URL        string  `json:"url"`
	OK         bool    `json:"ok"`
	StatusCode int     `json:"status_code"` // 0 when there was no answer
	Error      string  `json:"error,omitempty"`
	LatencyMS  float64 `json:"latency_ms"`
	// Body is the parsed JSON body, null when there was none or it was not
	// JSON.
	Body json.RawMessage `json:"body"`
	// Cache holds the cache figures found in the body, null when absent.
	Cache *HealthCache `json:"cache"`
	// Observability is the body's observability block, null when absent.
	Observability json.RawMessage `json:"observability"`
}

// HealthCache are the tools/list cache figures seed servers put in /health.
type HealthCache struct {
	Hits       *int64   `json:"cache_hits,omitempty"`
	Misses     *int64   `json:"cache_misses,omitempty"`
	Refreshes  *int64   `json:"cache_refreshes,omitempty"`
	HitRatePct *float64 `json:"hit_rate_pct,omitempty"`
}

// Health is the snapshot taken before the probe, the one taken after it,
// and the change between them.
type Health struct {
	HealthSnapshot
	After *HealthSnapshot `json:"after"`
	Delta *HealthDelta    `json:"delta"`
}

// HealthDelta is after minus before. The cache counters and the hit rate
// over the probe's window are set when both snapshots have them; Fields has
// every numeric field of the body that changed, by dotted path (e.g.
// "requests_by_method.tools/list", "observability.total_requests").
type HealthDelta struct {
	CacheHits        *int64             `json:"cache_hits"`
	CacheMisses      *int64             `json:"cache_misses"`
	CacheRefreshes   *int64             `json:"cache_refreshes,omitempty"`
	WindowHitRatePct *float64           `json:"window_hit_rate_pct"`
	Observability    map[string]float64 `json:"observability,omitempty"`
	Fields           map[string]float64 `json:"fields"`
}

// plainHTTP makes the probe's requests that are not JSON-RPC.
type plainHTTP struct {
	hc   *http.Client
	opts mcp.Options
}

// get fetches u with Accept: application/json and returns the status and a
// bounded body. The caller's headers go only to the endpoint's origin: a
// health URL elsewhere must not receive its credentials.
func (p *plainHTTP) get(ctx context.Context, u string, timeout time.Duration) (int, []byte, error) {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return 0, nil, err
	}
	if sameOrigin(u, p.opts.URL) {
		for k, v := range p.opts.Header {
			req.Header[k] = v
		}
	}
	req.Header.Set("Accept", "application/json")
	resp, err := p.hc.Do(req)
	if err != nil {
		return 0, nil, fmt.Errorf("GET %s: %w", mcp.Redact(u), err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxPlainBody+1))
	if err != nil {
		return resp.StatusCode, nil, fmt.Errorf("reading %s: %w", mcp.Redact(u), err)
	}
	if len(body) > maxPlainBody {
		return resp.StatusCode, nil, fmt.Errorf("%s: body larger than %d bytes", mcp.Redact(u), maxPlainBody)
	}
	return resp.StatusCode, body, nil
}

// health takes one snapshot. A missing or broken health endpoint is data
// (ok false with the reason), never a failure of the probe.
func (p *plainHTTP) health(ctx context.Context, u string) HealthSnapshot {
	h := HealthSnapshot{URL: mcp.Redact(u)}
	if u == "" {
		h.Error = errNoEndpoint.Error()
		return h
	}
	start := time.Now()
	code, body, err := p.get(ctx, u, healthTimeout(p.opts))
	h.LatencyMS = msSince(start)
	h.StatusCode = code
	if err != nil {
		h.Error = err.Error()
		return h
	}
	if code < 200 || code > 299 {
		h.Error = errStatus(code).Error()
	}
	var doc any
	if json.Unmarshal(body, &doc) != nil {
		if h.Error == "" {
			h.Error = "body is not JSON"
		}
		h.OK = false
		return h
	}
	h.OK = code >= 200 && code <= 299
	var compact bytes.Buffer
	if json.Compact(&compact, body) == nil {
		h.Body = compact.Bytes()
	}
	if obj, ok := doc.(map[string]any); ok {
		h.Cache = cacheFigures(obj)
		if o, ok := obj["observability"]; ok && o != nil {
			h.Observability, _ = json.Marshal(o)
		}
	}
	return h
}

// cacheFigures finds the cache counters at the top of the body or, as some
// gateways nest them, in one of its objects.
func cacheFigures(obj map[string]any) *HealthCache {
	if c := cacheIn(obj); c != nil {
		return c
	}
	keys := make([]string, 0, len(obj))
	for k := range obj {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if m, ok := obj[k].(map[string]any); ok {
			if c := cacheIn(m); c != nil {
				return c
			}
		}
	}
	return nil
}

func cacheIn(m map[string]any) *HealthCache {
	c := &HealthCache{Hits: intField(m, "cache_hits"), Misses: intField(m, "cache_misses"),
		Refreshes: intField(m, "cache_refreshes"), HitRatePct: floatField(m, "hit_rate_pct")}
	if c.Hits == nil && c.Misses == nil && c.HitRatePct == nil {
		return nil
	}
	return c
}

func intField(m map[string]any, k string) *int64 {
	if f, ok := m[k].(float64); ok {
		v := int64(f)
		return &v
	}
	return nil
}

func floatField(m map[string]any, k string) *float64 {
	if f, ok := m[k].(float64); ok {
		return &f
	}
	return nil
}

// healthDelta is after minus before; nil unless both have a JSON body.
func healthDelta(before, after HealthSnapshot) *HealthDelta {
	if before.Body == nil || after.Body == nil {
		return nil
	}
	b, a := map[string]float64{}, map[string]float64{}
	bObjects := map[string]bool{}
	flatten("", decode(before.Body), b, bObjects)
	flatten("", decode(after.Body), a, map[string]bool{})
	d := &HealthDelta{Fields: map[string]float64{}}
	for k, av := range a {
		bv, ok := b[k]
		if !ok && bObjects[parentPath(k)] {
			// A key new in an object that was there before is a counter
			// that started at zero, e.g. requests_by_method.tools/list.
			bv, ok = 0, true
		}
		if ok && av != bv {
			d.Fields[k] = av - bv
		}
	}
	if bc, ac := before.Cache, after.Cache; bc != nil && ac != nil {
		d.CacheHits = sub(bc.Hits, ac.Hits)
		d.CacheMisses = sub(bc.Misses, ac.Misses)
		d.CacheRefreshes = sub(bc.Refreshes, ac.Refreshes)
		if d.CacheHits != nil && d.CacheMisses != nil && *d.CacheHits+*d.CacheMisses > 0 {
			r := 100 * float64(*d.CacheHits) / float64(*d.CacheHits+*d.CacheMisses)
			d.WindowHitRatePct = &r
		}
	}
	for k, v := range d.Fields {
		if rest, ok := cutPrefix(k, "observability."); ok {
			if d.Observability == nil {
				d.Observability = map[string]float64{}
			}
			d.Observability[rest] = v
		}
	}
	return d
}

func cutPrefix(s, prefix string) (string, bool) {
	if len(s) > len(prefix) && s[:len(prefix)] == prefix {
		return s[len(prefix):], true
	}
	return "", false
}

func sub(before, after *int64) *int64 {
	if before == nil || after == nil {
		return nil
	}
	v := *after - *before
	return &v
}

func decode(b json.RawMessage) any {
	var v any
	_ = json.Unmarshal(b, &v)
	return v
}

// flatten collects the numeric leaves of v by dotted path, and the paths of
// its objects; arrays are left out, their elements have no stable identity.
func flatten(prefix string, v any, out map[string]float64, objects map[string]bool) {
	switch x := v.(type) {
	case float64:
		if prefix != "" {
			out[prefix] = x
		}
	case map[string]any:
		objects[prefix] = true
		for k, y := range x {
			p := k
			if prefix != "" {
				p = prefix + "." + k
			}
			flatten(p, y, out, objects)
		}
	}
}

// parentPath is the dotted path of the object holding k ("" for the root).
// Keys may hold dots themselves; the last dot is the best guess.
func parentPath(k string) string {
	if i := strings.LastIndexByte(k, '.'); i >= 0 {
		return k[:i]
	}
	return ""
}

// serverInfo is getInfo of the client's endpoint; a stdio server has none.
func (p *plainHTTP) serverInfo(ctx context.Context, c *mcp.Client) (json.RawMessage, string) {
	if c.Engine() == mcp.EngineStdio {
		return nil, errNoEndpoint.Error()
	}
	return p.getInfo(ctx, c.URL())
}

// getInfo does a plain GET of the endpoint, which seed servers answer with
// {name, version, protocolVersion, message}. It returns null and the reason
// when the server offers no such document.
func (p *plainHTTP) getInfo(ctx context.Context, endpoint string) (json.RawMessage, string) {
	code, body, err := p.get(ctx, endpoint, min(getInfoTimeout, healthTimeout(p.opts)))
	if err != nil {
		return nil, err.Error()
	}
	if code < 200 || code > 299 {
		return nil, errStatus(code).Error()
	}
	var obj map[string]any
	if json.Unmarshal(body, &obj) != nil || obj == nil {
		return nil, "answer is not a JSON object"
	}
	var compact bytes.Buffer
	if err := json.Compact(&compact, body); err != nil {
		return nil, err.Error()
	}
	return compact.Bytes(), ""
}

// errNoEndpoint: a stdio server has no URL to GET, for health or info.
var errNoEndpoint = errors.New("no HTTP endpoint: the server is spoken to over stdio")

// resolveHealthURL returns the health URL: the given one, or /health on the
// endpoint's origin ("" for a server with no endpoint, over stdio).
func resolveHealthURL(endpoint, health string) (string, error) {
	if health != "" {
		u, err := url.Parse(health)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return "", fmt.Errorf("bad health URL %q: want http(s)://host/path", mcp.Redact(health))
		}
		return health, nil
	}
	if endpoint == "" {
		return "", nil
	}
	u, err := mcp.ParseURL(endpoint)
	if err != nil {
		return "", err
	}
	o := url.URL{Scheme: u.Scheme, User: u.User, Host: u.Host, Path: "/health"}
	return o.String(), nil
}

func sameOrigin(a, b string) bool {
	ua, err1 := url.Parse(a)
	ub, err2 := url.Parse(b)
	return err1 == nil && err2 == nil && ua.Scheme == ub.Scheme && ua.Host == ub.Host
}

func msSince(t time.Time) float64 { return float64(time.Since(t)) / float64(time.Millisecond) }
