// Package oauth obtains a client's bearer token by OAuth 2.1, on the Go
// SDK's client, and keeps it fresh: one token for all of a client's
// sessions, renewed in the background. It knows nothing of the MCP
// client's error kinds: its errors are Error values mcp classifies.
package oauth

import (
	"bytes"
	"context"
	"crypto"
	"errors"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/auth/extauth"
	"github.com/modelcontextprotocol/go-sdk/oauthex"
	"golang.org/x/oauth2"
)

// OAuth 2.1 with the Go SDK's client: the SDK's handlers discover the
// protected resource from the 401's WWW-Authenticate, then the
// authorization server, register (client ID metadata document,
// pre-registration or dynamic registration) and get the token (PKCE
// authorization code, or client credentials). What is mcpbench's own: one
// token for all sessions, renewed in the background before it expires, one
// renewal at a time, so no request waits for a token and none is timed
// with one; and an authorization redirect followed without a browser.

// Flows for Config.Flow.
const (
	Auto              = "auto"
	ClientCredentials = "client-credentials"
	AuthorizationCode = "authorization-code"
	// Enterprise is enterprise-managed authorization: an ID token from
	// the organisation's IdP, exchanged there for an ID-JAG, and that at
	// the server's authorization server for the token.
	Enterprise = "enterprise"
)

// Config asks a client to obtain its bearer token by OAuth 2.1.
type Config struct {
	// Flow is client-credentials, authorization-code, or auto: client
	// credentials when a secret is given and the authorization server
	// offers that grant, else the authorization code.
	Flow string
	// ClientID and ClientSecret are a registered client's; without an ID
	// the client registers itself dynamically. An https URL as the ID is
	// a client ID metadata document.
	ClientID, ClientSecret string
	// ClientKey, a PEM private key, authenticates the client with a signed
	// JWT (private_key_jwt) instead of a secret, for client credentials.
	ClientKey []byte
	// IdPTokenURL, IdPClientID and IDToken are the enterprise flow's: the
	// IdP's token endpoint, the client's ID there, and the ID token it
	// issued.
	IdPTokenURL, IdPClientID, IDToken string
	// Scopes replace the scopes the server advertises.
	Scopes []string
	// OnToken is told each new access token before it is used, so that
	// the caller can keep it out of everything it writes.
	OnToken func(token string)
}

// RedirectURL is where the authorization server sends the browser back;
// nothing listens there, the headless follower stops at it.
const RedirectURL = "http://127.0.0.1/mcpbench/oauth/callback"

// State is a client's one token, shared by all its sessions.
type State struct {
	o       Config
	key     crypto.Signer // the parsed ClientKey, or nil
	hc      *http.Client  // discovery, registration, tokens: never the measured pool
	handler auth.OAuthHandler

	mu        sync.Mutex // one authorization or renewal at a time
	challenge *http.Response
	target    *http.Request
	source    oauth2.TokenSource
	cur       atomic.Pointer[bearer]
	renewals  atomic.Int64

	kick chan struct{} // a refused request asks for a renewal now
	done chan struct{}
	wg   sync.WaitGroup
}

// bearer is one token as requests carry it.
type bearer struct {
	header string // "Bearer …"
	token  *oauth2.Token
	got    time.Time
}

// New checks o and readies its flow; hc carries discovery, registration
// and token requests (never the measured pool). A flow that cannot work
// is refused here, before anything is sent, with a ConfigError.
func New(o Config, hc *http.Client) (*State, error) {
	authHC := *hc
	authHC.Transport = rootIssuer{base: hc.Transport}
	if hc.Transport == nil {
		authHC.Transport = rootIssuer{base: http.DefaultTransport}
	}
	a := &State{o: o, hc: &authHC, kick: make(chan struct{}, 1), done: make(chan struct{})}
	if o.Flow == "" {
		a.o.Flow = Auto
	}
	switch a.o.Flow {
	case Auto, ClientCredentials, AuthorizationCode:
	case Enterprise:
		if o.ClientID == "" || o.IdPTokenURL == "" || o.IdPClientID == "" || o.IDToken == "" {
			return nil, configError("the enterprise flow needs a client ID, the IdP's token endpoint, the client's ID there and an ID token")
		}
	default:
		return nil, configError("unknown OAuth flow %q (client-credentials, authorization-code, enterprise or auto)", o.Flow)
	}
	if a.o.Flow == ClientCredentials && (o.ClientID == "" || o.ClientSecret == "" && o.ClientKey == nil) {
		return nil, configError("the client-credentials flow needs a client ID and a client secret or key")
	}
	if o.ClientKey != nil {
		key, err := parseClientKey(o.ClientKey)
		if err != nil {
			return nil, configError("OAuth client key: %v", err)
		}
		a.key = key
	}
	return a, nil
}

// start obtains the first token: it asks the server, and when the answer
// is 401 (or 403) runs the flow the challenge leads to. A server that
// asks for nothing leaves the client without a token until it refuses a
// request. The renewer runs from then on.
func (a *State) Start(ctx context.Context, u *url.URL) error {
	req, resp, err := a.ask(ctx, u)
	if err == nil && IsAuthStatus(resp.StatusCode) {
		err = a.authorize(ctx, req, resp)
	}
	if err != nil {
		return err
	}
	a.wg.Add(1)
	go a.renewLoop(u)
	return nil
}

// ask sends the server a request without a token and returns its answer,
// the body read and closed.
func (a *State) ask(ctx context.Context, u *url.URL) (*http.Request, *http.Response, error) {
	body := []byte(`{"jsonrpc":"2.0","id":0,"method":"server/discover","params":{}}`)
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, u.String(), bytes.NewReader(body))
	if err != nil {
		return nil, nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	resp, err := a.hc.Do(req)
	if err != nil {
		return nil, nil, &Error{What: "asking the server what it requires", Err: err, Net: true}
	}
	drain(resp.Body)
	resp.Body.Close()
	return req, resp, nil
}

// authorize runs the flow for a challenge and takes the token it gives.
func (a *State) authorize(ctx context.Context, req *http.Request, resp *http.Response) error {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.handler == nil {
		h, err := a.newHandler(ctx, req, resp)
		if err != nil {
			return err
		}
		a.handler = h
	}
	// The handler closes the body it is given; keep the status and
	// headers for the renewals that must authorize again.
	a.challenge = &http.Response{StatusCode: resp.StatusCode, Header: resp.Header.Clone(), Body: http.NoBody}
	a.target = req
	return a.authorizeLocked(ctx)
}

func (a *State) authorizeLocked(ctx context.Context) error {
	ch := *a.challenge
	ch.Body = http.NoBody
	// The SDK's token sources keep the context they were made with for
	// every later fetch: one that ends with this call would fail the
	// renewals. The auth client's own timeouts bound the calls instead.
	ctx = context.WithoutCancel(ctx)
	if err := a.handler.Authorize(ctx, a.target, &ch); err != nil {
		return &Error{What: "authorizing", Err: err}
	}
	src, err := a.handler.TokenSource(ctx)
	if err != nil || src == nil {
		return &Error{What: "authorizing", Err: errors.Join(err, errors.New("no token source"))}
	}
	tok, err := src.Token()
	if err != nil {
		return &Error{What: "getting a token", Err: err}
	}
	a.source = src
	a.take(tok)
	return nil
}

// take makes tok the token every request carries from now on.
func (a *State) take(tok *oauth2.Token) {
	if a.o.OnToken != nil {
		a.o.OnToken(tok.AccessToken)
	}
	a.cur.Store(&bearer{header: "Bearer " + tok.AccessToken, token: tok, got: time.Now()})
}

// Header is the Authorization value requests carry ("" before a token).
func (a *State) Header() string {
	if b := a.cur.Load(); b != nil {
		return b.header
	}
	return ""
}

// renewAt is when to renew b: a fifth of its life before it ends, and no
// earlier than ten seconds before (the window in which the oauth2 token
// sources fetch anew rather than hand back the token they hold). Zero for
// a token that does not say when it expires.
func renewAt(b *bearer) time.Time {
	if b == nil || b.token.Expiry.IsZero() {
		return time.Time{}
	}
	life := b.token.Expiry.Sub(b.got)
	return b.token.Expiry.Add(-min(life/5, 10*time.Second))
}

// renewLoop renews the token before it expires, or at once when a request
// was refused, until the client closes.
func (a *State) renewLoop(u *url.URL) {
	defer a.wg.Done()
	for {
		due := make(<-chan time.Time)
		var t *time.Timer
		if at := renewAt(a.cur.Load()); !at.IsZero() {
			t = time.NewTimer(time.Until(at))
			due = t.C
		}
		select {
		case <-a.done:
			return
		case <-due:
		case <-a.kick:
		}
		if t != nil {
			t.Stop()
		}
		if err := a.renew(u); err != nil {
			// Keep the token in hand; try again shortly, before it lapses.
			select {
			case <-a.done:
				return
			case <-time.After(time.Second):
			}
		}
	}
}

// renew gets a new token: from the token source (a refresh token, or the
// client credentials again), or by authorizing again when it cannot. A
// client that has no token yet asks the server for its challenge first.
func (a *State) renew(u *url.URL) error {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if a.cur.Load() == nil {
		req, resp, err := a.ask(ctx, u)
		if err != nil || !IsAuthStatus(resp.StatusCode) {
			return err
		}
		return a.authorize(ctx, req, resp)
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	old := a.cur.Load()
	tok, err := a.source.Token()
	if err != nil || tok.AccessToken == old.token.AccessToken {
		if err := a.authorizeLocked(ctx); err != nil {
			return err
		}
	} else {
		a.take(tok)
	}
	a.renewals.Add(1)
	return nil
}

// Reauthorize answers a request refused with challenge while it carried
// token: it authorizes again with the challenge (for a 403 asking for more
// scope, with the scopes it names) unless another request already got a
// new token. It reports whether a new token is in force, for the refused
// request to go again: the rare refusal costs its request the time of the
// authorization, which the renewals before expiry keep from the others.
func (a *State) Reauthorize(ctx context.Context, u *url.URL, status int, challenge []string, token string) bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	if cur := a.cur.Load(); cur != nil && cur.header != token {
		return true
	}
	if a.handler == nil || len(challenge) == 0 {
		a.refused()
		return false
	}
	a.challenge = &http.Response{StatusCode: status, Header: http.Header{"Www-Authenticate": challenge}, Body: http.NoBody}
	a.target = &http.Request{Method: http.MethodPost, URL: u, Header: http.Header{}}
	if err := a.authorizeLocked(ctx); err != nil {
		return false
	}
	a.renewals.Add(1)
	return true
}

// refused tells the renewer that the server refused a request's token.
func (a *State) refused() {
	select {
	case a.kick <- struct{}{}:
	default: // a renewal is already asked for
	}
}

// Close stops the renewals.
func (a *State) Close() {
	close(a.done)
	a.wg.Wait()
}

// newHandler builds the SDK handler for the flow.
func (a *State) newHandler(ctx context.Context, req *http.Request, resp *http.Response) (auth.OAuthHandler, error) {
	o := a.o
	flow := o.Flow
	if flow == Auto {
		flow = a.pickFlow(ctx, req, resp)
	}
	switch {
	case flow == Enterprise:
		return &enterpriseHandler{a: a}, nil
	case flow == ClientCredentials && a.key != nil:
		return &assertionHandler{a: a, key: a.key}, nil
	case flow == ClientCredentials:
		return extauth.NewClientCredentialsHandler(&extauth.ClientCredentialsHandlerConfig{
			Credentials: &oauthex.ClientCredentials{ClientID: o.ClientID, ClientSecretAuth: &oauthex.ClientSecretAuth{ClientSecret: o.ClientSecret}},
			HTTPClient:  a.hc,
		})
	}
	cfg := &auth.AuthorizationCodeHandlerConfig{
		RedirectURL:              RedirectURL,
		AuthorizationCodeFetcher: followHeadless(a.hc),
		RequestRefreshToken:      true,
		Client:                   a.hc,
	}
	switch {
	case strings.HasPrefix(o.ClientID, "https://"):
		cfg.ClientIDMetadataDocumentConfig = &auth.ClientIDMetadataDocumentConfig{URL: o.ClientID}
	case o.ClientID != "":
		pre := &oauthex.ClientCredentials{ClientID: o.ClientID}
		if o.ClientSecret != "" {
			pre.ClientSecretAuth = &oauthex.ClientSecretAuth{ClientSecret: o.ClientSecret}
		}
		cfg.PreregisteredClient = pre
	}
	if o.ClientID == "" || cfg.ClientIDMetadataDocumentConfig != nil {
		// Dynamic registration, also the fallback of a metadata document
		// the authorization server does not take.
		cfg.DynamicClientRegistrationConfig = &auth.DynamicClientRegistrationConfig{Metadata: &oauthex.ClientRegistrationMetadata{
			RedirectURIs:            []string{RedirectURL},
			ClientName:              "mcpbench",
			GrantTypes:              []string{"authorization_code", "refresh_token"},
			ResponseTypes:           []string{"code"},
			TokenEndpointAuthMethod: "none",
		}}
	}
	if len(o.Scopes) > 0 {
		cfg.ScopeFilter = func([]string) []string { return o.Scopes }
	}
	return auth.NewAuthorizationCodeHandler(cfg)
}

// pickFlow decides auto: client credentials when the client has a secret
// (or key) and the authorization server offers the grant, else
// authorization code.
func (a *State) pickFlow(ctx context.Context, req *http.Request, resp *http.Response) string {
	if a.o.ClientID == "" || a.o.ClientSecret == "" && a.key == nil {
		return AuthorizationCode
	}
	if _, asm, err := a.discover(ctx, req, resp); err == nil && slices.Contains(asm.GrantTypesSupported, "client_credentials") {
		return ClientCredentials
	}
	return AuthorizationCode
}

// IsAuthStatus says an HTTP status refuses the request's credentials.
func IsAuthStatus(status int) bool {
	return status == http.StatusUnauthorized || status == http.StatusForbidden
}

// Renewals is how many times the token was renewed.
func (a *State) Renewals() int64 { return a.renewals.Load() }
