package probe

import (
	"context"
	"net/http"

	"github.com/mcpbench/mcpbench/mcp"
)

// HealthWatch takes the server's health around a load that is not a probe
// (run and sweep with --health-url): a snapshot before, one after, and the
// change between them, as the probe reports it.
type HealthWatch struct {
	plain *plainHTTP
	hc    *http.Client
	url   string
	res   Health
}

// WatchHealth resolves the health URL (default /health on the endpoint's
// origin) and takes the first snapshot. An unreachable health endpoint is
// recorded, not an error; a malformed URL is.
func WatchHealth(ctx context.Context, opts mcp.Options, healthURL string) (*HealthWatch, error) {
	u, err := resolveHealthURL(opts.URL, healthURL)
	if err != nil {
		return nil, err
	}
	hc, _, err := mcp.NewHTTPClient(withPool(opts, 1))
	if err != nil {
		return nil, err
	}
	w := &HealthWatch{plain: &plainHTTP{hc: hc, opts: opts}, hc: hc, url: u}
	w.res.HealthSnapshot = w.plain.health(ctx, u)
	return w, nil
}

// Finish takes the second snapshot and returns all three.
func (w *HealthWatch) Finish(ctx context.Context) *Health {
	defer w.hc.CloseIdleConnections()
	after := w.plain.health(ctx, w.url)
	w.res.After = &after
	w.res.Delta = healthDelta(w.res.HealthSnapshot, after)
	return &w.res
}
