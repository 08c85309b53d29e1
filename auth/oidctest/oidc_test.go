package oidctest

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/zitadel/oidc/v3/example/server/exampleop"
	"github.com/zitadel/oidc/v3/example/server/storage"
	"github.com/zitadel/oidc/v3/pkg/client/rp"
	"github.com/zitadel/oidc/v3/pkg/oidc"
	"github.com/zitadel/oidc/v3/pkg/op"
	"golang.org/x/oauth2"

	"github.com/mcpgen/mcpgen/auth/oauthclient"
	mcp "github.com/mcpgen/mcpgen/generated/mcp20260728"
	"github.com/mcpgen/mcpgen/runtime/session"
	"github.com/mcpgen/mcpgen/runtime/streamhttp"
)

const (
	clientID    = "mcp-client" // the native (public, PKCE) client the MCP client is
	otherClient = "other-client"
	redirectURL = "http://127.0.0.1/callback"
	username    = "test-user@127.0.0.1"
	password    = "verysecure"
)

// jwtStorage is the example storage with JWT access tokens (so the
// resource server can check them locally) and a short access token
// lifetime (so that refresh happens).
type jwtStorage struct {
	*storage.Storage
	ttl      time.Duration
	refreshN atomic.Int32
}

type jwtClient struct{ op.Client }

func (jwtClient) AccessTokenType() op.AccessTokenType { return op.AccessTokenTypeJWT }

func (s *jwtStorage) GetClientByClientID(ctx context.Context, id string) (op.Client, error) {
	c, err := s.Storage.GetClientByClientID(ctx, id)
	if err != nil {
		return nil, err
	}
	return jwtClient{c}, nil
}

func (s *jwtStorage) CreateAccessAndRefreshTokens(ctx context.Context, req op.TokenRequest, current string) (string, string, time.Time, error) {
	if current != "" {
		s.refreshN.Add(1)
	}
	id, rt, _, err := s.Storage.CreateAccessAndRefreshTokens(ctx, req, current)
	return id, rt, time.Now().Add(s.ttl), err
}

func (s *jwtStorage) CreateAccessToken(ctx context.Context, req op.TokenRequest) (string, time.Time, error) {
	id, _, err := s.Storage.CreateAccessToken(ctx, req)
	return id, time.Now().Add(s.ttl), err
}

// GetPrivateClaimsFromScopes puts the granted scopes in the JWT access
// token's scope claim (the op's JWTs carry none by themselves), which is
// what the resource server checks.
func (s *jwtStorage) GetPrivateClaimsFromScopes(ctx context.Context, userID, clientID string, scopes []string) (map[string]any, error) {
	claims, err := s.Storage.GetPrivateClaimsFromScopes(ctx, userID, clientID, scopes)
	if claims == nil {
		claims = map[string]any{}
	}
	claims["scope"] = strings.Join(scopes, " ")
	return claims, err
}

// provider starts the op at an httptest server (the issuer is its URL).
func provider(t *testing.T, ttl time.Duration) (*httptest.Server, *jwtStorage) {
	t.Helper()
	var h http.Handler
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { h.ServeHTTP(w, r) }))
	t.Cleanup(srv.Close)
	storage.RegisterClients(storage.NativeClient(clientID, redirectURL), storage.NativeClient(otherClient, redirectURL))
	st := &jwtStorage{Storage: storage.NewStorage(storage.NewUserStore(srv.URL)), ttl: ttl}
	h = exampleop.SetupServer(srv.URL, st, nil, false)
	return srv, st
}

// login plays the user: it follows the authorization request to the op's
// login page, signs in with the example user, and returns the redirect to
// the client (consent is not part of the example op's flow).
func login(ctx context.Context, authURL string) (*url.URL, error) {
	agent := &http.Client{CheckRedirect: func(req *http.Request, _ []*http.Request) error {
		if strings.HasPrefix(req.URL.String(), redirectURL) {
			return http.ErrUseLastResponse
		}
		return nil
	}}
	get, err := agent.Get(authURL)
	if err != nil {
		return nil, err
	}
	get.Body.Close()
	id := get.Request.URL.Query().Get("authRequestID")
	if id == "" {
		return nil, fmt.Errorf("authorization did not reach the login page: %s %s", get.Status, get.Request.URL)
	}
	form := url.Values{"username": {username}, "password": {password}, "id": {id}}
	loginURL := get.Request.URL.ResolveReference(&url.URL{Path: "/login/username"})
	resp, err := agent.PostForm(loginURL.String(), form)
	if err != nil {
		return nil, err
	}
	resp.Body.Close()
	loc := resp.Header.Get("Location")
	if !strings.HasPrefix(loc, redirectURL) {
		return nil, fmt.Errorf("login ended at %s (%s), not at the redirect URI", resp.Request.URL, resp.Status)
	}
	return url.Parse(loc)
}

// toolServer is the MCP server's tools: "echo" (needs custom_scope) and
// "admin" (needs mcp:admin, which the op never grants).
type toolServer struct{}

func (toolServer) ListTools(ctx context.Context, p *mcp.PaginatedRequestParams) (*mcp.ListToolsResult, error) {
	obj := mcp.ToolInputSchema{}
	return &mcp.ListToolsResult{Tools: []mcp.Tool{{Name: "echo", InputSchema: obj}, {Name: "admin", InputSchema: obj}}}, nil
}

func (toolServer) CallTool(ctx context.Context, p *mcp.CallToolRequestParams) (*mcp.CallToolResult, error) {
	return mcp.TextResult("called " + p.Name), nil
}

// resourceServer is an mcpgen streamhttp server behind a bearer check
// local to this test (issue 23's resource-server package is built
// concurrently; this test does not depend on it): JWT verified with the
// op's keys (zitadel's access token verifier: signature, issuer, expiry),
// audience (zitadel's op does not implement RFC 8707 resource indicators,
// so the audience it issues is the client ID: the server accepts tokens
// issued to clientID only), and scopes per tool.
type resourceServer struct {
	url, prm string
	tokens   sync.Map // access tokens seen, accepted
	accepted atomic.Int32
}

func startResource(t *testing.T, issuer string) *resourceServer {
	t.Helper()
	rs := &resourceServer{}
	verifier := op.NewAccessTokenVerifier(issuer, rp.NewRemoteKeySet(http.DefaultClient, issuer+"/keys"))
	mcpH := streamhttp.NewHandler(mcp.NewServer(session.Implementation{Name: "oidctest", Version: "0"}, toolServer{}), streamhttp.Options{})
	t.Cleanup(func() { mcpH.Close(context.Background()) })
	mux := http.NewServeMux()
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	rs.url, rs.prm = srv.URL+"/mcp", srv.URL+"/.well-known/oauth-protected-resource/mcp"
	mux.HandleFunc("/.well-known/oauth-protected-resource/mcp", func(w http.ResponseWriter, r *http.Request) {
		json.NewEncoder(w).Encode(map[string]any{"resource": rs.url, "authorization_servers": []string{issuer}, "scopes_supported": []string{"openid"}})
	})
	challenge := func(w http.ResponseWriter, status int, extra string) {
		w.Header().Set("WWW-Authenticate", fmt.Sprintf(`Bearer resource_metadata=%q%s`, rs.prm, extra))
		w.WriteHeader(status)
	}
	mux.HandleFunc("/mcp", func(w http.ResponseWriter, r *http.Request) {
		raw, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
		if !ok {
			challenge(w, http.StatusUnauthorized, "")
			return
		}
		claims, err := op.VerifyAccessToken[*oidc.AccessTokenClaims](r.Context(), raw, verifier)
		if err != nil || !slices.Contains(claims.Audience, clientID) {
			challenge(w, http.StatusUnauthorized, `, error="invalid_token"`)
			return
		}
		body, _ := io.ReadAll(r.Body)
		r.Body = io.NopCloser(bytes.NewReader(body))
		var msg struct {
			Method string `json:"method"`
			Params struct {
				Name string `json:"name"`
			} `json:"params"`
		}
		_ = json.Unmarshal(body, &msg)
		if msg.Method == "tools/call" {
			need := "custom_scope"
			if msg.Params.Name == "admin" {
				need = "mcp:admin"
			}
			if !slices.Contains(claims.Scopes, need) {
				challenge(w, http.StatusForbidden, fmt.Sprintf(`, error="insufficient_scope", scope=%q`, need))
				return
			}
		}
		rs.tokens.Store(raw, true)
		rs.accepted.Add(1)
		mcpH.ServeHTTP(w, r)
	})
	return rs
}

// connect dials the resource server through an oauthclient.Transport.
func connect(t *testing.T, ctx context.Context, rs *resourceServer, cfg oauthclient.Config) (*mcp.ClientSession, error) {
	cs, _, err := connectTransport(t, ctx, rs, cfg)
	return cs, err
}

// connectTransport is connect that also returns the oauthclient.Transport.
func connectTransport(t *testing.T, ctx context.Context, rs *resourceServer, cfg oauthclient.Config) (*mcp.ClientSession, *oauthclient.Transport, error) {
	t.Helper()
	cfg.ServerURL, cfg.RedirectURL = rs.url, redirectURL
	if cfg.Authorize == nil && cfg.TokenSource == nil {
		cfg.Authorize = login
	}
	auth := oauthclient.NewTransport(cfg)
	tr, err := streamhttp.Dial(ctx, rs.url, streamhttp.ClientOptions{Revisions: []session.Revision{mcp.Revision()}, HTTPClient: &http.Client{Transport: auth}})
	if err != nil {
		return nil, nil, err
	}
	cs, err := mcp.Connect(ctx, tr, session.Implementation{Name: "oidctest-client", Version: "0"}, nil)
	if err != nil {
		tr.Close()
		return nil, nil, err
	}
	t.Cleanup(func() { cs.Close(context.Background()) })
	return cs, auth, nil
}

// TestLoginStepUpRefresh: login at the op (code + PKCE), tools/list with
// the first token, a 403 insufficient_scope on tools/call answered by a
// re-authorization for the union of scopes, and refreshes: the op's
// access tokens live 5 s, under x/oauth2's 10 s expiry margin, so every
// request after the code exchange goes through a refresh grant.
func TestLoginStepUpRefresh(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	as, st := provider(t, 5*time.Second)
	rs := startResource(t, as.URL)
	cs, err := connect(t, ctx, rs, oauthclient.Config{ClientID: clientID})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := cs.ListTools(ctx, &mcp.PaginatedRequestParams{}); err != nil {
		t.Fatal(err)
	}
	res, err := cs.CallTool(ctx, &mcp.CallToolRequestParams{Name: "echo"})
	if err != nil {
		t.Fatalf("tools/call echo after step-up: %v", err)
	}
	if len(res.Content) != 1 {
		t.Fatalf("echo: %+v", res)
	}
	if n := st.refreshN.Load(); n == 0 {
		t.Errorf("no refresh grant reached the op")
	}
	distinct := 0
	rs.tokens.Range(func(any, any) bool { distinct++; return true })
	if distinct < 2 {
		t.Errorf("the server saw %d distinct access tokens; want refreshed ones", distinct)
	}
}

// TestRevokedRefreshToken: once the refresh token is revoked at the op
// (RFC 7009), the next request's refresh fails, and the transport
// authorizes again (a second login) instead of failing the request.
func TestRevokedRefreshToken(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	as, _ := provider(t, 5*time.Second) // under x/oauth2's expiry margin: every request refreshes
	rs := startResource(t, as.URL)
	var logins atomic.Int32
	cs, auth, err := connectTransport(t, ctx, rs, oauthclient.Config{ClientID: clientID, Authorize: func(ctx context.Context, u string) (*url.URL, error) {
		logins.Add(1)
		return login(ctx, u)
	}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := cs.ListTools(ctx, &mcp.PaginatedRequestParams{}); err != nil {
		t.Fatal(err)
	}
	tok, err := auth.Token(ctx)
	if err != nil || tok.RefreshToken == "" {
		t.Fatalf("token %+v, %v: want one with a refresh token", tok, err)
	}
	resp, err := http.PostForm(as.URL+"/revoke", url.Values{"token": {tok.RefreshToken}, "token_type_hint": {"refresh_token"}, "client_id": {clientID}})
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("revocation: %s", resp.Status)
	}
	if _, err := cs.ListTools(ctx, &mcp.PaginatedRequestParams{}); err != nil {
		t.Fatalf("after revocation: %v", err)
	}
	if n := logins.Load(); n != 2 {
		t.Fatalf("%d logins; want 2 (the first, and one after the revoked refresh token)", n)
	}
}

// TestMissingScope: a scope the op never grants ends after the step-up
// limit with ErrStepUpLimit, not in a loop.
func TestMissingScope(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	as, _ := provider(t, time.Hour)
	rs := startResource(t, as.URL)
	cs, err := connect(t, ctx, rs, oauthclient.Config{ClientID: clientID})
	if err != nil {
		t.Fatal(err)
	}
	_, err = cs.CallTool(ctx, &mcp.CallToolRequestParams{Name: "admin"})
	if err == nil || !strings.Contains(err.Error(), oauthclient.ErrStepUpLimit.Error()) {
		t.Fatalf("tools/call admin: %v; want the step-up limit", err)
	}
}

// TestWrongAudience: a token the op issued to another client is refused
// by the resource server, and the client does not get in.
func TestWrongAudience(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	as, _ := provider(t, time.Hour)
	rs := startResource(t, as.URL)
	if _, err := connect(t, ctx, rs, oauthclient.Config{ClientID: otherClient}); err == nil {
		t.Fatal("a token for another audience was accepted")
	}
	if n := rs.accepted.Load(); n != 0 {
		t.Fatalf("the server accepted %d requests", n)
	}
}

// TestExpiredToken: a real token of the op, once expired, is refused
// (401 invalid_token); the token source being the caller's, nothing is
// discovered or retried and the connection fails.
func TestExpiredToken(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	const ttl = 2 * time.Second
	as, _ := provider(t, ttl)
	rs := startResource(t, as.URL)
	oc := &oauth2.Config{ClientID: clientID, RedirectURL: redirectURL, Scopes: []string{"openid"},
		Endpoint: oauth2.Endpoint{AuthURL: as.URL + "/auth", TokenURL: as.URL + "/oauth/token", AuthStyle: oauth2.AuthStyleInParams}}
	verifier := oauth2.GenerateVerifier()
	back, err := login(ctx, oc.AuthCodeURL("st", oauth2.S256ChallengeOption(verifier)))
	if err != nil {
		t.Fatal(err)
	}
	tok, err := oc.Exchange(ctx, back.Query().Get("code"), oauth2.VerifierOption(verifier))
	if err != nil {
		t.Fatal(err)
	}
	// The token was issued before now: it has expired by then (JWT exp
	// has whole seconds, hence the extra second).
	expired := time.Now().Add(ttl + time.Second)
	// The token is valid now: the server accepts it.
	if _, err := connect(t, ctx, rs, oauthclient.Config{TokenSource: oauth2.StaticTokenSource(tok)}); err != nil {
		t.Fatalf("fresh token: %v", err)
	}
	// Its expiry is the event waited for.
	time.Sleep(time.Until(expired))
	before := rs.accepted.Load()
	if _, err := connect(t, ctx, rs, oauthclient.Config{TokenSource: oauth2.StaticTokenSource(tok)}); err == nil {
		t.Fatal("an expired token was accepted")
	}
	if n := rs.accepted.Load(); n != before {
		t.Fatalf("the server accepted %d requests with an expired token", n-before)
	}
}

// TestMain quiets the example op's request log.
func TestMain(m *testing.M) {
	slog.SetDefault(slog.New(slog.DiscardHandler))
	os.Exit(m.Run())
}
