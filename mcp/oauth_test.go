package mcp

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"golang.org/x/oauth2"
)

// TestRenewAt: a token is renewed a fifth of its life before it ends, and
// never more than ten seconds before (inside the window in which the
// oauth2 token sources fetch anew); one without an expiry is not renewed
// on a schedule.
func TestRenewAt(t *testing.T) {
	got := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for _, c := range []struct {
		life, want time.Duration
	}{
		{10 * time.Second, 8 * time.Second},
		{2 * time.Second, 1600 * time.Millisecond},
		{time.Hour, time.Hour - 10*time.Second},
	} {
		b := &bearer{token: &oauth2.Token{Expiry: got.Add(c.life)}, got: got}
		if at := renewAt(b); at.Sub(got) != c.want {
			t.Errorf("a %v token renewed after %v, want %v", c.life, at.Sub(got), c.want)
		}
	}
	if at := renewAt(&bearer{token: &oauth2.Token{}, got: got}); !at.IsZero() {
		t.Errorf("a token without expiry renewed at %v", at)
	}
}

// TestOAuthNeedsBrowser: an authorization server that shows a login page
// instead of redirecting back cannot be followed without a person; Dial
// says so in so many words, as an auth error.
func TestOAuthNeedsBrowser(t *testing.T) {
	var ts *httptest.Server
	mux := http.NewServeMux()
	mux.HandleFunc("/mcp", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("WWW-Authenticate", `Bearer resource_metadata="`+ts.URL+`/.well-known/oauth-protected-resource/mcp"`)
		w.WriteHeader(http.StatusUnauthorized)
	})
	mux.HandleFunc("/.well-known/oauth-protected-resource/mcp", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(map[string]any{"resource": ts.URL + "/mcp", "authorization_servers": []string{ts.URL}})
	})
	mux.HandleFunc("/.well-known/oauth-authorization-server", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(map[string]any{"issuer": ts.URL, "authorization_endpoint": ts.URL + "/authorize",
			"token_endpoint": ts.URL + "/token", "registration_endpoint": ts.URL + "/register",
			"response_types_supported": []string{"code"}, "code_challenge_methods_supported": []string{"S256"}})
	})
	mux.HandleFunc("/register", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusCreated)
		json.NewEncoder(w).Encode(map[string]any{"client_id": "c1", "redirect_uris": []string{redirectURL}})
	})
	mux.HandleFunc("/authorize", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		w.Write([]byte("<form>Log in</form>"))
	})
	ts = httptest.NewServer(mux)
	defer ts.Close()
	_, err := Dial(context.Background(), Options{URL: ts.URL + "/mcp", Timeout: 5 * time.Second, OAuth: &OAuth{Flow: OAuthAuthorizationCode}})
	if KindOf(err) != KindAuth || !strings.Contains(err.Error(), "needs a browser") {
		t.Fatalf("kind %v: %v", KindOf(err), err)
	}
}

// TestOAuthConfig: flows that cannot work are refused before anything is
// sent.
func TestOAuthConfig(t *testing.T) {
	for _, o := range []OAuth{{Flow: "password"}, {Flow: OAuthClientCredentials, ClientID: "id"}} {
		if _, err := newAuthState(o, http.DefaultClient); err == nil {
			t.Errorf("%+v accepted", o)
		}
	}
	_, err := Dial(context.Background(), Options{Transport: TransportStdio, Command: []string{"true"}, OAuth: &OAuth{}})
	if err == nil || !strings.Contains(err.Error(), "OAuth") {
		t.Errorf("OAuth over stdio: %v", err)
	}
}
