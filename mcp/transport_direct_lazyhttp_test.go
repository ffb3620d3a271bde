package mcp

import (
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
)

// TestLazyTransportAfterClose: a detached client's net/http transport is
// made on first use, also after its idle connections were closed before
// any use (a session cancelled a request after its client was closed:
// the transport was never made, and the first version panicked).
func TestLazyTransportAfterClose(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusAccepted) }))
	defer srv.Close()
	hc, side := lazyHTTPClients(httpSetup{o: Options{PoolSize: 1}, dials: new(atomic.Int64)})
	for _, c := range []*http.Client{hc, side} {
		if c.Transport.(*lazyTransport).rt != nil {
			t.Fatal("a transport was made before its first request")
		}
		c.CloseIdleConnections()
		resp, err := c.Get(srv.URL)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusAccepted {
			t.Fatalf("HTTP %d", resp.StatusCode)
		}
	}
	if tr := side.Transport.(*lazyTransport).rt.(*http.Transport); tr.MaxIdleConnsPerHost != 4 || tr.MaxConnsPerHost != 0 {
		t.Fatalf("the side client's transport keeps %d idle, caps at %d", tr.MaxIdleConnsPerHost, tr.MaxConnsPerHost)
	}
}
