package mcp

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
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

// OAuth flows for OAuth.Flow.
const (
	OAuthAuto              = "auto"
	OAuthClientCredentials = "client-credentials"
	OAuthAuthorizationCode = "authorization-code"
)

// OAuth asks a client to obtain its bearer token by OAuth 2.1.
type OAuth struct {
	// Flow is client-credentials, authorization-code, or auto: client
	// credentials when a secret is given and the authorization server
	// offers that grant, else the authorization code.
	Flow string
	// ClientID and ClientSecret are a registered client's; without an ID
	// the client registers itself dynamically. An https URL as the ID is
	// a client ID metadata document.
	ClientID, ClientSecret string
	// Scopes replace the scopes the server advertises.
	Scopes []string
	// OnToken is told each new access token before it is used, so that
	// the caller can keep it out of everything it writes.
	OnToken func(token string)
}

// redirectURL is where the authorization server sends the browser back;
// nothing listens there, the headless follower stops at it.
const redirectURL = "http://127.0.0.1/mcpbench/oauth/callback"

// authState is a client's one token, shared by all its sessions.
type authState struct {
	o       OAuth
	hc      *http.Client // discovery, registration, tokens: never the measured pool
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

func newAuthState(o OAuth, hc *http.Client) (*authState, error) {
	a := &authState{o: o, hc: hc, kick: make(chan struct{}, 1), done: make(chan struct{})}
	if o.Flow == "" {
		a.o.Flow = OAuthAuto
	}
	switch a.o.Flow {
	case OAuthAuto, OAuthClientCredentials, OAuthAuthorizationCode:
	default:
		return nil, configErrorf("unknown OAuth flow %q (client-credentials, authorization-code or auto)", o.Flow)
	}
	if a.o.Flow == OAuthClientCredentials && (o.ClientID == "" || o.ClientSecret == "") {
		return nil, configErrorf("the client-credentials flow needs a client ID and a client secret")
	}
	return a, nil
}

// start obtains the first token: it asks the server, and when the answer
// is 401 (or 403) runs the flow the challenge leads to. A server that
// asks for nothing leaves the client without a token until it refuses a
// request. The renewer runs from then on.
func (a *authState) start(ctx context.Context, u *url.URL) error {
	req, resp, err := a.ask(ctx, u)
	if err == nil && isAuthStatus(resp.StatusCode) {
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
func (a *authState) ask(ctx context.Context, u *url.URL) (*http.Request, *http.Response, error) {
	body := []byte(`{"jsonrpc":"2.0","id":0,"method":"server/discover","params":{}}`)
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, u.String(), bytes.NewReader(body))
	if err != nil {
		return nil, nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	resp, err := a.hc.Do(req)
	if err != nil {
		return nil, nil, wrapNet(err, "OAuth: asking the server what it requires")
	}
	drain(resp.Body)
	resp.Body.Close()
	return req, resp, nil
}

// authorize runs the flow for a challenge and takes the token it gives.
func (a *authState) authorize(ctx context.Context, req *http.Request, resp *http.Response) error {
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

func (a *authState) authorizeLocked(ctx context.Context) error {
	ch := *a.challenge
	ch.Body = http.NoBody
	if err := a.handler.Authorize(ctx, a.target, &ch); err != nil {
		return authError("authorizing", err)
	}
	src, err := a.handler.TokenSource(ctx)
	if err != nil || src == nil {
		return authError("authorizing", errors.Join(err, errors.New("no token source")))
	}
	tok, err := src.Token()
	if err != nil {
		return authError("getting a token", err)
	}
	a.source = src
	a.take(tok)
	return nil
}

// take makes tok the token every request carries from now on.
func (a *authState) take(tok *oauth2.Token) {
	if a.o.OnToken != nil {
		a.o.OnToken(tok.AccessToken)
	}
	a.cur.Store(&bearer{header: "Bearer " + tok.AccessToken, token: tok, got: time.Now()})
}

// header is the Authorization value requests carry ("" before a token).
func (a *authState) header() string {
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
func (a *authState) renewLoop(u *url.URL) {
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
func (a *authState) renew(u *url.URL) error {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if a.cur.Load() == nil {
		req, resp, err := a.ask(ctx, u)
		if err != nil || !isAuthStatus(resp.StatusCode) {
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

// refused tells the renewer that the server refused a request's token.
func (a *authState) refused() {
	select {
	case a.kick <- struct{}{}:
	default: // a renewal is already asked for
	}
}

func (a *authState) close() {
	close(a.done)
	a.wg.Wait()
}

// newHandler builds the SDK handler for the flow.
func (a *authState) newHandler(ctx context.Context, req *http.Request, resp *http.Response) (auth.OAuthHandler, error) {
	o := a.o
	flow := o.Flow
	if flow == OAuthAuto {
		flow = a.pickFlow(ctx, req, resp)
	}
	if flow == OAuthClientCredentials {
		return extauth.NewClientCredentialsHandler(&extauth.ClientCredentialsHandlerConfig{
			Credentials: &oauthex.ClientCredentials{ClientID: o.ClientID, ClientSecretAuth: &oauthex.ClientSecretAuth{ClientSecret: o.ClientSecret}},
			HTTPClient:  a.hc,
		})
	}
	cfg := &auth.AuthorizationCodeHandlerConfig{
		RedirectURL:              redirectURL,
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
			RedirectURIs:            []string{redirectURL},
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
// and the authorization server offers the grant, else authorization code.
func (a *authState) pickFlow(ctx context.Context, req *http.Request, resp *http.Response) string {
	if a.o.ClientID == "" || a.o.ClientSecret == "" {
		return OAuthAuthorizationCode
	}
	challenges, _ := oauthex.ParseWWWAuthenticate(resp.Header.Values("WWW-Authenticate"))
	for _, c := range challenges {
		meta := c.Params["resource_metadata"]
		if meta == "" {
			continue
		}
		prm, err := oauthex.GetProtectedResourceMetadata(ctx, meta, req.URL.String(), a.hc)
		if err != nil || prm == nil || len(prm.AuthorizationServers) == 0 {
			break
		}
		asm, err := auth.GetAuthServerMetadata(ctx, prm.AuthorizationServers[0], a.hc)
		if err == nil && asm != nil {
			for _, g := range asm.GrantTypesSupported {
				if g == "client_credentials" {
					return OAuthClientCredentials
				}
			}
		}
	}
	return OAuthAuthorizationCode
}

// followHeadless plays the browser for an authorization server that
// approves without a person: it follows the authorization URL's redirects
// until one comes back to the redirect URL with the code. A server that
// shows a page instead wants a person to log in, and the error says so.
func followHeadless(hc *http.Client) auth.AuthorizationCodeFetcher {
	return func(ctx context.Context, args *auth.AuthorizationArgs) (*auth.AuthorizationResult, error) {
		next := args.URL
		for range 10 {
			req, err := http.NewRequestWithContext(ctx, http.MethodGet, next, nil)
			if err != nil {
				return nil, err
			}
			resp, err := hc.Do(req) // hc follows no redirect itself
			if err != nil {
				return nil, fmt.Errorf("following the authorization URL: %w", err)
			}
			drain(resp.Body)
			resp.Body.Close()
			loc, err := resp.Location()
			if resp.StatusCode/100 != 3 || err != nil {
				return nil, fmt.Errorf("the authorization server at %s answered HTTP %d instead of redirecting back: "+
					"this flow needs a browser, a person to log in; use --oauth client-credentials, or a token in MCPBENCH_TOKEN",
					req.URL.Host, resp.StatusCode)
			}
			if strings.HasPrefix(loc.String(), redirectURL) {
				q := loc.Query()
				if e := q.Get("error"); e != "" {
					return nil, fmt.Errorf("the authorization server refused: %s %s", e, q.Get("error_description"))
				}
				return &auth.AuthorizationResult{Code: q.Get("code"), State: q.Get("state"), Iss: q.Get("iss")}, nil
			}
			next = loc.String()
		}
		return nil, errors.New("the authorization server redirected more than 10 times")
	}
}

// isAuthStatus says an HTTP status refuses the request's credentials.
func isAuthStatus(status int) bool {
	return status == http.StatusUnauthorized || status == http.StatusForbidden
}

func authError(what string, err error) *Error {
	return &Error{Kind: KindAuth, Msg: "OAuth: " + what, Err: err}
}

// authHeader sets the Authorization header of the client's token, if it
// has one; it replaces any given with -H.
func (c *Client) authHeader(h http.Header) {
	if c.auth != nil {
		if v := c.auth.header(); v != "" {
			h.Set("Authorization", v)
		}
	}
}

// authRefused is told of a request the server refused for its
// credentials.
func (c *Client) authRefused() {
	if c.auth != nil {
		c.auth.refused()
	}
}

// tokenRefreshes is how many times the token was renewed.
func (c *Client) tokenRefreshes() int64 {
	if c.auth == nil {
		return 0
	}
	return c.auth.renewals.Load()
}

// authToken is the token requests carry now, to tell when prepared
// headers are out of date ("" without OAuth).
func (c *Client) authToken() string {
	if c.auth == nil {
		return ""
	}
	return c.auth.header()
}
