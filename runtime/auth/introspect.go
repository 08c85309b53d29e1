package auth

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"
)

// IntrospectionVerifier is a TokenVerifier that asks the authorization
// server about each token (OAuth 2.0 Token Introspection, RFC 7662). It
// suits opaque tokens and servers that must see revocations at once; it
// costs a round trip per request (wrap it in a cache if that matters).
type IntrospectionVerifier struct {
	// Endpoint is the introspection endpoint URL. Required.
	Endpoint string
	// ClientID and ClientSecret authenticate the resource server to the
	// endpoint (HTTP Basic, RFC 7662 section 2.1), when set.
	ClientID, ClientSecret string
	// Issuer, when set, is required of the response's "iss" (and is the
	// Identity's Issuer when the response has none).
	Issuer string
	// Client is the HTTP client (default: one with a 10 s timeout).
	Client *http.Client
}

// introspection is the RFC 7662 section 2.2 response.
type introspection struct {
	Active    bool            `json:"active"`
	Scope     string          `json:"scope"`
	ClientID  string          `json:"client_id"`
	Subject   string          `json:"sub"`
	Issuer    string          `json:"iss"`
	Audience  json.RawMessage `json:"aud"`
	Expiry    json.Number     `json:"exp"`
	TokenType string          `json:"token_type"`
}

var defaultIntrospectionClient = &http.Client{Timeout: 10 * time.Second}

// Verify implements TokenVerifier.
func (v *IntrospectionVerifier) Verify(ctx context.Context, token string) (*Identity, error) {
	form := url.Values{"token": {token}, "token_type_hint": {"access_token"}}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, v.Endpoint, strings.NewReader(form.Encode()))
	if err != nil {
		return nil, fmt.Errorf("%w: introspection endpoint %q: %v", ErrVerifierUnavailable, v.Endpoint, err)
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Accept", "application/json")
	if v.ClientID != "" {
		req.SetBasicAuth(url.QueryEscape(v.ClientID), url.QueryEscape(v.ClientSecret))
	}
	c := v.Client
	if c == nil {
		c = defaultIntrospectionClient
	}
	resp, err := c.Do(req)
	if err != nil {
		return nil, fmt.Errorf("%w: introspection: %v", ErrVerifierUnavailable, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if err != nil {
		return nil, fmt.Errorf("%w: introspection: reading the response: %v", ErrVerifierUnavailable, err)
	}
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("%w: introspection endpoint answered %s", ErrVerifierUnavailable, resp.Status)
	}
	return v.identity(body)
}

func (v *IntrospectionVerifier) identity(body []byte) (*Identity, error) {
	var in introspection
	dec := json.NewDecoder(strings.NewReader(string(body)))
	dec.UseNumber()
	if err := dec.Decode(&in); err != nil {
		return nil, fmt.Errorf("%w: introspection response is not JSON: %v", ErrVerifierUnavailable, err)
	}
	if !in.Active {
		return nil, fmt.Errorf("%w: introspection says the token is not active", ErrInvalidToken)
	}
	if in.TokenType != "" && !strings.EqualFold(in.TokenType, "Bearer") && !strings.EqualFold(in.TokenType, "access_token") {
		return nil, fmt.Errorf("%w: token_type %q is not an access token", ErrInvalidToken, in.TokenType)
	}
	if v.Issuer != "" && in.Issuer != "" && in.Issuer != v.Issuer {
		return nil, fmt.Errorf("%w: issuer %q is not %q", ErrInvalidToken, in.Issuer, v.Issuer)
	}
	if in.Issuer == "" {
		in.Issuer = v.Issuer
	}
	aud, err := ParseAudience(in.Audience)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrInvalidToken, err)
	}
	id := &Identity{Subject: in.Subject, Issuer: in.Issuer, ClientID: in.ClientID, Scopes: strings.Fields(in.Scope), Audience: aud}
	if in.Expiry != "" {
		sec, err := in.Expiry.Float64()
		if err != nil {
			return nil, fmt.Errorf("%w: exp %q is not a number", ErrInvalidToken, in.Expiry)
		}
		id.Expiry = time.Unix(int64(sec), 0)
	}
	return id, nil
}

// ParseAudience decodes an "aud" claim: a string or an array of strings
// (RFC 7519 section 4.1.3, RFC 7662 section 2.2); absent is none.
func ParseAudience(raw json.RawMessage) ([]string, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return nil, nil
	}
	var one string
	if json.Unmarshal(raw, &one) == nil {
		return []string{one}, nil
	}
	var many []string
	if err := json.Unmarshal(raw, &many); err != nil {
		return nil, fmt.Errorf("aud is neither a string nor an array of strings")
	}
	return many, nil
}
