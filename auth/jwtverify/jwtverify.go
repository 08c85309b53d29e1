// Package jwtverify verifies JWT access tokens (RFC 9068 style) for the
// MCP resource server of github.com/mcpgen/mcpgen/runtime/auth: signatures
// against the authorization server's JWKS, fetched and cached, refetched
// when a token names a key id the cache lacks (key rotation) at most once
// per Config.MinRefetchInterval; issuer, audience, expiry and not-before;
// scopes from "scope" (space-separated) or "scp" (array). Tokens that are
// not JWTs go to Config.Fallback, for example an auth.IntrospectionVerifier
// (RFC 7662), so one verifier serves both kinds.
//
// It is a module of its own so that the main module (and its runtime
// packages, standard library only) does not depend on a JOSE library. It
// is built on github.com/go-jose/go-jose/v4: a JOSE implementation with
// no dependencies of its own, maintained (v4.1.9), used by Kubernetes,
// Dex and zitadel/oidc, whose ParseSigned takes an explicit algorithm
// allow-list (so "none" and algorithm-confusion tokens are refused before
// any key is tried) and whose JSONWebKeySet parses RSA, EC and Ed25519
// JWKs. jwx would do as well but brings a much larger API and more
// dependencies than a resource server needs.
package jwtverify

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"time"

	jose "github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/jwt"
	"github.com/mcpgen/mcpgen/runtime/auth"
)

// Config configures a Verifier.
type Config struct {
	// Issuer is required of every token's "iss". Required.
	Issuer string
	// JWKSURL is the authorization server's jwks_uri. Required.
	JWKSURL string
	// Audience, when set, is required among the token's "aud" (the
	// resource server checks the canonical resource again, so this is for
	// verifiers used elsewhere).
	Audience string
	// Algorithms are the signature algorithms accepted (default RS256,
	// PS256, ES256, ES384, EdDSA).
	Algorithms []jose.SignatureAlgorithm
	// Leeway is the clock skew allowed for "nbf" and "iat" (default 1 min);
	// "exp" is held exactly by the resource server.
	Leeway time.Duration
	// MaxAge is how long a fetched JWKS is used before it is fetched again
	// (default 1 h); a failed refresh keeps the old keys.
	MaxAge time.Duration
	// MinRefetchInterval bounds refetches triggered by unknown key ids, so
	// a stream of forged kids cannot make the verifier hammer the
	// authorization server (default 1 min).
	MinRefetchInterval time.Duration
	// Client fetches the JWKS (default: a client with a 10 s timeout).
	Client *http.Client
	// Fallback verifies tokens that are not JWTs (nil: they are invalid).
	Fallback auth.TokenVerifier
	// Now is the clock (default time.Now).
	Now func() time.Time
}

// Verifier is an auth.TokenVerifier for JWT access tokens.
type Verifier struct {
	cfg Config

	mu        sync.Mutex
	keys      *jose.JSONWebKeySet
	fetched   time.Time // last successful fetch
	attempted time.Time // last fetch attempt
	fetches   int
}

// New checks cfg and returns its Verifier. Keys are fetched on first use.
func New(cfg Config) (*Verifier, error) {
	if cfg.Issuer == "" {
		return nil, errors.New("jwtverify: Config.Issuer is required")
	}
	if cfg.JWKSURL == "" {
		return nil, errors.New("jwtverify: Config.JWKSURL is required")
	}
	if len(cfg.Algorithms) == 0 {
		cfg.Algorithms = []jose.SignatureAlgorithm{jose.RS256, jose.PS256, jose.ES256, jose.ES384, jose.EdDSA}
	}
	if cfg.Leeway == 0 {
		cfg.Leeway = time.Minute
	}
	if cfg.MaxAge <= 0 {
		cfg.MaxAge = time.Hour
	}
	if cfg.MinRefetchInterval <= 0 {
		cfg.MinRefetchInterval = time.Minute
	}
	if cfg.Client == nil {
		cfg.Client = &http.Client{Timeout: 10 * time.Second}
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	return &Verifier{cfg: cfg}, nil
}

// Fetches returns how many JWKS fetches were attempted (for tests and
// metrics).
func (v *Verifier) Fetches() int {
	v.mu.Lock()
	defer v.mu.Unlock()
	return v.fetches
}

// claims are the access-token claims read beyond the registered ones.
type claims struct {
	Scope    string   `json:"scope"`
	Scp      []string `json:"scp"`
	ClientID string   `json:"client_id"`
	Azp      string   `json:"azp"`
}

// Verify implements auth.TokenVerifier.
func (v *Verifier) Verify(ctx context.Context, token string) (*auth.Identity, error) {
	if strings.Count(token, ".") != 2 {
		if v.cfg.Fallback != nil {
			return v.cfg.Fallback.Verify(ctx, token)
		}
		return nil, fmt.Errorf("%w: not a JWT", auth.ErrInvalidToken)
	}
	tok, err := jwt.ParseSigned(token, v.cfg.Algorithms)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", auth.ErrInvalidToken, err)
	}
	if len(tok.Headers) != 1 {
		return nil, fmt.Errorf("%w: %d signatures, want one", auth.ErrInvalidToken, len(tok.Headers))
	}
	hdr := tok.Headers[0]
	keys, err := v.keysFor(ctx, hdr.KeyID)
	if err != nil {
		return nil, err
	}
	var std jwt.Claims
	var extra claims
	verified := false
	for _, k := range keys {
		if k.Algorithm != "" && k.Algorithm != hdr.Algorithm {
			continue
		}
		if k.Use != "" && k.Use != "sig" {
			continue
		}
		if tok.Claims(k.Key, &std, &extra) == nil {
			verified = true
			break
		}
	}
	if !verified {
		return nil, fmt.Errorf("%w: signature does not verify with any key of the issuer (kid %q)", auth.ErrInvalidToken, hdr.KeyID)
	}
	now := v.cfg.Now()
	exp := jwt.Expected{Issuer: v.cfg.Issuer, Time: now}
	if v.cfg.Audience != "" {
		exp.AnyAudience = jwt.Audience{v.cfg.Audience}
	}
	if err := std.ValidateWithLeeway(exp, v.cfg.Leeway); err != nil {
		return nil, fmt.Errorf("%w: %v", auth.ErrInvalidToken, err)
	}
	if std.Expiry == nil {
		return nil, fmt.Errorf("%w: no exp claim (RFC 9068 requires one)", auth.ErrInvalidToken)
	}
	if !now.Before(std.Expiry.Time()) {
		return nil, fmt.Errorf("%w: expired", auth.ErrInvalidToken)
	}
	scopes := strings.Fields(extra.Scope)
	if len(scopes) == 0 {
		scopes = extra.Scp
	}
	client := extra.ClientID
	if client == "" {
		client = extra.Azp
	}
	return &auth.Identity{Subject: std.Subject, Issuer: std.Issuer, ClientID: client, Scopes: scopes,
		Audience: []string(std.Audience), Expiry: std.Expiry.Time()}, nil
}

// keysFor returns the cached keys with kid (all of them for a token
// without one), fetching the JWKS when the cache is empty or old, or when
// kid is unknown and the last attempt is at least MinRefetchInterval ago.
func (v *Verifier) keysFor(ctx context.Context, kid string) ([]jose.JSONWebKey, error) {
	v.mu.Lock()
	defer v.mu.Unlock() // fetches are serialized: one at a time, the rest reuse its result
	now := v.cfg.Now()
	stale := v.keys == nil || now.Sub(v.fetched) >= v.cfg.MaxAge
	if stale && now.Sub(v.attempted) >= v.cfg.MinRefetchInterval/10 {
		v.fetchLocked(ctx, now)
	}
	if v.keys == nil {
		return nil, fmt.Errorf("%w: no JWKS from %s", auth.ErrVerifierUnavailable, v.cfg.JWKSURL)
	}
	if kid == "" {
		return v.keys.Keys, nil
	}
	if ks := v.keys.Key(kid); len(ks) > 0 {
		return ks, nil
	}
	if now.Sub(v.attempted) >= v.cfg.MinRefetchInterval {
		v.fetchLocked(ctx, now) // rotation: the issuer may have a new key
		if ks := v.keys.Key(kid); len(ks) > 0 {
			return ks, nil
		}
	}
	return nil, fmt.Errorf("%w: unknown key id %q", auth.ErrInvalidToken, kid)
}

func (v *Verifier) fetchLocked(ctx context.Context, now time.Time) {
	v.attempted = now
	v.fetches++
	ks, err := v.fetch(ctx)
	if err != nil {
		return // keep the old keys; the caller reports what is missing
	}
	v.keys, v.fetched = ks, now
}

func (v *Verifier) fetch(ctx context.Context) (*jose.JSONWebKeySet, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, v.cfg.JWKSURL, nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Accept", "application/json, application/jwk-set+json")
	resp, err := v.cfg.Client.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("jwks: %s", resp.Status)
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if err != nil {
		return nil, err
	}
	var ks jose.JSONWebKeySet
	if err := json.Unmarshal(body, &ks); err != nil {
		return nil, fmt.Errorf("jwks: %w", err)
	}
	return &ks, nil
}
