package oauthclient

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
)

// Challenge is what a WWW-Authenticate: Bearer (or DPoP, RFC 9449
// section 7.1) header of a 401 or 403 says (RFC 6750 section 3, RFC 9728
// section 5.1).
type Challenge struct {
	// ResourceMetadata is the resource_metadata URL ("" if absent).
	ResourceMetadata string
	// Scope is the space-separated scope the server asks for ("" if absent).
	Scope string
	// Error is the error code (e.g. "invalid_token", "insufficient_scope").
	Error string
}

// ParseChallenge reads the Bearer or DPoP challenge of WWW-Authenticate
// header values (the first one); ok is false when there is none.
// Parameters of other schemes are ignored.
func ParseChallenge(values []string) (c Challenge, ok bool) {
	for _, v := range values {
		rest := strings.TrimSpace(v)
		for rest != "" {
			scheme, after, _ := strings.Cut(rest, " ")
			params, next := parseAuthParams(after)
			if strings.EqualFold(scheme, "Bearer") || strings.EqualFold(scheme, "DPoP") {
				return Challenge{ResourceMetadata: params["resource_metadata"], Scope: params["scope"], Error: params["error"]}, true
			}
			rest = strings.TrimSpace(next)
		}
	}
	return Challenge{}, false
}

// parseAuthParams reads comma-separated name=value or name="quoted" pairs
// up to the next challenge (a token not followed by '='); it returns the
// pairs and the text of the next challenge.
func parseAuthParams(s string) (map[string]string, string) {
	params := map[string]string{}
	for {
		s = strings.TrimLeft(s, " \t,")
		eq := strings.IndexByte(s, '=')
		sp := strings.IndexAny(s, " \t")
		if eq <= 0 || (sp >= 0 && sp < eq) {
			// A token without '=': the next challenge's scheme.
			return params, s
		}
		name := strings.ToLower(strings.TrimSpace(s[:eq]))
		s = s[eq+1:]
		var val string
		if strings.HasPrefix(s, `"`) {
			var b strings.Builder
			i := 1
			for ; i < len(s) && s[i] != '"'; i++ {
				if s[i] == '\\' && i+1 < len(s) {
					i++
				}
				b.WriteByte(s[i])
			}
			val, s = b.String(), s[min(i+1, len(s)):]
		} else {
			end := strings.IndexAny(s, ", \t")
			if end < 0 {
				end = len(s)
			}
			val, s = s[:end], s[end:]
		}
		params[name] = val
	}
}

// ResourceMetadata is Protected Resource Metadata (RFC 9728).
type ResourceMetadata struct {
	Resource             string   `json:"resource"`
	AuthorizationServers []string `json:"authorization_servers"`
	ScopesSupported      []string `json:"scopes_supported"`
}

// ServerMetadata is authorization server metadata (RFC 8414; OpenID
// Connect discovery documents carry the same members).
type ServerMetadata struct {
	Issuer                            string   `json:"issuer"`
	AuthorizationEndpoint             string   `json:"authorization_endpoint"`
	TokenEndpoint                     string   `json:"token_endpoint"`
	RegistrationEndpoint              string   `json:"registration_endpoint"`
	ScopesSupported                   []string `json:"scopes_supported"`
	GrantTypesSupported               []string `json:"grant_types_supported"`
	CodeChallengeMethodsSupported     []string `json:"code_challenge_methods_supported"`
	TokenEndpointAuthMethodsSupported []string `json:"token_endpoint_auth_methods_supported"`
	// ClientIDMetadataDocumentSupported: the server accepts an HTTPS URL
	// as client_id (Client ID Metadata Documents, 2025-11-25).
	ClientIDMetadataDocumentSupported bool `json:"client_id_metadata_document_supported"`
	// IssParameterSupported: the server puts iss in authorization
	// responses (RFC 9207).
	IssParameterSupported bool `json:"authorization_response_iss_parameter_supported"`
	// DPoPSigningAlgValuesSupported: the DPoP proof algorithms the server
	// takes (RFC 9449 section 5.1); Config.DPoP uses DPoP with a server
	// that lists ES256.
	DPoPSigningAlgValuesSupported []string `json:"dpop_signing_alg_values_supported"`
}

// errNotFound marks a metadata location that does not exist (any non-200
// answer), so that discovery tries the next one.
var errNotFound = errors.New("not found")

// getJSON fetches url into v: errNotFound for a non-200 answer.
func getJSON(ctx context.Context, hc *http.Client, u string, v any) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return err
	}
	req.Header.Set("Accept", "application/json")
	resp, err := hc.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		io.Copy(io.Discard, io.LimitReader(resp.Body, 1<<16))
		return fmt.Errorf("GET %s: %s: %w", u, resp.Status, errNotFound)
	}
	if err := json.NewDecoder(io.LimitReader(resp.Body, 1<<20)).Decode(v); err != nil {
		return fmt.Errorf("GET %s: %w", u, err)
	}
	return nil
}

// ResourceMetadataURLs are the places RFC 9728 and the MCP authorization
// page name for a server URL's Protected Resource Metadata when the
// challenge carries no resource_metadata: the path-based well-known URI
// first, then the root one.
func ResourceMetadataURLs(serverURL string) ([]string, error) {
	u, err := url.Parse(serverURL)
	if err != nil {
		return nil, fmt.Errorf("server URL %q: %w", serverURL, err)
	}
	origin := u.Scheme + "://" + u.Host
	var urls []string
	if p := strings.TrimSuffix(u.EscapedPath(), "/"); p != "" {
		urls = append(urls, origin+"/.well-known/oauth-protected-resource"+p)
	}
	return append(urls, origin+"/.well-known/oauth-protected-resource"), nil
}

// ServerMetadataURLs are the places the MCP authorization page (2025-11-25
// and 2026-07-28) names for an issuer's metadata, in its order: for an
// issuer with a path, RFC 8414 path insertion, OpenID Connect path
// insertion, then OpenID Connect path appending; without a path, RFC 8414
// then OpenID Connect.
func ServerMetadataURLs(issuer string) ([]string, error) {
	u, err := url.Parse(issuer)
	if err != nil || u.Host == "" {
		return nil, fmt.Errorf("issuer %q is not an absolute URL", issuer)
	}
	origin := u.Scheme + "://" + u.Host
	p := strings.TrimSuffix(u.EscapedPath(), "/")
	if p == "" {
		return []string{origin + "/.well-known/oauth-authorization-server", origin + "/.well-known/openid-configuration"}, nil
	}
	return []string{
		origin + "/.well-known/oauth-authorization-server" + p,
		origin + "/.well-known/openid-configuration" + p,
		origin + p + "/.well-known/openid-configuration",
	}, nil
}

// DiscoverResource fetches the Protected Resource Metadata of serverURL:
// from the challenge's resource_metadata if given, else from the
// well-known URIs in order. It checks that the metadata's resource is the
// server's (same origin, and the server URL's path at or under it): a
// client must not hand a token meant for one resource to another.
func DiscoverResource(ctx context.Context, hc *http.Client, serverURL string, ch Challenge) (*ResourceMetadata, error) {
	urls := []string{ch.ResourceMetadata}
	if ch.ResourceMetadata == "" {
		var err error
		if urls, err = ResourceMetadataURLs(serverURL); err != nil {
			return nil, err
		}
	}
	var errs []error
	for _, u := range urls {
		var md ResourceMetadata
		err := getJSON(ctx, hc, u, &md)
		if errors.Is(err, errNotFound) {
			errs = append(errs, err)
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("protected resource metadata: %w", err)
		}
		if err := resourceMatches(md.Resource, serverURL); err != nil {
			return nil, fmt.Errorf("protected resource metadata at %s: %w", u, err)
		}
		return &md, nil
	}
	return nil, fmt.Errorf("protected resource metadata: %w", errors.Join(errs...))
}

// resourceMatches checks that resource names the server at serverURL.
func resourceMatches(resource, serverURL string) error {
	r, err := url.Parse(resource)
	if err != nil || r.Host == "" {
		return fmt.Errorf("resource %q is not an absolute URL", resource)
	}
	s, err := url.Parse(serverURL)
	if err != nil {
		return err
	}
	if !strings.EqualFold(r.Scheme, s.Scheme) || !strings.EqualFold(r.Host, s.Host) {
		return fmt.Errorf("resource %q is not the server %q", resource, serverURL)
	}
	rp, sp := strings.TrimSuffix(r.Path, "/"), strings.TrimSuffix(s.Path, "/")
	if rp != "" && sp != rp && !strings.HasPrefix(sp, rp+"/") {
		return fmt.Errorf("resource %q does not cover the server %q", resource, serverURL)
	}
	return nil
}

// DiscoverServer fetches the metadata of the authorization server issuer
// from the locations ServerMetadataURLs names, and checks that the
// document's issuer is exactly issuer (RFC 8414 section 3.3; 2026-07-28
// makes it a MUST for MCP clients): metadata naming another issuer is not
// used.
func DiscoverServer(ctx context.Context, hc *http.Client, issuer string) (*ServerMetadata, error) {
	urls, err := ServerMetadataURLs(issuer)
	if err != nil {
		return nil, err
	}
	var errs []error
	for _, u := range urls {
		var md ServerMetadata
		err := getJSON(ctx, hc, u, &md)
		if errors.Is(err, errNotFound) {
			errs = append(errs, err)
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("authorization server metadata: %w", err)
		}
		if md.Issuer != issuer {
			return nil, fmt.Errorf("authorization server metadata at %s names issuer %q, not %q", u, md.Issuer, issuer)
		}
		if md.AuthorizationEndpoint == "" && md.TokenEndpoint == "" {
			return nil, fmt.Errorf("authorization server metadata at %s has no endpoints", u)
		}
		return &md, nil
	}
	return nil, fmt.Errorf("authorization server metadata of %s: %w", issuer, errors.Join(errs...))
}
