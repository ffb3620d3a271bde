package mcp

import (
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcpbench/mcpbench/mcp/internal/connbook"
)

// TestBookedClientClosesIdle: a client whose connections are booked still
// closes its idle ones when asked (at the end of a run, of a detached
// session), as net/http's own transport does: the server sees its
// connection closed.
func TestBookedClientClosesIdle(t *testing.T) {
	closed := make(chan struct{}, 1)
	ts := httptest.NewUnstartedServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {}))
	ts.Config.ConnState = func(_ net.Conn, st http.ConnState) {
		if st == http.StateClosed {
			closed <- struct{}{}
		}
	}
	ts.Start()
	defer ts.Close()
	hc, err := httpSetup{dials: new(atomic.Int64), book: true}.client()
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := hc.Transport.(*connbook.Transport); !ok {
		t.Fatalf("transport %T, want its connections booked when sessions are abandoned", hc.Transport)
	}
	resp, err := hc.Get(ts.URL)
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	hc.CloseIdleConnections()
	select {
	case <-closed:
	case <-time.After(2 * time.Second):
		t.Fatal("the client's idle connection was left open after CloseIdleConnections")
	}
}
