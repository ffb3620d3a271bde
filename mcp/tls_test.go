package mcp

import (
	"context"
	"encoding/pem"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

func TestTLSAndHTTP2(t *testing.T) {
	srv := sdk.NewServer(&sdk.Implementation{Name: "tls", Version: "1"}, nil)
	h := sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return srv }, &sdk.StreamableHTTPOptions{Stateless: true})
	var h2, auth atomic.Int64
	ts := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.ProtoMajor == 2 {
			h2.Add(1)
		}
		if r.Header.Get("Authorization") == "Bearer s3cret" {
			auth.Add(1)
		}
		h.ServeHTTP(w, r)
	}))
	ts.EnableHTTP2 = true
	ts.StartTLS()
	defer ts.Close()
	ctx := context.Background()

	if _, err := Dial(ctx, Options{URL: ts.URL + "/mcp", Timeout: 5 * time.Second}); err == nil {
		t.Fatal("an unknown certificate was accepted without --insecure or --cacert")
	}
	pemPath := filepath.Join(t.TempDir(), "ca.pem")
	if err := os.WriteFile(pemPath, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: ts.Certificate().Raw}), 0o600); err != nil {
		t.Fatal(err)
	}
	for name, o := range map[string]Options{
		"insecure": {Insecure: true},
		"cacert":   {CACert: pemPath},
	} {
		t.Run(name, func(t *testing.T) {
			o.URL, o.Timeout = ts.URL+"/mcp", 5*time.Second
			o.Header = http.Header{"Authorization": {"Bearer s3cret"}}
			c, err := Dial(ctx, o)
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close(ctx)
			s, _ := c.NewSession(ctx)
			p, _ := s.Prepare(Request{Method: "tools/list"})
			before := h2.Load()
			for i := 0; i < 5; i++ {
				if r := s.Do(ctx, p, ""); r.Kind != OK {
					t.Fatal(r.Err)
				}
			}
			if h2.Load()-before != 5 {
				t.Fatalf("%d of 5 requests went over HTTP/2", h2.Load()-before)
			}
		})
	}
	if auth.Load() == 0 {
		t.Fatal("the Authorization header was not sent")
	}
}

// TestRedirectNotFollowed: a redirect is reported, not followed, so an
// Authorization header can never travel to another host.
func TestRedirectNotFollowed(t *testing.T) {
	var elsewhere atomic.Int64
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { elsewhere.Add(1) }))
	defer other.Close()
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, other.URL+"/mcp", http.StatusTemporaryRedirect)
	}))
	defer ts.Close()
	_, err := Dial(context.Background(), Options{URL: ts.URL + "/mcp", Timeout: 2 * time.Second, Header: http.Header{"Authorization": {"Bearer s3cret"}}})
	if err == nil {
		t.Fatal("a redirecting endpoint was accepted")
	}
	if elsewhere.Load() != 0 {
		t.Fatalf("the request followed the redirect %d times", elsewhere.Load())
	}
}
