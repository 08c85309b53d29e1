package jwtverify_test

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	jose "github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/jwt"
	"github.com/mcpgen/mcpgen/auth/jwtverify"
	"github.com/mcpgen/mcpgen/runtime/auth"
)

const (
	issuer   = "https://as.example.com"
	resource = "https://mcp.example.com/mcp"
)

// as is a fake authorization server's key material and JWKS endpoint.
type as struct {
	mu      sync.Mutex
	keys    map[string]any // kid -> private key
	public  []jose.JSONWebKey
	fetches atomic.Int64
	down    atomic.Bool
	srv     *httptest.Server
}

func newAS(t *testing.T) *as {
	a := &as{keys: map[string]any{}}
	a.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		a.fetches.Add(1)
		if a.down.Load() {
			http.Error(w, "down", http.StatusServiceUnavailable)
			return
		}
		a.mu.Lock()
		defer a.mu.Unlock()
		w.Header().Set("Content-Type", "application/jwk-set+json")
		json.NewEncoder(w).Encode(jose.JSONWebKeySet{Keys: a.public})
	}))
	t.Cleanup(a.srv.Close)
	return a
}

// addKey makes a key with kid and publishes its public half.
func (a *as) addKey(t *testing.T, kid string, alg jose.SignatureAlgorithm) {
	t.Helper()
	var priv, pub any
	switch alg {
	case jose.RS256:
		k, err := rsa.GenerateKey(rand.Reader, 2048)
		if err != nil {
			t.Fatal(err)
		}
		priv, pub = k, &k.PublicKey
	case jose.ES256:
		k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
		if err != nil {
			t.Fatal(err)
		}
		priv, pub = k, &k.PublicKey
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	a.keys[kid] = priv
	a.public = append(a.public, jose.JSONWebKey{Key: pub, KeyID: kid, Algorithm: string(alg), Use: "sig"})
}

type extra struct {
	Scope string `json:"scope,omitempty"`
}

// sign issues a token signed with kid's key.
func (a *as) sign(t *testing.T, kid string, alg jose.SignatureAlgorithm, c jwt.Claims, scope string) string {
	t.Helper()
	a.mu.Lock()
	key := a.keys[kid]
	a.mu.Unlock()
	s, err := jose.NewSigner(jose.SigningKey{Algorithm: alg, Key: key}, (&jose.SignerOptions{}).WithType("at+jwt").WithHeader("kid", kid))
	if err != nil {
		t.Fatal(err)
	}
	tok, err := jwt.Signed(s).Claims(c).Claims(extra{Scope: scope}).Serialize()
	if err != nil {
		t.Fatal(err)
	}
	return tok
}

func claims(sub string, exp time.Duration) jwt.Claims {
	now := time.Now()
	return jwt.Claims{Issuer: issuer, Subject: sub, Audience: jwt.Audience{resource},
		Expiry: jwt.NewNumericDate(now.Add(exp)), IssuedAt: jwt.NewNumericDate(now)}
}

func TestVerify(t *testing.T) {
	a := newAS(t)
	a.addKey(t, "k1", jose.RS256)
	a.addKey(t, "e1", jose.ES256)
	v, err := jwtverify.New(jwtverify.Config{Issuer: issuer, JWKSURL: a.srv.URL})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	for _, k := range []struct {
		kid string
		alg jose.SignatureAlgorithm
	}{{"k1", jose.RS256}, {"e1", jose.ES256}} {
		id, err := v.Verify(ctx, a.sign(t, k.kid, k.alg, claims("alice", time.Hour), "mcp tools:write"))
		if err != nil || id.Subject != "alice" || id.Issuer != issuer || strings.Join(id.Scopes, " ") != "mcp tools:write" ||
			len(id.Audience) != 1 || id.Audience[0] != resource || id.Expiry.IsZero() {
			t.Errorf("%s: %+v, %v", k.kid, id, err)
		}
	}
	bad := map[string]string{}
	c := claims("alice", time.Hour)
	c.Issuer = "https://evil.example"
	bad["other issuer"] = a.sign(t, "k1", jose.RS256, c, "mcp")
	bad["expired"] = a.sign(t, "k1", jose.RS256, claims("alice", -2*time.Minute), "mcp")
	c = claims("alice", time.Hour)
	c.NotBefore = jwt.NewNumericDate(time.Now().Add(time.Hour))
	bad["not yet valid"] = a.sign(t, "k1", jose.RS256, c, "mcp")
	c = claims("alice", time.Hour)
	c.Expiry = nil
	bad["no exp"] = a.sign(t, "k1", jose.RS256, c, "mcp")
	good := a.sign(t, "k1", jose.RS256, claims("alice", time.Hour), "mcp")
	parts := strings.Split(good, ".")
	bad["tampered payload"] = parts[0] + "." + strings.TrimRight(parts[1], "A") + "B." + parts[2]
	bad["none"] = "eyJhbGciOiJub25lIn0." + parts[1] + "."
	hs, _ := jose.NewSigner(jose.SigningKey{Algorithm: jose.HS256, Key: []byte("0123456789abcdef0123456789abcdef")}, (&jose.SignerOptions{}).WithHeader("kid", "k1"))
	bad["HS256 with a guessed secret"], _ = jwt.Signed(hs).Claims(claims("alice", time.Hour)).Serialize()
	// Signed by a key the issuer never published, under a known kid.
	other := newAS(t)
	other.addKey(t, "k1", jose.RS256)
	bad["foreign key, known kid"] = other.sign(t, "k1", jose.RS256, claims("alice", time.Hour), "mcp")
	bad["opaque without fallback"] = "opaque-token"
	for name, tok := range bad {
		if id, err := v.Verify(ctx, tok); !errors.Is(err, auth.ErrInvalidToken) {
			t.Errorf("%s: %+v, %v; want ErrInvalidToken", name, id, err)
		}
	}
	aud, _ := jwtverify.New(jwtverify.Config{Issuer: issuer, JWKSURL: a.srv.URL, Audience: "https://other.example.com"})
	if _, err := aud.Verify(ctx, good); !errors.Is(err, auth.ErrInvalidToken) {
		t.Errorf("Config.Audience not in aud: %v", err)
	}
}

// TestRotation: a token with a key id the cache lacks makes one refetch
// (the issuer rotated); unknown kids refetch at most once per
// MinRefetchInterval; old keys are kept when the JWKS is down.
func TestRotation(t *testing.T) {
	a := newAS(t)
	a.addKey(t, "k1", jose.RS256)
	now := time.Now()
	var mu sync.Mutex
	clock := func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
	advance := func(d time.Duration) { mu.Lock(); now = now.Add(d); mu.Unlock() }
	v, _ := jwtverify.New(jwtverify.Config{Issuer: issuer, JWKSURL: a.srv.URL, MinRefetchInterval: time.Minute, Now: clock})
	ctx := context.Background()
	if _, err := v.Verify(ctx, a.sign(t, "k1", jose.RS256, claims("alice", 24*time.Hour), "mcp")); err != nil {
		t.Fatal(err)
	}
	advance(2 * time.Minute)
	a.addKey(t, "k2", jose.RS256)
	if _, err := v.Verify(ctx, a.sign(t, "k2", jose.RS256, claims("alice", 24*time.Hour), "mcp")); err != nil {
		t.Fatalf("rotated key: %v", err)
	}
	if n := a.fetches.Load(); n != 2 {
		t.Fatalf("fetches after rotation: %d, want 2", n)
	}
	forged := newAS(t)
	for i := 0; i < 100; i++ {
		kid := "forged-" + string(rune('a'+i%26))
		forged.addKey(t, kid, jose.ES256)
		if _, err := v.Verify(ctx, forged.sign(t, kid, jose.ES256, claims("mallory", time.Hour), "mcp")); !errors.Is(err, auth.ErrInvalidToken) {
			t.Fatalf("forged kid: %v", err)
		}
	}
	if n := a.fetches.Load(); n != 2 {
		t.Errorf("100 unknown kids within MinRefetchInterval made %d fetches, want none beyond the 2", n)
	}
	advance(2 * time.Minute)
	a.down.Store(true)
	if _, err := v.Verify(ctx, forged.sign(t, "forged-a", jose.ES256, claims("mallory", time.Hour), "mcp")); !errors.Is(err, auth.ErrInvalidToken) {
		t.Errorf("unknown kid with the JWKS down: %v", err)
	}
	if a.fetches.Load() != 3 {
		t.Errorf("fetches: %d, want one more after the interval", a.fetches.Load())
	}
	if _, err := v.Verify(ctx, a.sign(t, "k1", jose.RS256, claims("alice", 24*time.Hour), "mcp")); err != nil {
		t.Errorf("known key with the JWKS down: %v", err)
	}
}

// TestUnavailable: no JWKS at all is an outage (503 at the resource
// server), not an invalid token.
func TestUnavailable(t *testing.T) {
	a := newAS(t)
	a.addKey(t, "k1", jose.RS256)
	a.down.Store(true)
	v, _ := jwtverify.New(jwtverify.Config{Issuer: issuer, JWKSURL: a.srv.URL})
	if _, err := v.Verify(context.Background(), a.sign(t, "k1", jose.RS256, claims("alice", time.Hour), "mcp")); !errors.Is(err, auth.ErrVerifierUnavailable) {
		t.Errorf("JWKS down: %v, want ErrVerifierUnavailable", err)
	}
}

// TestResourceServer: the verifier behind runtime/auth: a JWT for this
// resource passes with its identity in the handler's ctx, one for another
// resource is 401 invalid_token, an opaque token goes to introspection.
func TestResourceServer(t *testing.T) {
	a := newAS(t)
	a.addKey(t, "k1", jose.RS256)
	intro := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.PostFormValue("token") == "opaque" {
			w.Write([]byte(`{"active":true,"sub":"svc","scope":"mcp","aud":"` + resource + `","iss":"` + issuer + `"}`))
			return
		}
		w.Write([]byte(`{"active":false}`))
	}))
	defer intro.Close()
	v, _ := jwtverify.New(jwtverify.Config{Issuer: issuer, JWKSURL: a.srv.URL,
		Fallback: &auth.IntrospectionVerifier{Endpoint: intro.URL, Issuer: issuer}})
	rs, err := auth.New(auth.Config{Resource: resource, AuthorizationServers: []string{issuer}, Verifier: v, Scopes: []string{"mcp"}})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(rs.Middleware(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		id, _ := auth.IdentityFrom(r.Context())
		w.Write([]byte(id.Subject))
	})))
	defer srv.Close()
	get := func(tok string) (int, string, string) {
		req, _ := http.NewRequest("GET", srv.URL, nil)
		req.Header.Set("Authorization", "Bearer "+tok)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var b strings.Builder
		buf := make([]byte, 512)
		n, _ := resp.Body.Read(buf)
		b.Write(buf[:n])
		return resp.StatusCode, resp.Header.Get("WWW-Authenticate"), b.String()
	}
	if code, _, body := get(a.sign(t, "k1", jose.RS256, claims("alice", time.Hour), "mcp")); code != 200 || body != "alice" {
		t.Errorf("JWT for this resource: %d %s", code, body)
	}
	c := claims("alice", time.Hour)
	c.Audience = jwt.Audience{"https://other.example.com/mcp"}
	if code, ch, _ := get(a.sign(t, "k1", jose.RS256, c, "mcp")); code != 401 || !strings.Contains(ch, `error="invalid_token"`) {
		t.Errorf("JWT for another resource: %d %s", code, ch)
	}
	if code, ch, _ := get(a.sign(t, "k1", jose.RS256, claims("alice", time.Hour), "other")); code != 403 || !strings.Contains(ch, `error="insufficient_scope"`) {
		t.Errorf("JWT without the scope: %d %s", code, ch)
	}
	if code, _, body := get("opaque"); code != 200 || body != "svc" {
		t.Errorf("opaque token through introspection: %d %s", code, body)
	}
	if code, _, _ := get("revoked-opaque"); code != 401 {
		t.Errorf("inactive opaque token: %d", code)
	}
}

// TestFetchDoesNotBlockCachedKeys: while a JWKS fetch hangs (the
// authorization server is slow), tokens signed with a cached key still
// verify at once; the verifications that need the fetch (an unknown kid)
// share one fetch and wait for it, each no longer than its ctx allows.
func TestFetchDoesNotBlockCachedKeys(t *testing.T) {
	a := newAS(t)
	a.addKey(t, "k1", jose.RS256)
	var hold atomic.Bool
	entered, release := make(chan struct{}, 16), make(chan struct{})
	var fetches atomic.Int64
	jwks := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fetches.Add(1)
		if hold.Load() {
			entered <- struct{}{}
			<-release
		}
		resp, err := http.Get(a.srv.URL)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadGateway)
			return
		}
		defer resp.Body.Close()
		w.Header().Set("Content-Type", resp.Header.Get("Content-Type"))
		_, _ = io.Copy(w, resp.Body)
	}))
	defer jwks.Close()
	defer func() {
		select {
		case <-release:
		default:
			close(release)
		}
	}()
	now := time.Now()
	var mu sync.Mutex
	clock := func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
	v, _ := jwtverify.New(jwtverify.Config{Issuer: issuer, JWKSURL: jwks.URL, MinRefetchInterval: time.Minute, Now: clock})
	ctx := context.Background()
	known := a.sign(t, "k1", jose.RS256, claims("alice", 24*time.Hour), "mcp")
	if _, err := v.Verify(ctx, known); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	now = now.Add(2 * time.Minute)
	mu.Unlock()
	a.addKey(t, "k2", jose.RS256)
	rotated := a.sign(t, "k2", jose.RS256, claims("bob", 24*time.Hour), "mcp")
	hold.Store(true)
	const waiters = 8
	results := make(chan error, waiters)
	for range waiters {
		go func() {
			_, err := v.Verify(ctx, rotated)
			results <- err
		}()
	}
	select {
	case <-entered: // the refetch for k2 hangs in the server now
	case <-time.After(10 * time.Second):
		t.Fatal("no JWKS fetch for the unknown kid")
	}
	cached := make(chan error, 1)
	go func() {
		var err error
		for i := 0; i < 100 && err == nil; i++ {
			_, err = v.Verify(ctx, known)
		}
		cached <- err
	}()
	select {
	case err := <-cached:
		if err != nil {
			t.Fatalf("a cached key during the fetch: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("verifications of a cached key waited for the JWKS fetch")
	}
	// One that needs the fetch but cannot wait: its own deadline ends it.
	short, cancel := context.WithTimeout(ctx, 50*time.Millisecond)
	defer cancel()
	if _, err := v.Verify(short, rotated); !errors.Is(err, auth.ErrVerifierUnavailable) {
		t.Errorf("a waiter whose ctx ended: %v, want ErrVerifierUnavailable", err)
	}
	close(release)
	for range waiters {
		if err := <-results; err != nil {
			t.Errorf("waiter for the rotated key: %v", err)
		}
	}
	if n := fetches.Load(); n != 2 {
		t.Errorf("%d JWKS fetches, want 2 (the first and one shared by %d waiters)", n, waiters+1)
	}
	if n := v.Fetches(); n != 2 {
		t.Errorf("Fetches() = %d, want 2", n)
	}
}
