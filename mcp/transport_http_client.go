package mcp

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"net"
	"net/http"
	"os"
	"sync/atomic"
	"time"

	"github.com/mcpbench/mcpbench/internal/h1"
	"github.com/mcpbench/mcpbench/mcp/internal/connbook"
)

// NewHTTPClient builds the pooled HTTP client a load run needs: as many idle
// connections kept as there are workers, no compression (bytes are measured
// as sent), no redirects followed (a load tester must not wander off).
// Its dials are counted on the counter returned.
func NewHTTPClient(o Options) (*http.Client, *atomic.Int64, error) {
	h := httpSetup{o: o, dials: new(atomic.Int64)}
	hc, err := h.client()
	return hc, h.dials, err
}

// httpSetup is what a client's HTTP clients are made from: the options,
// the counter of dials all of the client's share, and whether their
// connections are booked for abandoned sessions to drop (Hooks.Abandon).
type httpSetup struct {
	o     Options
	dials *atomic.Int64
	book  bool
}

// http is the set-up of c's HTTP clients under o.
func (c *Client) http(o Options) httpSetup {
	return httpSetup{o: o, dials: c.dials, book: c.hooks.Abandon != nil}
}

// client makes the pooled HTTP client of NewHTTPClient.
func (h httpSetup) client() (*http.Client, error) {
	o, dials := h.o, h.dials
	pool := o.PoolSize
	if pool < 1 {
		pool = 1
	}
	dialer := &net.Dialer{Timeout: 10 * time.Second, KeepAlive: 30 * time.Second}
	gate := h1.NewDialGate(maxConcurrentDials)
	tr := &http.Transport{
		Proxy: http.ProxyFromEnvironment,
		DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
			dials.Add(1)
			defer gate.Enter()()
			return dialer.DialContext(ctx, network, addr)
		},
		MaxIdleConns:        pool,
		MaxIdleConnsPerHost: pool,
		// The pool is the cap: a request that finds every connection busy
		// waits rather than dialling a spare that is thrown away after
		// (which a fast worker would otherwise do while its last
		// connection is still on its way back to the pool). Sessions
		// time such waits, so a pool too small for the load shows.
		MaxConnsPerHost:       pool,
		IdleConnTimeout:       90 * time.Second,
		DisableCompression:    true,
		ForceAttemptHTTP2:     true, // HTTP/2 where TLS offers it
		TLSHandshakeTimeout:   10 * time.Second,
		ExpectContinueTimeout: 0,
		// An answer's head is a few hundred bytes; net/http's default
		// bound (10 MB) would let each connection hold megabytes.
		MaxResponseHeaderBytes: maxHeadBytes,
		WriteBufferSize:        16 << 10,
		ReadBufferSize:         16 << 10,
	}
	if o.Insecure || o.CACert != "" {
		cfg := &tls.Config{InsecureSkipVerify: o.Insecure} //nolint:gosec // asked for with --insecure
		if o.CACert != "" {
			pem, err := os.ReadFile(o.CACert)
			if err != nil {
				return nil, optionErrorf("CACert", "%v", err)
			}
			pool, err := x509.SystemCertPool()
			if err != nil || pool == nil {
				pool = x509.NewCertPool()
			}
			if !pool.AppendCertsFromPEM(pem) {
				return nil, optionErrorf("CACert", "%s: no PEM certificate found", o.CACert)
			}
			cfg.RootCAs = pool
		}
		tr.TLSClientConfig = cfg
	}
	var rt http.RoundTripper = tr
	if h.book {
		rt = connbook.New(tr)
	}
	return &http.Client{Transport: rt, CheckRedirect: noRedirect}, nil
}

// maxHeadBytes bounds an answer's status line and headers on net/http.
const maxHeadBytes = 64 << 10

// maxConcurrentDials bounds connection attempts in flight. Ten thousand
// workers starting at once would otherwise send ten thousand SYNs
// together, overflow the server's accept queue and measure the kernel's
// retransmission back-off instead of the server.
const maxConcurrentDials = 128
