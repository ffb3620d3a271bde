package mcp

import (
	"context"
	"errors"
	"net/http"

	"github.com/mcpbench/mcpbench/mcp/oauth"
)

// OAuth 2.1 is the business of mcp/oauth: one token for all the client's
// sessions, renewed in the background. Here is what the client does with
// it: ask for it before negotiating, put it on requests, classify its
// failures and renew it when a request is refused.

// OAuth asks a client to obtain its bearer token by OAuth 2.1.
type OAuth = oauth.Config

// OAuth flows for OAuth.Flow.
const (
	OAuthAuto              = oauth.Auto
	OAuthClientCredentials = oauth.ClientCredentials
	OAuthAuthorizationCode = oauth.AuthorizationCode
	OAuthEnterprise        = oauth.Enterprise
)

// startOAuth gets the first token when OAuth was asked for, before any
// request of the negotiation goes out.
func (c *Client) startOAuth(ctx context.Context, hc *http.Client) error {
	if c.opts.OAuth == nil {
		return nil
	}
	if c.opts.Transport == TransportStdio {
		return configErrorf("OAuth goes with the HTTP transports, not stdio")
	}
	// A client of its own, whose requests give up like any other.
	authClient := sideClient(hc)
	if tr, ok := authClient.Transport.(*http.Transport); ok {
		tr.ResponseHeaderTimeout = c.opts.Timeout
	}
	a, err := oauth.New(*c.opts.OAuth, authClient)
	if err != nil {
		return configErrorf("%v", err)
	}
	c.auth = a
	return oauthError(a.Start(ctx, c.url))
}

// oauthError classifies what OAuth returned: a server out of reach by
// the network, anything else an auth failure.
func oauthError(err error) error {
	var e *oauth.Error
	switch {
	case err == nil:
		return nil
	case errors.As(err, &e) && e.Net:
		return wrapNet(e.Err, "OAuth: "+e.What)
	case errors.As(err, &e):
		return &Error{Kind: KindAuth, Msg: "OAuth: " + e.What, Err: e.Err}
	}
	return err
}

// isAuthStatus says an HTTP status refuses the request's credentials.
func isAuthStatus(status int) bool { return oauth.IsAuthStatus(status) }

// authHeader sets the Authorization header of the client's token, if it
// has one; it replaces any given with -H.
func (c *Client) authHeader(h http.Header) {
	if c.auth != nil {
		if v := c.auth.Header(); v != "" {
			h.Set("Authorization", v)
		}
	}
}

// tokenRefreshes is how many times the token was renewed.
func (c *Client) tokenRefreshes() int64 {
	if c.auth == nil {
		return 0
	}
	return c.auth.Renewals()
}

// authToken is the token requests carry now, to tell when prepared
// headers are out of date ("" without OAuth).
func (c *Client) authToken() string {
	if c.auth == nil {
		return ""
	}
	return c.auth.Header()
}

// reauthorize asks OAuth for a new token after err, an answer refused for
// its credentials (its status and challenge) to a request sent with token.
func (s *Session) reauthorize(ctx context.Context, err error, token string) bool {
	var e *Error
	status, challenge := 0, []string(nil)
	if errors.As(err, &e) {
		status, challenge = e.Status, e.challenge
	}
	return s.c.auth.Reauthorize(ctx, s.c.url, status, challenge, token)
}
