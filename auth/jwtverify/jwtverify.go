// Package jwtverify verifies JWT access tokens (RFC 9068 style) for the
// MCP resource server of github.com/mcpgen/mcpgen/runtime/auth: signatures
// against the authorization server's JWKS, fetched and cached, refetched
// when a token names a key id the cache lacks (key rotation) at most once
// per Config.MinRefetchInterval; issuer, audience, expiry and not-before;
// scopes from "scope" (space-separated) or "scp" (array). Tokens that are
// not JWTs go to Config.Fallback, for example an auth.IntrospectionVerifier
// (RFC 7662), so one verifier serves both kinds. No lock is held while the
// JWKS is fetched, and one fetch runs at a time: a slow authorization
// server delays only the verifications that need its answer (no keys yet,
// an unknown key id), never those of a cached key.
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
	inflight  *fetchCall // the fetch under way, if any
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
// without one). The JWKS is fetched when the cache is empty, refreshed when
// it is older than MaxAge, and refetched when kid is unknown and the last
// attempt is at least MinRefetchInterval ago (rotation).
//
// The lock is never held across a fetch, and at most one fetch runs at a
// time (single flight): a verification whose key is cached proceeds while a
// fetch is under way (a stale cache is served while it is refreshed in the
// background), and only those that need the fetch's result (no keys yet,
// an unknown kid) wait for it, each until its own ctx ends.
func (v *Verifier) keysFor(ctx context.Context, kid string) ([]jose.JSONWebKey, error) {
	for waited := false; ; waited = true {
		v.mu.Lock()
		now := v.cfg.Now()
		var found []jose.JSONWebKey
		if v.keys != nil {
			if kid == "" {
				found = v.keys.Keys
			} else {
				found = v.keys.Key(kid)
			}
		}
		stale := v.keys == nil || now.Sub(v.fetched) >= v.cfg.MaxAge
		if len(found) > 0 {
			if stale && now.Sub(v.attempted) >= v.cfg.MinRefetchInterval/10 {
				v.startFetchLocked(ctx, now) // refresh in the background
			}
			v.mu.Unlock()
			return found, nil
		}
		var call *fetchCall
		switch {
		case waited:
			// One fetch (ours or one we joined) per verification.
		case v.inflight != nil:
			call = v.inflight
		case stale && now.Sub(v.attempted) >= v.cfg.MinRefetchInterval/10,
			now.Sub(v.attempted) >= v.cfg.MinRefetchInterval:
			call = v.startFetchLocked(ctx, now)
		}
		noKeys := v.keys == nil
		v.mu.Unlock()
		if call == nil {
			if noKeys {
				return nil, fmt.Errorf("%w: no JWKS from %s", auth.ErrVerifierUnavailable, v.cfg.JWKSURL)
			}
			return nil, fmt.Errorf("%w: unknown key id %q", auth.ErrInvalidToken, kid)
		}
		select {
		case <-call.done:
		case <-ctx.Done():
			return nil, fmt.Errorf("%w: waiting for the JWKS: %v", auth.ErrVerifierUnavailable, context.Cause(ctx))
		}
	}
}

// fetchCall is a JWKS fetch under way; done is closed when its result (if
// any) is in the cache.
type fetchCall struct{ done chan struct{} }

// startFetchLocked starts a fetch of the JWKS unless one is under way, and
// returns it. The fetch is not bound to the ctx of the verification that
// started it (others may be waiting for it), only to the Client's timeout;
// a failed fetch keeps the old keys.
func (v *Verifier) startFetchLocked(ctx context.Context, now time.Time) *fetchCall {
	if v.inflight != nil {
		return v.inflight
	}
	call := &fetchCall{done: make(chan struct{})}
	v.inflight = call
	v.attempted = now
	v.fetches++
	fctx := context.WithoutCancel(ctx)
	go func() {
		defer close(call.done)
		ks, err := v.fetch(fctx)
		v.mu.Lock()
		defer v.mu.Unlock()
		v.inflight = nil
		if err == nil {
			v.keys, v.fetched = ks, now
		}
	}()
	return call
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
