package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/mcpbench/mcpbench/mcp/oauth"
)

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
		json.NewEncoder(w).Encode(map[string]any{"client_id": "c1", "redirect_uris": []string{oauth.RedirectURL}})
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
// sent, as configuration errors; OAuth does not go with stdio.
func TestOAuthConfig(t *testing.T) {
	for _, o := range []OAuth{{Flow: "password"}, {Flow: OAuthClientCredentials, ClientID: "id"}} {
		_, err := Dial(context.Background(), Options{URL: "http://127.0.0.1:1/mcp", Timeout: time.Second, OAuth: &o})
		var ce *ConfigError
		if !errors.As(err, &ce) {
			t.Errorf("%+v: %v, want a configuration error", o, err)
		}
	}
	_, err := Dial(context.Background(), Options{Transport: TransportStdio, Command: []string{"true"}, OAuth: &OAuth{}})
	if err == nil || !strings.Contains(err.Error(), "OAuth") {
		t.Errorf("OAuth over stdio: %v", err)
	}
}
