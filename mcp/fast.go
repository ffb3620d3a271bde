package mcp

import (
	"bytes"
	"context"
	"errors"
	"net"
	"net/url"
	"os"
	"strings"
	"sync/atomic"
	"time"

	"github.com/valyala/fasthttp"
)

// Engines that carry Streamable HTTP POSTs.
const (
	EngineAuto    = "auto"
	EngineFast    = "fasthttp"
	EngineNetHTTP = "net/http"
	// Per-connection buffers: room for an answer's headers; the body has
	// its own buffer. Small, so ten thousand connections stay affordable.
	fastReadBuffer  = 8 << 10
	fastWriteBuffer = 4 << 10
)

// The fasthttp engine carries the measured POSTs of plain-HTTP Streamable
// HTTP: per request it allocates nothing and costs about a third of
// net/http's CPU (see scripts/bench-peers.sh), CPU the server under test
// would otherwise lose on a shared machine. Everything else (TLS and HTTP/2,
// proxies, legacy SSE streams, stream resumption, DELETE) stays on
// net/http.

// fastEligible says whether the fasthttp engine can serve u under o.
func fastEligible(u *url.URL, o Options) bool {
	if u.Scheme != "http" {
		return false // TLS and HTTP/2 stay with net/http
	}
	for _, k := range []string{"HTTP_PROXY", "http_proxy", "ALL_PROXY", "all_proxy"} {
		if os.Getenv(k) != "" && !noProxyCovers(u.Hostname()) {
			return false // proxies are net/http's
		}
	}
	return true
}

// noProxyCovers reports whether NO_PROXY names host (loopback always is, as
// net/http treats it).
func noProxyCovers(host string) bool {
	if host == "localhost" || net.ParseIP(host) != nil && net.ParseIP(host).IsLoopback() {
		return true
	}
	for _, k := range []string{"NO_PROXY", "no_proxy"} {
		for _, h := range strings.Split(os.Getenv(k), ",") {
			h = strings.TrimSpace(h)
			if h == "*" || h != "" && strings.HasSuffix(host, strings.TrimPrefix(h, ".")) {
				return true
			}
		}
	}
	return false
}

func newFastClient(u *url.URL, o Options, pool int, dials *atomic.Int64) *fasthttp.HostClient {
	addr := u.Host
	if u.Port() == "" {
		addr = net.JoinHostPort(u.Hostname(), "80")
	}
	dialer := &net.Dialer{Timeout: 10 * time.Second, KeepAlive: 30 * time.Second}
	gate := newDialGate()
	return &fasthttp.HostClient{
		Addr:                      addr,
		NoDefaultUserAgentHeader:  true,
		MaxConns:                  pool,
		MaxConnWaitTimeout:        o.Timeout,
		MaxIdleConnDuration:       90 * time.Second,
		MaxResponseBodySize:       int(o.MaxResponseBytes),
		MaxIdemponentCallAttempts: 1,
		// A load tester never resends: a retried request would be counted
		// once and cost the server twice.
		RetryIfErr:      func(*fasthttp.Request, int, error) (bool, bool) { return false, false },
		ReadBufferSize:  fastReadBuffer,
		WriteBufferSize: fastWriteBuffer,
		Dial: func(addr string) (net.Conn, error) {
			dials.Add(1)
			defer gate.enter()()
			return dialer.Dial("tcp", addr)
		},
	}
}

// fastRequest is a prepared request's fasthttp form, headers set once.
type fastRequest struct {
	req     *fasthttp.Request
	session string
	rev     string
}

// fastRequestFor returns p's fasthttp request, built again only when the
// session id or revision changed.
func (s *Session) fastRequestFor(p *Prepared) *fasthttp.Request {
	if p.fast != nil && p.fast.session == s.id && p.fast.rev == s.c.rev {
		return p.fast.req
	}
	req := fasthttp.AcquireRequest()
	req.Header.SetMethod("POST")
	req.SetRequestURI(s.c.url.String())
	for k, vs := range s.buildHeader(p) {
		for _, v := range vs {
			req.Header.Add(k, v)
		}
	}
	if p.fast != nil {
		fasthttp.ReleaseRequest(p.fast.req)
	}
	p.fast = &fastRequest{req: req, session: s.id, rev: s.c.rev}
	return req
}

// exchangeFast is exchangeStreamable on the fasthttp engine. The answer is
// read whole (bounded by --max-response-bytes) before it is parsed, which
// is what reading an SSE answer to its end amounts to anyway.
func (s *Session) exchangeFast(ctx context.Context, p *Prepared, body []byte, id int64, res *Result) (bool, error) {
	req := s.fastRequestFor(p)
	req.SetBodyRaw(body)
	if s.fastResp == nil {
		s.fastResp = fasthttp.AcquireResponse()
	}
	resp := s.fastResp
	resp.Reset()
	timeout := s.c.opts.Timeout
	if dl, ok := ctx.Deadline(); ok {
		timeout = time.Until(dl)
	}
	err := s.c.fast.DoTimeout(req, resp, timeout)
	req.SetBodyRaw(nil) // the body is the session's buffer; do not keep it
	if err != nil {
		return false, fastError(p, err)
	}
	raw := resp.Body()
	s.fastBody.Reset(raw)
	var sid string
	if p.req.Method == "initialize" {
		sid = string(resp.Header.Peek("Mcp-Session-Id"))
	}
	found, aerr := s.answer(ctx, p, id, res, resp.StatusCode(), bytesToString(resp.Header.ContentType()), sid, &s.fastBody)
	res.Received = int64(len(raw))
	return found, aerr
}

func fastError(p *Prepared, err error) *Error {
	switch {
	case errors.Is(err, fasthttp.ErrTimeout), errors.Is(err, fasthttp.ErrDialTimeout):
		return &Error{Kind: KindTimeout, Msg: p.req.Method, Err: err}
	case errors.Is(err, fasthttp.ErrNoFreeConns):
		return &Error{Kind: KindTimeout, Msg: p.req.Method + ": no free connection in time", Err: err}
	case errors.Is(err, fasthttp.ErrBodyTooLarge):
		return &Error{Kind: KindTransport, Msg: "answer larger than --max-response-bytes", Err: err}
	}
	var op *net.OpError
	if errors.As(err, &op) && op.Op == "dial" {
		return &Error{Kind: KindConnect, Msg: p.req.Method, Err: err}
	}
	return &Error{Kind: classifyNetErr(err), Msg: p.req.Method, Err: err}
}

// bytesToString copies; content types are short.
func bytesToString(b []byte) string {
	if bytes.Equal(b, ctJSON) {
		return "application/json"
	}
	if bytes.Equal(b, ctSSE) {
		return "text/event-stream"
	}
	return string(b)
}

var (
	ctJSON = []byte("application/json")
	ctSSE  = []byte("text/event-stream")
)
