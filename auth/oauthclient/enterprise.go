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

	"golang.org/x/oauth2"
	"golang.org/x/oauth2/clientcredentials"
)

// EnterpriseIdP is the enterprise identity provider of Enterprise-Managed
// Authorization (SEP-990, the MCP extension
// io.modelcontextprotocol/enterprise-managed-authorization): the user
// signed in there once (single sign-on), and the client trades that
// sign-in for MCP access without another authorization page. The user's
// ID token is exchanged at the IdP (RFC 8693 token exchange) for an
// Identity Assertion JWT Authorization Grant (ID-JAG) naming the MCP
// server's authorization server (audience) and resource; the JWT bearer
// grant (RFC 7523) at the authorization server turns it into the access
// token, the client authenticating there with Config.ClientID and
// ClientSecret.
type EnterpriseIdP struct {
	// TokenEndpoint is the IdP's token endpoint. Required.
	TokenEndpoint string
	// ClientID and ClientSecret are the client's registration at the IdP
	// (HTTP Basic when the secret is set; client_id in the form for a
	// public client; nothing when both are empty).
	ClientID, ClientSecret string
	// IDToken returns the user's ID token from the IdP (the subject token).
	// Required.
	IDToken func(ctx context.Context) (string, error)
}

const (
	grantTokenExchange = "urn:ietf:params:oauth:grant-type:token-exchange"
	grantJWTBearer     = "urn:ietf:params:oauth:grant-type:jwt-bearer"
	tokenTypeIDToken   = "urn:ietf:params:oauth:token-type:id_token"
	tokenTypeIDJAG     = "urn:ietf:params:oauth:token-type:id-jag"
)

// enterpriseSource obtains each access token with a fresh ID-JAG.
type enterpriseSource struct {
	idp      *EnterpriseIdP
	cc       *clientcredentials.Config // the authorization server's token endpoint and the client's credentials there
	issuer   string
	resource string
	hc       *http.Client
	ctx      context.Context
}

// Token implements oauth2.TokenSource.
func (s *enterpriseSource) Token() (*oauth2.Token, error) {
	jag, err := s.idJAG()
	if err != nil {
		return nil, err
	}
	cc := *s.cc
	cc.EndpointParams = url.Values{"grant_type": {grantJWTBearer}, "assertion": {jag}, "resource": {s.resource}}
	return cc.Token(context.WithValue(s.ctx, oauth2.HTTPClient, s.hc))
}

// idJAG exchanges the user's ID token at the IdP for an ID-JAG.
func (s *enterpriseSource) idJAG() (string, error) {
	if s.idp.IDToken == nil || s.idp.TokenEndpoint == "" {
		return "", errors.New("EnterpriseIdP needs TokenEndpoint and IDToken")
	}
	idTok, err := s.idp.IDToken(s.ctx)
	if err != nil {
		return "", fmt.Errorf("ID token: %w", err)
	}
	form := url.Values{"grant_type": {grantTokenExchange}, "subject_token": {idTok}, "subject_token_type": {tokenTypeIDToken},
		"requested_token_type": {tokenTypeIDJAG}, "audience": {s.issuer}, "resource": {s.resource}}
	if len(s.cc.Scopes) > 0 {
		form.Set("scope", strings.Join(s.cc.Scopes, " "))
	}
	if s.idp.ClientID != "" && s.idp.ClientSecret == "" {
		form.Set("client_id", s.idp.ClientID)
	}
	req, err := http.NewRequestWithContext(s.ctx, http.MethodPost, s.idp.TokenEndpoint, strings.NewReader(form.Encode()))
	if err != nil {
		return "", err
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Accept", "application/json")
	if s.idp.ClientSecret != "" {
		req.SetBasicAuth(url.QueryEscape(s.idp.ClientID), url.QueryEscape(s.idp.ClientSecret))
	}
	resp, err := s.hc.Do(req)
	if err != nil {
		return "", fmt.Errorf("token exchange at the IdP: %w", err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	var out struct {
		AccessToken     string `json:"access_token"`
		IssuedTokenType string `json:"issued_token_type"`
		Error           string `json:"error"`
		Description     string `json:"error_description"`
	}
	if err := json.Unmarshal(body, &out); err != nil {
		return "", fmt.Errorf("token exchange at the IdP: %s: not JSON", resp.Status)
	}
	if resp.StatusCode != http.StatusOK || out.Error != "" {
		return "", fmt.Errorf("token exchange at the IdP: %s: %s %s", resp.Status, out.Error, out.Description)
	}
	if out.AccessToken == "" || out.IssuedTokenType != tokenTypeIDJAG {
		return "", fmt.Errorf("token exchange at the IdP: issued %q, not an ID-JAG", out.IssuedTokenType)
	}
	return out.AccessToken, nil
}
