package target

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"
)

// TestOAuthMode: the OAuth mode's authorization server and protected
// resource, step by step as a client meets them.
func TestOAuthMode(t *testing.T) {
	srv, err := Start(context.Background(), Config{OAuth: true, TokenTTL: 300 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	noRedirect := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	post := func(path string, form url.Values, user, pass string) (int, map[string]any) {
		req, _ := http.NewRequest(http.MethodPost, srv.URL+path, strings.NewReader(form.Encode()))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		if user != "" {
			req.SetBasicAuth(user, pass)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var out map[string]any
		json.NewDecoder(resp.Body).Decode(&out)
		return resp.StatusCode, out
	}
	call := func(token string) *http.Response {
		req, _ := http.NewRequest(http.MethodPost, srv.MCPURL(), strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{}}`))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		if token != "" {
			req.Header.Set("Authorization", "Bearer "+token)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp
	}

	// Without a token: 401 and where to look.
	if resp := call(""); resp.StatusCode != 401 || !strings.Contains(resp.Header.Get("WWW-Authenticate"), "/.well-known/oauth-protected-resource/mcp") {
		t.Fatalf("no token: %d %q", resp.StatusCode, resp.Header.Get("WWW-Authenticate"))
	}
	// Client credentials: the secret is checked, the token works until its TTL.
	if code, out := post("/token", url.Values{"grant_type": {"client_credentials"}}, DefaultOAuthClientID, "wrong"); code != 401 || out["error"] != "invalid_client" {
		t.Fatalf("wrong secret: %d %v", code, out)
	}
	code, out := post("/token", url.Values{"grant_type": {"client_credentials"}}, DefaultOAuthClientID, DefaultOAuthClientSecret)
	tok, _ := out["access_token"].(string)
	if code != 200 || tok == "" || out["expires_in"] != 1.0 {
		t.Fatalf("client credentials: %d %v", code, out)
	}
	if resp := call(tok); resp.StatusCode != 200 {
		t.Fatalf("fresh token refused: %d", resp.StatusCode)
	}
	time.Sleep(350 * time.Millisecond)
	if resp := call(tok); resp.StatusCode != 401 {
		t.Fatalf("expired token: %d", resp.StatusCode)
	}

	// Authorization code: registration, an immediate redirect with the
	// code, PKCE checked, the code used once, a refresh token.
	reg, _ := http.Post(srv.URL+"/register", "application/json", strings.NewReader(`{"redirect_uris":["http://127.0.0.1/cb"]}`))
	var client struct {
		ID string `json:"client_id"`
	}
	json.NewDecoder(reg.Body).Decode(&client)
	reg.Body.Close()
	verifier := "a-verifier-long-enough-to-be-a-real-pkce-verifier-0123456789"
	sum := sha256.Sum256([]byte(verifier))
	q := url.Values{"client_id": {client.ID}, "redirect_uri": {"http://127.0.0.1/cb"}, "response_type": {"code"}, "state": {"s1"},
		"code_challenge": {base64.RawURLEncoding.EncodeToString(sum[:])}, "code_challenge_method": {"S256"}}
	resp, err := noRedirect.Get(srv.URL + "/authorize?" + q.Encode())
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	back, _ := resp.Location()
	if resp.StatusCode != http.StatusFound || back.Query().Get("state") != "s1" || back.Query().Get("code") == "" {
		t.Fatalf("authorize: %d %v", resp.StatusCode, back)
	}
	redeem := url.Values{"grant_type": {"authorization_code"}, "client_id": {client.ID}, "code": {back.Query().Get("code")},
		"redirect_uri": {"http://127.0.0.1/cb"}, "code_verifier": {"wrong"}}
	if code, out := post("/token", redeem, "", ""); code != 400 || out["error"] != "invalid_grant" {
		t.Fatalf("wrong verifier: %d %v", code, out)
	}
	resp, _ = noRedirect.Get(srv.URL + "/authorize?" + q.Encode())
	resp.Body.Close()
	back, _ = resp.Location()
	redeem.Set("code", back.Query().Get("code"))
	redeem.Set("code_verifier", verifier)
	code, out = post("/token", redeem, "", "")
	if code != 200 || out["access_token"] == nil || out["refresh_token"] == nil {
		t.Fatalf("redeem: %d %v", code, out)
	}
	if code, _ := post("/token", redeem, "", ""); code != 400 {
		t.Fatalf("a code redeemed twice: %d", code)
	}
	code, out = post("/token", url.Values{"grant_type": {"refresh_token"}, "client_id": {client.ID}, "refresh_token": {out["refresh_token"].(string)}}, "", "")
	if code != 200 || out["access_token"] == nil {
		t.Fatalf("refresh: %d %v", code, out)
	}
	if n := srv.TokensIssued(); n != 3 {
		t.Fatalf("%d tokens issued, want 3", n)
	}
}
