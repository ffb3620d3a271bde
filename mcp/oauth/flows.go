package oauth

import (
	"bytes"
	"context"
	"crypto"
	"crypto/ecdsa"
	"crypto/rand"
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/golang-jwt/jwt/v5"
	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/oauthex"
	"golang.org/x/oauth2"
	"golang.org/x/oauth2/clientcredentials"
)

// The flows the SDK has no ready handler for, built from its parts: client
// credentials with a private_key_jwt assertion (RFC 7523) instead of a
// secret, and enterprise-managed authorization; and the headless follower
// of the authorization code flow.

// discover finds the protected resource's metadata (from the challenge's
// resource_metadata, else its well-known places) and its authorization
// server's.
func (a *State) discover(ctx context.Context, req *http.Request, resp *http.Response) (*oauthex.ProtectedResourceMetadata, *oauthex.AuthServerMeta, error) {
	resource := req.URL.String()
	var places []string
	challenges, _ := oauthex.ParseWWWAuthenticate(resp.Header.Values("WWW-Authenticate"))
	for _, c := range challenges {
		if m := c.Params["resource_metadata"]; m != "" {
			places = append(places, m)
		}
	}
	u := *req.URL
	u.RawQuery = ""
	u.Path = "/.well-known/oauth-protected-resource" + strings.TrimSuffix(req.URL.Path, "/")
	places = append(places, u.String())
	for _, place := range places {
		prm, err := oauthex.GetProtectedResourceMetadata(ctx, place, resource, a.hc)
		if err != nil || prm == nil || len(prm.AuthorizationServers) == 0 {
			continue
		}
		asm, err := auth.GetAuthServerMetadata(ctx, prm.AuthorizationServers[0], a.hc)
		if err != nil || asm == nil {
			return prm, nil, fmt.Errorf("authorization server metadata of %s: %v", prm.AuthorizationServers[0], err)
		}
		return prm, asm, nil
	}
	return nil, nil, errors.New("no protected resource metadata found")
}

// assertionHandler is client credentials authenticated by a signed JWT.
type assertionHandler struct {
	a   *State
	key crypto.Signer
	src oauth2.TokenSource
}

func (h *assertionHandler) TokenSource(context.Context) (oauth2.TokenSource, error) {
	return h.src, nil
}

func (h *assertionHandler) Authorize(ctx context.Context, req *http.Request, resp *http.Response) error {
	prm, asm, err := h.a.discover(ctx, req, resp)
	if err != nil {
		return err
	}
	scopes := h.a.o.Scopes
	if len(scopes) == 0 {
		scopes = prm.ScopesSupported
	}
	h.src = oauth2.ReuseTokenSource(nil, &assertionSource{h: h, tokenURL: asm.TokenEndpoint, audience: asm.Issuer, scopes: scopes})
	return nil
}

// assertionSource fetches a token with a fresh assertion each time.
type assertionSource struct {
	h                  *assertionHandler
	tokenURL, audience string // audience: the authorization server's issuer
	scopes             []string
}

func (s *assertionSource) Token() (*oauth2.Token, error) {
	id := s.h.a.o.ClientID
	now := time.Now()
	claims := jwt.RegisteredClaims{Issuer: id, Subject: id, Audience: jwt.ClaimStrings{s.audience},
		IssuedAt: jwt.NewNumericDate(now), ExpiresAt: jwt.NewNumericDate(now.Add(5 * time.Minute)), ID: rand.Text()}
	method := jwt.SigningMethod(jwt.SigningMethodRS256)
	if _, ok := s.h.key.(*ecdsa.PrivateKey); ok {
		method = jwt.SigningMethodES256
	}
	assertion, err := jwt.NewWithClaims(method, claims).SignedString(s.h.key)
	if err != nil {
		return nil, fmt.Errorf("signing the client assertion: %w", err)
	}
	cfg := clientcredentials.Config{ClientID: id, TokenURL: s.tokenURL, Scopes: s.scopes, AuthStyle: oauth2.AuthStyleInParams,
		EndpointParams: url.Values{
			"client_assertion_type": {"urn:ietf:params:oauth:client-assertion-type:jwt-bearer"},
			"client_assertion":      {assertion},
		}}
	return cfg.Token(context.WithValue(context.Background(), oauth2.HTTPClient, s.h.a.hc))
}

// parseClientKey reads a PEM private key (PKCS #8, SEC 1 or PKCS #1).
func parseClientKey(pemBytes []byte) (crypto.Signer, error) {
	block, _ := pem.Decode(pemBytes)
	if block == nil {
		return nil, errors.New("no PEM block")
	}
	if k, err := x509.ParsePKCS8PrivateKey(block.Bytes); err == nil {
		if s, ok := k.(crypto.Signer); ok {
			return s, nil
		}
	}
	if k, err := x509.ParseECPrivateKey(block.Bytes); err == nil {
		return k, nil
	}
	if k, err := x509.ParsePKCS1PrivateKey(block.Bytes); err == nil {
		return k, nil
	}
	return nil, errors.New("not an EC or RSA private key")
}

// enterpriseHandler is enterprise-managed authorization: the ID token is
// exchanged at the IdP's token endpoint for an ID-JAG (the SDK's token
// exchange), and that at the server's authorization server for the token
// (a JWT bearer grant). The SDK's own EnterpriseHandler discovers the IdP
// by metadata it insists shows PKCE, which an IdP that only exchanges
// tokens need not; so the IdP's token endpoint is given.
type enterpriseHandler struct {
	a   *State
	src oauth2.TokenSource
}

func (h *enterpriseHandler) TokenSource(context.Context) (oauth2.TokenSource, error) {
	return h.src, nil
}

func (h *enterpriseHandler) Authorize(ctx context.Context, req *http.Request, resp *http.Response) error {
	o := h.a.o
	prm, asm, err := h.a.discover(ctx, req, resp)
	if err != nil {
		return err
	}
	jag, err := oauthex.ExchangeToken(ctx, o.IdPTokenURL, &oauthex.TokenExchangeRequest{
		RequestedTokenType: oauthex.TokenTypeIDJAG, Audience: asm.Issuer, Resource: prm.Resource, Scope: o.Scopes,
		SubjectToken: o.IDToken, SubjectTokenType: oauthex.TokenTypeIDToken,
	}, &oauthex.ClientCredentials{ClientID: o.IdPClientID}, h.a.hc)
	if err != nil {
		return fmt.Errorf("token exchange at the IdP: %w", err)
	}
	// clientcredentials lets grant_type be replaced: a JWT bearer grant.
	cfg := clientcredentials.Config{ClientID: o.ClientID, ClientSecret: o.ClientSecret, TokenURL: asm.TokenEndpoint, AuthStyle: authStyleFor(asm.TokenEndpointAuthMethodsSupported),
		EndpointParams: url.Values{"grant_type": {"urn:ietf:params:oauth:grant-type:jwt-bearer"}, "assertion": {jag.AccessToken}}}
	tok, err := cfg.Token(context.WithValue(ctx, oauth2.HTTPClient, h.a.hc))
	if err != nil {
		return fmt.Errorf("JWT bearer grant: %w", err)
	}
	h.src = oauth2.StaticTokenSource(tok)
	return nil
}

// authStyleFor picks how a secret goes to a token endpoint that takes
// methods, preferring the form, as the SDK does.
func authStyleFor(methods []string) oauth2.AuthStyle {
	switch {
	case slices.Contains(methods, "client_secret_post"):
		return oauth2.AuthStyleInParams
	case slices.Contains(methods, "client_secret_basic"):
		return oauth2.AuthStyleInHeader
	}
	return oauth2.AuthStyleAutoDetect
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
			if strings.HasPrefix(loc.String(), RedirectURL) {
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

// rootIssuer lets the authorization-server metadata a server serves at its
// root stand for the root, whatever issuer it names. The 2025-03-26
// revision, whose servers have no protected-resource metadata, put the
// metadata there without RFC 8414's rule that its issuer be the URL it was
// asked for, and its servers may name a path; the SDK checks the rule.
// Metadata asked for anywhere else passes unchanged.
type rootIssuer struct{ base http.RoundTripper }

func (r rootIssuer) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := r.base.RoundTrip(req)
	if err != nil || req.Method != http.MethodGet || req.URL.Path != "/.well-known/oauth-authorization-server" || resp.StatusCode != http.StatusOK {
		return resp, err
	}
	raw, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	resp.Body.Close()
	if err != nil {
		return nil, err
	}
	var meta map[string]json.RawMessage
	if json.Unmarshal(raw, &meta) == nil && meta["issuer"] != nil {
		meta["issuer"], _ = json.Marshal(req.URL.Scheme + "://" + req.URL.Host)
		raw, _ = json.Marshal(meta)
	}
	resp.Body, resp.ContentLength = io.NopCloser(bytes.NewReader(raw)), int64(len(raw))
	resp.Header.Del("Content-Length")
	return resp, nil
}
