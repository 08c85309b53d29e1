package oauthclient

import (
	"bytes"
	"context"
	"crypto"
	"crypto/ecdsa"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"

	"golang.org/x/oauth2"
	"golang.org/x/oauth2/clientcredentials"
)

// Config configures a Transport.
type Config struct {
	// ServerURL is the MCP endpoint the transport talks to (its canonical
	// URI is what tokens are requested for).
	ServerURL string
	// Base sends the requests (default http.DefaultTransport).
	Base http.RoundTripper
	// RedirectURL is the client's redirect URI for the authorization code
	// flow (e.g. a loopback listener of the application).
	RedirectURL string
	// Authorize shows the user the authorization URL and returns the URL
	// the authorization server redirected back to (with code, state, iss).
	// Required for the authorization code flow.
	Authorize func(ctx context.Context, authURL string) (redirected *url.URL, err error)
	// ClientID and ClientSecret are pre-registered credentials (used for
	// every authorization server when set).
	ClientID, ClientSecret string
	// ClientIDMetadataURL is the HTTPS URL of this client's Client ID
	// Metadata Document, used as client_id where the authorization server
	// supports it (2025-11-25 onward).
	ClientIDMetadataURL string
	// ClientName is sent in dynamic client registration.
	ClientName string
	// ClientAssertionKey, with ClientID, authenticates the client at the
	// token endpoint with a signed JWT (private_key_jwt, RFC 7523; ES256
	// for a P-256 key, RS256 for RSA) instead of a secret.
	ClientAssertionKey crypto.Signer
	// JWTBearerAssertion, when set, obtains tokens with the JWT bearer
	// grant (RFC 7523 section 2.1): a workload identity token from the
	// platform (SEP-1933 workload identity federation), fetched anew for
	// each token request. A refused grant is returned, not retried with
	// another grant.
	JWTBearerAssertion func(ctx context.Context) (string, error)
	// ClientCredentials uses the client credentials grant (headless, with
	// ClientID and ClientSecret) instead of the authorization code flow.
	ClientCredentials bool
	// TokenSource, when set, supplies the tokens and nothing is discovered
	// (a token obtained elsewhere, a workload identity, ...).
	TokenSource oauth2.TokenSource
	// MaxStepUps bounds how many times in a row the transport
	// re-authorizes for a 403 insufficient_scope without a request
	// succeeding in between (default 2: with the first authorization, at
	// most three authorization requests).
	MaxStepUps int
	// NoOfflineAccess stops the transport from asking for offline_access
	// (a refresh token) when the authorization server lists it.
	NoOfflineAccess bool
	// DPoP binds tokens to a key of the client's (RFC 9449, the MCP DPoP
	// extension) where the authorization server advertises ES256 DPoP
	// proofs: token requests carry proofs, and a DPoP-bound token goes
	// with the DPoP scheme and a fresh proof per request, nonces honoured
	// (see dpop.go). DPoPKey is the P-256 key (default: a new one per
	// Transport).
	DPoP    bool
	DPoPKey *ecdsa.PrivateKey
	// EnterpriseIdP, when set, obtains tokens by Enterprise-Managed
	// Authorization (SEP-990): an ID-JAG from the enterprise IdP, then
	// the JWT bearer grant, with ClientID and ClientSecret (see
	// EnterpriseIdP).
	EnterpriseIdP *EnterpriseIdP
}

// Transport is an http.RoundTripper that authorizes MCP requests: it adds
// the bearer token, and on a 401 (or a 403 insufficient_scope) discovers,
// registers, authorizes and retries the request once with the new token.
type Transport struct {
	cfg  Config
	base http.RoundTripper
	hc   *http.Client // for metadata, registration and token requests

	mu       sync.Mutex // serializes authorization
	ts       oauth2.TokenSource
	scopes   []string // requested so far (step-up takes their union)
	stepUps  int      // consecutive step-ups without a success
	clients  map[string]registered
	gen      int // bumped on each new token source
	lastAuth error

	dpop    *dpopKeys    // with Config.DPoP
	dpopErr error        // making the key failed: reported by the flow
	dpopHC  *http.Client // token requests with proofs
}

// registered is a client registration with one authorization server.
type registered struct {
	id, secret string
	style      oauth2.AuthStyle
}

// NewTransport returns a Transport for cfg.
func NewTransport(cfg Config) *Transport {
	base := cfg.Base
	if base == nil {
		base = http.DefaultTransport
	}
	if cfg.MaxStepUps == 0 {
		cfg.MaxStepUps = 2
	}
	t := &Transport{cfg: cfg, base: base, clients: map[string]registered{}, ts: cfg.TokenSource}
	t.hc = &http.Client{Transport: base}
	if cfg.DPoP {
		if t.dpop, t.dpopErr = newDPoP(cfg.DPoPKey); t.dpop != nil {
			t.dpopHC = &http.Client{Transport: dpopTokenTransport{base: base, d: t.dpop}}
		}
	}
	return t
}

// RoundTrip sends req with the current token; on 401, or 403 with
// error="insufficient_scope", it authorizes and sends it once more.
func (t *Transport) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.Body != nil && req.GetBody == nil {
		// Keep the body for the retry.
		b, err := io.ReadAll(req.Body)
		req.Body.Close()
		if err != nil {
			return nil, err
		}
		req.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(b)), nil }
		req.Body, _ = req.GetBody()
	}
	reauthorized := false // for a 401, at most once per request
	nonceRetried := false // for a DPoP nonce challenge, at most once
	for attempt := 0; ; attempt++ {
		gen, tok, err := t.token(req.Context())
		if err != nil {
			return nil, err
		}
		try := req
		if attempt > 0 && req.GetBody != nil && req.Body != nil && req.Body != http.NoBody {
			try = req.Clone(req.Context())
			if try.Body, err = req.GetBody(); err != nil {
				return nil, err
			}
		}
		resp, err := t.send(try, tok)
		if err != nil {
			return nil, err
		}
		if t.dpop != nil && tok != nil && !nonceRetried && isDPoPNonceChallenge(resp) {
			// The same token again, with the nonce the server sent.
			resp.Body.Close()
			nonceRetried = true
			continue
		}
		ch, hasCh := ParseChallenge(resp.Header.Values("WWW-Authenticate"))
		stepUp := resp.StatusCode == http.StatusForbidden && hasCh && ch.Error == "insufficient_scope"
		if resp.StatusCode != http.StatusUnauthorized && !stepUp {
			if resp.StatusCode < 400 {
				t.mu.Lock()
				t.stepUps = 0
				t.mu.Unlock()
			}
			return resp, nil
		}
		if t.cfg.TokenSource != nil || (!stepUp && reauthorized) {
			// The caller's tokens are what they are; and a fresh token
			// refused again is the answer, not a reason to loop.
			return resp, nil
		}
		resp.Body.Close()
		if err := t.authorize(req.Context(), gen, ch, stepUp); err != nil {
			return nil, fmt.Errorf("oauthclient: authorizing %s: %w", t.cfg.ServerURL, err)
		}
		reauthorized = true
	}
}

func (t *Transport) send(req *http.Request, tok *oauth2.Token) (*http.Response, error) {
	if tok != nil {
		req = req.Clone(req.Context())
		if t.dpop != nil && strings.EqualFold(tok.TokenType, "DPoP") {
			p, err := t.dpop.proof(req.Method, req.URL, tok.AccessToken)
			if err != nil {
				return nil, err
			}
			req.Header.Set("Authorization", "DPoP "+tok.AccessToken)
			req.Header.Set("DPoP", p)
		} else {
			req.Header.Set("Authorization", "Bearer "+tok.AccessToken)
		}
	}
	resp, err := t.base.RoundTrip(req)
	if err == nil && t.dpop != nil {
		t.dpop.remember(resp)
	}
	return resp, err
}

// token returns the current token (nil before the first authorization).
func (t *Transport) token(ctx context.Context) (int, *oauth2.Token, error) {
	t.mu.Lock()
	ts, gen := t.ts, t.gen
	t.mu.Unlock()
	if ts == nil {
		return gen, nil, nil
	}
	tok, err := ts.Token()
	if err != nil {
		if t.cfg.TokenSource != nil {
			return gen, nil, fmt.Errorf("oauthclient: token: %w", err)
		}
		// A refresh that fails (the refresh token expired or was revoked)
		// is not the end: the request goes without a token, and its 401
		// starts a new authorization.
		t.mu.Lock()
		if t.gen == gen {
			t.ts, t.lastAuth = nil, err
			t.gen++
		}
		gen = t.gen
		t.mu.Unlock()
		return gen, nil, nil
	}
	return gen, tok, nil
}

// Token returns the current token, refreshed if it had expired; nil
// before the first authorization.
func (t *Transport) Token(ctx context.Context) (*oauth2.Token, error) {
	_, tok, err := t.token(ctx)
	return tok, err
}

// ErrStepUpLimit is returned when the server keeps answering 403
// insufficient_scope after MaxStepUps re-authorizations.
var ErrStepUpLimit = errors.New("scope step-up limit reached")

// authorize obtains a new token source; gen is the generation the failed
// request used (if another request renewed it meanwhile, nothing is done).
func (t *Transport) authorize(ctx context.Context, gen int, ch Challenge, stepUp bool) error {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.gen != gen {
		return t.lastAuth
	}
	if stepUp {
		if t.stepUps >= t.cfg.MaxStepUps {
			return fmt.Errorf("%w (%d re-authorizations for scope %q)", ErrStepUpLimit, t.stepUps, ch.Scope)
		}
		t.stepUps++
	}
	ts, err := t.flow(ctx, ch)
	if err == nil {
		// The first token now, so that a refused grant (a client
		// credentials or JWT bearer grant is only tried here) is this
		// request's error, surfaced as is.
		if _, terr := ts.Token(); terr != nil {
			err = fmt.Errorf("token request: %w", terr)
		}
	}
	t.gen++
	t.lastAuth = err
	if err != nil {
		t.ts = nil
		return err
	}
	t.ts = ts
	return nil
}

// flow is discovery, registration and the grant.
func (t *Transport) flow(ctx context.Context, ch Challenge) (oauth2.TokenSource, error) {
	var issuer, resource string
	var prmScopes []string
	prm, err := DiscoverResource(ctx, t.hc, t.cfg.ServerURL, ch)
	switch {
	case err == nil:
		if len(prm.AuthorizationServers) == 0 {
			return nil, fmt.Errorf("protected resource metadata of %s names no authorization server", t.cfg.ServerURL)
		}
		issuer, resource, prmScopes = prm.AuthorizationServers[0], prm.Resource, prm.ScopesSupported
	case errors.Is(err, errNotFound) && ch.ResourceMetadata == "":
		// No Protected Resource Metadata: the 2025-03-26 rule, where the
		// MCP server's origin is the authorization server.
		u, _ := url.Parse(t.cfg.ServerURL)
		issuer, resource = u.Scheme+"://"+u.Host, t.cfg.ServerURL
	default:
		return nil, err
	}
	fallback := false
	as, err := DiscoverServer(ctx, t.hc, issuer)
	if err != nil {
		if !errors.Is(err, errNotFound) || prm != nil {
			return nil, err
		}
		fallback = true
		// 2025-03-26 fallback: the default endpoints at the origin.
		as = &ServerMetadata{Issuer: issuer, AuthorizationEndpoint: issuer + "/authorize", TokenEndpoint: issuer + "/token", RegistrationEndpoint: issuer + "/register"}
	}
	// Scope selection (MCP "Scope Selection Strategy"): the challenge's
	// scope, else the resource's scopes_supported, else none; a step-up
	// asks for the union with what was asked before (SEP-2350).
	var want []string
	switch {
	case ch.Scope != "":
		want = strings.Fields(ch.Scope)
	case len(prmScopes) > 0:
		want = prmScopes
	}
	scopes := slices.Clone(t.scopes)
	for _, s := range want {
		if !slices.Contains(scopes, s) {
			scopes = append(scopes, s)
		}
	}
	t.scopes = scopes
	reqScopes := slices.Clone(scopes)
	if !t.cfg.NoOfflineAccess && !t.cfg.ClientCredentials && t.cfg.JWTBearerAssertion == nil && slices.Contains(as.ScopesSupported, "offline_access") && !slices.Contains(reqScopes, "offline_access") {
		reqScopes = append(reqScopes, "offline_access")
	}
	reg, err := t.register(ctx, as)
	if err != nil {
		return nil, err
	}
	// The token requests' client: with proofs where DPoP is on and the
	// server takes them.
	thc := t.hc
	if t.cfg.DPoP && supportsDPoP(as) {
		if t.dpopErr != nil {
			return nil, fmt.Errorf("DPoP key: %w", t.dpopErr)
		}
		thc = t.dpopHC
	}
	resourceParam := oauth2.SetAuthURLParam("resource", resource)
	if t.cfg.EnterpriseIdP != nil {
		cc := &clientcredentials.Config{ClientID: reg.id, ClientSecret: reg.secret, TokenURL: as.TokenEndpoint, Scopes: scopes, AuthStyle: reg.style}
		return oauth2.ReuseTokenSource(nil, &enterpriseSource{idp: t.cfg.EnterpriseIdP, cc: cc, issuer: as.Issuer, resource: resource,
			hc: thc, ctx: context.Background()}), nil
	}
	if t.cfg.JWTBearerAssertion != nil {
		cc := &clientcredentials.Config{ClientID: reg.id, TokenURL: as.TokenEndpoint, Scopes: reqScopes, AuthStyle: oauth2.AuthStyleInParams}
		return oauth2.ReuseTokenSource(nil, &jwtBearerSource{cc: cc, resource: resource, assertion: t.cfg.JWTBearerAssertion,
			ctx: context.WithValue(context.Background(), oauth2.HTTPClient, thc)}), nil
	}
	if t.cfg.ClientCredentials {
		cc := &clientcredentials.Config{ClientID: reg.id, ClientSecret: reg.secret, TokenURL: as.TokenEndpoint,
			Scopes: reqScopes, AuthStyle: reg.style, EndpointParams: url.Values{"resource": {resource}}}
		hctx := context.WithValue(context.Background(), oauth2.HTTPClient, thc)
		if t.cfg.ClientAssertionKey != nil {
			return oauth2.ReuseTokenSource(nil, &assertionSource{cc: cc, key: t.cfg.ClientAssertionKey, audience: as.Issuer, ctx: hctx}), nil
		}
		return cc.TokenSource(hctx), nil
	}
	if t.cfg.Authorize == nil {
		return nil, errors.New("the server asks for authorization and Config.Authorize is nil")
	}
	// PKCE support is known from the metadata only: without S256 in
	// code_challenge_methods_supported the client must not proceed (MCP
	// security considerations, 2025-06-18 onward). The 2025-03-26
	// fallback, which has no metadata, is the exception.
	if !fallback && !slices.Contains(as.CodeChallengeMethodsSupported, "S256") {
		return nil, fmt.Errorf("authorization server %s does not advertise PKCE with S256 (code_challenge_methods_supported %q)", as.Issuer, as.CodeChallengeMethodsSupported)
	}
	oc := &oauth2.Config{ClientID: reg.id, ClientSecret: reg.secret, RedirectURL: t.cfg.RedirectURL, Scopes: reqScopes,
		Endpoint: oauth2.Endpoint{AuthURL: as.AuthorizationEndpoint, TokenURL: as.TokenEndpoint, AuthStyle: reg.style}}
	verifier := oauth2.GenerateVerifier()
	state := oauth2.GenerateVerifier()
	authURL := oc.AuthCodeURL(state, oauth2.S256ChallengeOption(verifier), resourceParam)
	back, err := t.cfg.Authorize(ctx, authURL)
	if err != nil {
		return nil, fmt.Errorf("authorization: %w", err)
	}
	q := back.Query()
	// RFC 9207 as the 2026-07-28 page requires: a present iss must be the
	// recorded issuer, compared as strings with no normalization; a server
	// that advertises iss must send it. Checked before anything else of
	// the response is acted on, error responses included.
	if iss, ok := q["iss"]; ok {
		if len(iss) != 1 || iss[0] != as.Issuer {
			return nil, fmt.Errorf("authorization response: iss %q is not the issuer %q", q.Get("iss"), as.Issuer)
		}
	} else if as.IssParameterSupported {
		return nil, fmt.Errorf("authorization response: no iss, though %s advertises it", as.Issuer)
	}
	if q.Get("state") != state {
		return nil, errors.New("authorization response: state does not match")
	}
	if e := q.Get("error"); e != "" {
		return nil, fmt.Errorf("authorization refused: %s %s", e, q.Get("error_description"))
	}
	code := q.Get("code")
	if code == "" {
		return nil, errors.New("authorization response: no code")
	}
	hctx := context.WithValue(ctx, oauth2.HTTPClient, thc)
	opts := []oauth2.AuthCodeOption{oauth2.VerifierOption(verifier), resourceParam}
	if t.cfg.ClientAssertionKey != nil {
		a, err := clientAssertion(t.cfg.ClientAssertionKey, reg.id, as.Issuer)
		if err != nil {
			return nil, err
		}
		opts = append(opts, oauth2.SetAuthURLParam("client_assertion_type", jwtBearerAssertion), oauth2.SetAuthURLParam("client_assertion", a))
	}
	tok, err := oc.Exchange(hctx, code, opts...)
	if err != nil {
		return nil, fmt.Errorf("token exchange: %w", err)
	}
	return oauth2.ReuseTokenSource(tok, &refresher{hc: thc, oc: oc, resource: resource, tok: tok}), nil
}

// assertionSource is the client credentials grant with private_key_jwt
// client authentication: a new assertion for each token request.
type assertionSource struct {
	cc       *clientcredentials.Config
	key      crypto.Signer
	audience string
	ctx      context.Context
}

// Token implements oauth2.TokenSource.
func (s *assertionSource) Token() (*oauth2.Token, error) {
	a, err := clientAssertion(s.key, s.cc.ClientID, s.audience)
	if err != nil {
		return nil, err
	}
	cc := *s.cc
	cc.ClientSecret, cc.AuthStyle = "", oauth2.AuthStyleInParams
	cc.EndpointParams = url.Values{"resource": s.cc.EndpointParams["resource"],
		"client_assertion_type": {jwtBearerAssertion}, "client_assertion": {a}}
	return cc.Token(s.ctx)
}

// jwtBearerSource is the JWT bearer grant with a fresh assertion for each
// token request (through x/oauth2's client credentials Config, whose
// EndpointParams may set grant_type).
type jwtBearerSource struct {
	cc        *clientcredentials.Config
	resource  string
	assertion func(ctx context.Context) (string, error)
	ctx       context.Context
}

// Token implements oauth2.TokenSource.
func (s *jwtBearerSource) Token() (*oauth2.Token, error) {
	a, err := s.assertion(s.ctx)
	if err != nil {
		return nil, fmt.Errorf("workload assertion: %w", err)
	}
	cc := *s.cc
	cc.EndpointParams = url.Values{"grant_type": {"urn:ietf:params:oauth:grant-type:jwt-bearer"}, "assertion": {a}, "resource": {s.resource}}
	return cc.Token(s.ctx)
}

// refresher renews a token with its refresh token, sending the resource
// parameter too (RFC 8707 section 2.2; x/oauth2's own refresher sends no
// extra parameters, so the request goes through its client credentials
// Config, whose EndpointParams may override grant_type by design).
type refresher struct {
	hc       *http.Client
	oc       *oauth2.Config
	resource string
	tok      *oauth2.Token
}

// Token implements oauth2.TokenSource.
func (r *refresher) Token() (*oauth2.Token, error) {
	if r.tok.RefreshToken == "" {
		return nil, errors.New("token expired and there is no refresh token")
	}
	cc := &clientcredentials.Config{ClientID: r.oc.ClientID, ClientSecret: r.oc.ClientSecret, TokenURL: r.oc.Endpoint.TokenURL,
		AuthStyle: r.oc.Endpoint.AuthStyle, EndpointParams: url.Values{
			"grant_type": {"refresh_token"}, "refresh_token": {r.tok.RefreshToken}, "resource": {r.resource}}}
	tok, err := cc.Token(context.WithValue(context.Background(), oauth2.HTTPClient, r.hc))
	if err != nil {
		return nil, fmt.Errorf("refresh: %w", err)
	}
	if tok.RefreshToken == "" {
		tok.RefreshToken = r.tok.RefreshToken
	}
	r.tok = tok
	return tok, nil
}

// register returns this client's registration with the authorization
// server: pre-registered credentials, else a Client ID Metadata Document
// URL where supported, else dynamic client registration (RFC 7591).
// Registrations are kept per issuer and never reused with another one
// (SEP-2352: a resource that moves to a new authorization server means a
// new registration).
func (t *Transport) register(ctx context.Context, as *ServerMetadata) (registered, error) {
	if r, ok := t.clients[as.Issuer]; ok {
		return r, nil
	}
	var r registered
	switch {
	case t.cfg.ClientID != "" && t.cfg.ClientAssertionKey != nil:
		r = registered{id: t.cfg.ClientID, style: oauth2.AuthStyleInParams}
	case t.cfg.ClientID != "":
		r = registered{id: t.cfg.ClientID, secret: t.cfg.ClientSecret, style: authStyle(as.TokenEndpointAuthMethodsSupported, t.cfg.ClientSecret)}
	case t.cfg.ClientIDMetadataURL != "" && as.ClientIDMetadataDocumentSupported:
		r = registered{id: t.cfg.ClientIDMetadataURL, style: oauth2.AuthStyleInParams}
	case t.cfg.JWTBearerAssertion != nil:
		// The assertion identifies the workload; no client to register.
	case as.RegistrationEndpoint != "":
		var err error
		if r, err = t.dynamic(ctx, as); err != nil {
			return r, err
		}
	default:
		return r, fmt.Errorf("no way to register with %s: no client ID configured, no client ID metadata document support, no registration endpoint", as.Issuer)
	}
	t.clients[as.Issuer] = r
	return r, nil
}

// authStyle picks how the client authenticates at the token endpoint from
// what the server supports (client_secret_basic unless only post is).
func authStyle(methods []string, secret string) oauth2.AuthStyle {
	if secret == "" {
		return oauth2.AuthStyleInParams
	}
	if len(methods) > 0 && !slices.Contains(methods, "client_secret_basic") && slices.Contains(methods, "client_secret_post") {
		return oauth2.AuthStyleInParams
	}
	return oauth2.AuthStyleInHeader
}

// dynamic registers with RFC 7591 dynamic client registration.
func (t *Transport) dynamic(ctx context.Context, as *ServerMetadata) (registered, error) {
	method := "none"
	for _, m := range []string{"none", "client_secret_basic", "client_secret_post"} {
		if len(as.TokenEndpointAuthMethodsSupported) == 0 || slices.Contains(as.TokenEndpointAuthMethodsSupported, m) {
			method = m
			break
		}
	}
	grants := []string{"authorization_code", "refresh_token"}
	if t.cfg.ClientCredentials {
		grants = []string{"client_credentials"}
	}
	if t.cfg.JWTBearerAssertion != nil {
		grants = []string{"urn:ietf:params:oauth:grant-type:jwt-bearer"}
	}
	name := t.cfg.ClientName
	if name == "" {
		name = "mcpgen"
	}
	meta := map[string]any{
		"client_name":                name,
		"grant_types":                grants,
		"token_endpoint_auth_method": method,
		// SEP-837: a native application (loopback redirect).
		"application_type": "native",
	}
	if !t.cfg.ClientCredentials && t.cfg.JWTBearerAssertion == nil {
		meta["redirect_uris"] = []string{t.cfg.RedirectURL}
		meta["response_types"] = []string{"code"}
	}
	body, _ := json.Marshal(meta)
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, as.RegistrationEndpoint, bytes.NewReader(body))
	if err != nil {
		return registered{}, err
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := t.hc.Do(req)
	if err != nil {
		return registered{}, fmt.Errorf("client registration: %w", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusCreated && resp.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(io.LimitReader(resp.Body, 512))
		return registered{}, fmt.Errorf("client registration at %s: %s: %s", as.RegistrationEndpoint, resp.Status, b)
	}
	var out struct {
		ClientID                string `json:"client_id"`
		ClientSecret            string `json:"client_secret"`
		TokenEndpointAuthMethod string `json:"token_endpoint_auth_method"`
	}
	if err := json.NewDecoder(io.LimitReader(resp.Body, 1<<20)).Decode(&out); err != nil || out.ClientID == "" {
		return registered{}, fmt.Errorf("client registration at %s: no client_id in the answer (%v)", as.RegistrationEndpoint, err)
	}
	r := registered{id: out.ClientID, secret: out.ClientSecret}
	switch out.TokenEndpointAuthMethod {
	case "client_secret_post", "none":
		r.style = oauth2.AuthStyleInParams
	case "client_secret_basic":
		r.style = oauth2.AuthStyleInHeader
	default:
		r.style = authStyle(as.TokenEndpointAuthMethodsSupported, out.ClientSecret)
	}
	return r, nil
}
