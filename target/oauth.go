package target

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
)

// The OAuth mode (Config.OAuth): the server is its own authorization
// server and the protected resource, with short-lived tokens, so that a
// client's discovery, registration, token flows and renewals can be
// rehearsed against one process. The resource side is the SDK's
// (RequireBearerToken); the SDK has no authorization server, so the
// small one a test needs is written here: metadata, dynamic registration,
// an authorize endpoint that approves at once (no login page, as a
// conformance harness's does), and a token endpoint for the client
// credentials, authorization code (PKCE S256) and refresh token grants.

// Defaults of the OAuth mode's pre-registered client and token lifetime.
const (
	DefaultOAuthClientID     = "mcpbench"
	DefaultOAuthClientSecret = "mcpbench-secret"
	DefaultTokenTTL          = time.Hour
	oauthScope               = "mcp"
)

// oauthServer is the authorization server's state.
type oauthServer struct {
	ttl     time.Duration
	mu      sync.Mutex
	clients map[string]oauthClient // by client_id
	codes   map[string]grant       // authorization codes, used once
	tokens  map[string]time.Time   // access tokens and their expiry
	refresh map[string]string      // refresh token -> client_id
	issued  atomic.Int64
	guards  sync.Map // host -> the bearer-token middleware for it
}

type oauthClient struct {
	secret    string // "" for a public client
	redirects []string
}

type grant struct {
	client, redirect, challenge string
	expires                     time.Time
}

func newOAuthServer(cfg Config) *oauthServer {
	return &oauthServer{
		ttl:     cfg.TokenTTL,
		clients: map[string]oauthClient{cfg.OAuthClientID: {secret: cfg.OAuthClientSecret}},
		codes:   map[string]grant{},
		tokens:  map[string]time.Time{},
		refresh: map[string]string{},
	}
}

// TokensIssued is how many access tokens the OAuth mode has issued.
func (s *Server) TokensIssued() int64 {
	if s.oauth == nil {
		return 0
	}
	return s.oauth.issued.Load()
}

// protect makes next require a valid token in the OAuth mode.
func (s *Server) protect(next http.Handler) http.Handler {
	o := s.oauth
	if o == nil {
		return next
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// The challenge names metadata by absolute URL, which depends on
		// how the client reached the server: one middleware per host.
		h, ok := o.guards.Load(r.Host)
		if !ok {
			h, _ = o.guards.LoadOrStore(r.Host, auth.RequireBearerToken(o.verify, &auth.RequireBearerTokenOptions{
				ResourceMetadataURL: origin(r) + "/.well-known/oauth-protected-resource/mcp",
			})(next))
		}
		h.(http.Handler).ServeHTTP(w, r)
	})
}

func (o *oauthServer) verify(_ context.Context, token string, _ *http.Request) (*auth.TokenInfo, error) {
	o.mu.Lock()
	exp, ok := o.tokens[token]
	o.mu.Unlock()
	if !ok || time.Now().After(exp) {
		return nil, fmt.Errorf("%w: unknown or expired", auth.ErrInvalidToken)
	}
	return &auth.TokenInfo{Scopes: []string{oauthScope}, Expiration: exp}, nil
}

func origin(r *http.Request) string { return "http://" + r.Host }

// routes adds the authorization server's endpoints and the resource's
// metadata to mux.
func (o *oauthServer) routes(mux *http.ServeMux) {
	resource := func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, http.StatusOK, map[string]any{
			"resource": origin(r) + "/mcp", "authorization_servers": []string{origin(r)},
			"scopes_supported": []string{oauthScope}, "bearer_methods_supported": []string{"header"},
		})
	}
	mux.HandleFunc("GET /.well-known/oauth-protected-resource", resource)
	mux.HandleFunc("GET /.well-known/oauth-protected-resource/mcp", resource)
	mux.HandleFunc("GET /.well-known/oauth-authorization-server", func(w http.ResponseWriter, r *http.Request) {
		base := origin(r)
		writeJSON(w, http.StatusOK, map[string]any{
			"issuer": base, "authorization_endpoint": base + "/authorize", "token_endpoint": base + "/token",
			"registration_endpoint": base + "/register", "scopes_supported": []string{oauthScope},
			"response_types_supported":              []string{"code"},
			"grant_types_supported":                 []string{"authorization_code", "client_credentials", "refresh_token"},
			"code_challenge_methods_supported":      []string{"S256"},
			"token_endpoint_auth_methods_supported": []string{"client_secret_basic", "client_secret_post", "none"},
		})
	})
	mux.HandleFunc("POST /register", o.register)
	mux.HandleFunc("GET /authorize", o.authorize)
	mux.HandleFunc("POST /token", o.token)
}

// register is dynamic client registration (RFC 7591).
func (o *oauthServer) register(w http.ResponseWriter, r *http.Request) {
	var meta struct {
		RedirectURIs []string `json:"redirect_uris"`
		AuthMethod   string   `json:"token_endpoint_auth_method"`
	}
	if err := json.NewDecoder(http.MaxBytesReader(w, r.Body, 64<<10)).Decode(&meta); err != nil || len(meta.RedirectURIs) == 0 {
		oauthFail(w, http.StatusBadRequest, "invalid_client_metadata", "redirect_uris required")
		return
	}
	id, c := randomToken(), oauthClient{redirects: meta.RedirectURIs}
	out := map[string]any{"client_id": id, "redirect_uris": meta.RedirectURIs, "token_endpoint_auth_method": "none"}
	if meta.AuthMethod != "" && meta.AuthMethod != "none" {
		c.secret = randomToken()
		out["client_secret"], out["token_endpoint_auth_method"] = c.secret, "client_secret_basic"
	}
	o.mu.Lock()
	o.clients[id] = c
	o.mu.Unlock()
	writeJSON(w, http.StatusCreated, out)
}

// authorize approves at once: it redirects back with a code bound to the
// client, the redirect URI and the PKCE challenge.
func (o *oauthServer) authorize(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	o.mu.Lock()
	c, known := o.clients[q.Get("client_id")]
	o.mu.Unlock()
	redirect := q.Get("redirect_uri")
	back, err := url.Parse(redirect)
	if !known || err != nil || len(c.redirects) > 0 && !slices.Contains(c.redirects, redirect) {
		http.Error(w, "unknown client or redirect_uri", http.StatusBadRequest)
		return
	}
	if q.Get("response_type") != "code" || q.Get("code_challenge_method") != "S256" || q.Get("code_challenge") == "" {
		http.Error(w, "response_type code with an S256 code_challenge required", http.StatusBadRequest)
		return
	}
	code := randomToken()
	o.mu.Lock()
	o.codes[code] = grant{client: q.Get("client_id"), redirect: redirect, challenge: q.Get("code_challenge"), expires: time.Now().Add(time.Minute)}
	o.mu.Unlock()
	v := back.Query()
	v.Set("code", code)
	v.Set("state", q.Get("state"))
	back.RawQuery = v.Encode()
	http.Redirect(w, r, back.String(), http.StatusFound)
}

// token is the token endpoint.
func (o *oauthServer) token(w http.ResponseWriter, r *http.Request) {
	if err := r.ParseForm(); err != nil {
		oauthFail(w, http.StatusBadRequest, "invalid_request", "form expected")
		return
	}
	id, secret, basic := r.BasicAuth()
	if !basic {
		id, secret = r.PostForm.Get("client_id"), r.PostForm.Get("client_secret")
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	c, known := o.clients[id]
	if !known || c.secret != "" && subtle.ConstantTimeCompare([]byte(c.secret), []byte(secret)) != 1 {
		oauthFail(w, http.StatusUnauthorized, "invalid_client", "unknown client or wrong secret")
		return
	}
	var err error
	withRefresh := true
	switch r.PostForm.Get("grant_type") {
	case "client_credentials":
		if c.secret == "" {
			err = errors.New("a public client has no credentials")
		}
		withRefresh = false
	case "authorization_code":
		err = o.redeem(id, r.PostForm)
	case "refresh_token":
		if o.refresh[r.PostForm.Get("refresh_token")] != id {
			err = errors.New("unknown refresh token")
		}
		delete(o.refresh, r.PostForm.Get("refresh_token"))
	default:
		oauthFail(w, http.StatusBadRequest, "unsupported_grant_type", r.PostForm.Get("grant_type"))
		return
	}
	if err != nil {
		oauthFail(w, http.StatusBadRequest, "invalid_grant", err.Error())
		return
	}
	writeJSON(w, http.StatusOK, o.issueLocked(id, withRefresh))
}

// redeem checks an authorization code and its PKCE verifier, once.
func (o *oauthServer) redeem(client string, form url.Values) error {
	g, ok := o.codes[form.Get("code")]
	delete(o.codes, form.Get("code"))
	sum := sha256.Sum256([]byte(form.Get("code_verifier")))
	switch {
	case !ok || time.Now().After(g.expires) || g.client != client:
		return errors.New("unknown, used or expired code")
	case g.redirect != form.Get("redirect_uri"):
		return errors.New("redirect_uri differs from the authorization request's")
	case base64.RawURLEncoding.EncodeToString(sum[:]) != g.challenge:
		return errors.New("code_verifier does not match the code_challenge")
	}
	return nil
}

// issueLocked makes an access token (and a refresh token) for client.
func (o *oauthServer) issueLocked(client string, withRefresh bool) map[string]any {
	now := time.Now()
	for t, exp := range o.tokens { // forget tokens long expired
		if now.Sub(exp) > o.ttl {
			delete(o.tokens, t)
		}
	}
	tok := randomToken()
	o.tokens[tok] = now.Add(o.ttl)
	o.issued.Add(1)
	out := map[string]any{"access_token": tok, "token_type": "Bearer", "scope": oauthScope,
		"expires_in": int64(math.Ceil(o.ttl.Seconds()))}
	if withRefresh {
		rt := randomToken()
		o.refresh[rt] = client
		out["refresh_token"] = rt
	}
	return out
}

func oauthFail(w http.ResponseWriter, status int, code, desc string) {
	writeJSON(w, status, map[string]string{"error": code, "error_description": desc})
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

func randomToken() string { return strings.TrimRight(rand.Text(), "=") }
