// Package auth makes a Streamable HTTP MCP server an OAuth 2.1 resource
// server, as the authorization pages of MCP 2025-06-18 onward require:
//
//   - Protected Resource Metadata (RFC 9728) at both well-known URIs the
//     spec names: path-based (/.well-known/oauth-protected-resource/mcp for
//     an endpoint at /mcp) and root (/.well-known/oauth-protected-resource);
//   - bearer tokens (RFC 6750, Authorization header only: a token in the
//     query string is refused) checked by a pluggable TokenVerifier;
//   - 401 with WWW-Authenticate: Bearer resource_metadata="…", scope="…",
//     error="invalid_token" for a missing, invalid or expired token;
//   - the token's audience checked against the canonical server URI
//     (RFC 8707): a token issued for another resource is invalid here;
//   - scopes required for every request, per method and per tool, with 403
//     error="insufficient_scope" naming the scopes to step up to;
//   - the verified Identity in the handler's ctx (IdentityFrom), through
//     legacy sessions and tasks; legacy sessions and tasks bound to the
//     identity that created them (SessionOwner, TaskOwner).
//
// Token checks happen in Middleware, before the body is read, so a request
// without a valid token costs nothing but the verification; scope checks
// happen in Authorize, which streamhttp calls once the message is decoded
// and before any session, Conn or task exists (Options.Authorize).
//
// Verifying JWTs against a JWKS, or asking an introspection endpoint
// (RFC 7662), is the job of a TokenVerifier; the separate module
// github.com/mcpgen/mcpgen/auth/jwtverify ships both, so that this package
// stays standard-library only. IntrospectionVerifier here is a minimal
// standard-library RFC 7662 client for servers that need no JWTs.
package auth

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/mcpgen/mcpgen/runtime/streamhttp"
)

// Identity is what a TokenVerifier learned from a valid token.
type Identity struct {
	// Subject is the resource owner (the "sub" claim).
	Subject string
	// Issuer is the authorization server that issued the token ("iss").
	Issuer string
	// ClientID is the OAuth client the token was issued to, when known.
	ClientID string
	// Scopes are the scopes granted.
	Scopes []string
	// Audience lists the resources the token was issued for ("aud"); the
	// middleware requires the canonical server URI among them.
	Audience []string
	// Expiry is when the token expires; zero means the verifier vouches
	// for it without one.
	Expiry time.Time
	// Claims holds further claims a verifier chose to keep.
	Claims map[string]any
}

// HasScope reports whether scope was granted.
func (id *Identity) HasScope(scope string) bool { return slices.Contains(id.Scopes, scope) }

// TokenVerifier checks a bearer token and says whose it is. A token that is
// malformed, unknown, revoked, badly signed or expired is an error wrapping
// ErrInvalidToken (401); an error wrapping ErrVerifierUnavailable (the
// JWKS or introspection endpoint cannot be reached) is answered 503 so that
// clients do not discard a good token; any other error is treated as an
// invalid token.
type TokenVerifier interface {
	Verify(ctx context.Context, token string) (*Identity, error)
}

// VerifierFunc adapts a function to TokenVerifier.
type VerifierFunc func(ctx context.Context, token string) (*Identity, error)

// Verify implements TokenVerifier.
func (f VerifierFunc) Verify(ctx context.Context, token string) (*Identity, error) {
	return f(ctx, token)
}

var (
	// ErrInvalidToken is wrapped by verifier errors for tokens that are not
	// valid here.
	ErrInvalidToken = errors.New("auth: invalid token")
	// ErrVerifierUnavailable is wrapped by verifier errors that say
	// nothing about the token: the verifier could not do its work.
	ErrVerifierUnavailable = errors.New("auth: token verifier unavailable")
)

type identityKey struct{}

// WithIdentity returns ctx carrying id.
func WithIdentity(ctx context.Context, id *Identity) context.Context {
	return context.WithValue(ctx, identityKey{}, id)
}

// IdentityFrom returns the verified identity of the request ctx belongs to:
// an HTTP handler's request ctx after Middleware, and an MCP handler's ctx
// (the Conn's handlers derive from the request's values) and a task's work.
// In a legacy session a handler sees the identity of the POST that carried
// its request (a refreshed or stepped-up token's), for as long as it runs,
// after that POST too, and so does the work of a task the request created
// (streamhttp.RequestValues); every request of the session matched the
// session's initialize in issuer and subject.
func IdentityFrom(ctx context.Context) (*Identity, bool) {
	if rv, ok := streamhttp.RequestValues(ctx); ok {
		// A legacy session's request: the identity of its own POST (a
		// refreshed or stepped-up token), not the initialize's.
		if id, ok := rv.Value(identityKey{}).(*Identity); ok && id != nil {
			return id, true
		}
	}
	id, ok := ctx.Value(identityKey{}).(*Identity)
	return id, ok && id != nil
}

// Owner is the binding key of an identity: its issuer and subject (or
// client id, for a token without a subject). Sessions and tasks are bound
// to it, so a refreshed or stepped-up token of the same user keeps them.
func (id *Identity) Owner() string {
	if id.Subject != "" {
		return id.Issuer + "\x00sub\x00" + id.Subject
	}
	return id.Issuer + "\x00client\x00" + id.ClientID
}

// TaskOwner is a tasks.Config.Owner: the requestor of a task is the
// verified identity of the request that created it.
func TaskOwner(ctx context.Context) (string, bool) {
	id, ok := IdentityFrom(ctx)
	if !ok {
		return "", false
	}
	return id.Owner(), true
}

// CanonicalResource returns the canonical form of a server URI (RFC 8707
// section 2, as the MCP pages define it): absolute, no fragment, scheme and
// host in lower case, no trailing slash unless the path is only "/" (which
// is dropped too: https://mcp.example.com/ is https://mcp.example.com).
func CanonicalResource(uri string) (string, error) {
	u, err := url.Parse(uri)
	if err != nil {
		return "", fmt.Errorf("auth: resource %q: %w", uri, err)
	}
	if u.Scheme == "" || u.Host == "" {
		return "", fmt.Errorf("auth: resource %q: not an absolute URI (scheme and host needed)", uri)
	}
	if u.Fragment != "" || strings.Contains(uri, "#") {
		return "", fmt.Errorf("auth: resource %q: a resource URI has no fragment", uri)
	}
	u.Scheme = strings.ToLower(u.Scheme)
	u.Host = strings.ToLower(u.Host)
	u.Path = strings.TrimSuffix(u.Path, "/")
	u.RawPath = ""
	return u.String(), nil
}

// bearerToken extracts the token of an Authorization: Bearer header. ok is
// false when there is none; err says what is wrong with a malformed one.
func bearerToken(r *http.Request) (tok string, ok bool, err error) {
	hs := r.Header.Values("Authorization")
	if len(hs) == 0 {
		return "", false, nil
	}
	if len(hs) > 1 {
		return "", true, errors.New("more than one Authorization header")
	}
	scheme, tok, found := strings.Cut(strings.TrimSpace(hs[0]), " ")
	if !found || !strings.EqualFold(scheme, "Bearer") {
		return "", false, nil // another scheme: as if no bearer token came
	}
	tok = strings.TrimSpace(tok)
	if tok == "" || strings.ContainsAny(tok, " \t") {
		return "", true, errors.New("malformed bearer token")
	}
	return tok, true, nil
}
