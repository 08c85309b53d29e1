// Package oauthclient makes mcpgen's Streamable HTTP client an OAuth 2.1
// client as the MCP authorization pages (2025-06-18 .. 2026-07-28) describe
// it. It is a separate module so that the main module stays
// standard-library only; it is built on golang.org/x/oauth2 (the Go team's
// OAuth 2 client: PKCE verifiers and S256 challenges, the code exchange,
// token endpoint client authentication in header or body, token expiry,
// and the client credentials grant, each already hardened against real
// servers) and adds what MCP asks beyond plain OAuth: discovery of
// Protected Resource Metadata (RFC 9728) and authorization server metadata
// (RFC 8414, then OpenID Connect discovery, in the order the spec gives),
// client registration (pre-registered, Client ID Metadata Documents, or
// dynamic registration, RFC 7591), the resource parameter (RFC 8707) in
// authorization, token and refresh requests, scope selection and step-up
// on 403 insufficient_scope with a retry limit, and the authorization
// response's iss check (RFC 9207, 2026-07-28). Headless clients use the
// client credentials grant (secret or private_key_jwt, RFC 7523), the JWT
// bearer grant with a workload identity token (SEP-1933), or a token
// source of their own. With Config.DPoP, tokens are bound to the client's
// key where the authorization server advertises it (RFC 9449, the MCP
// DPoP extension SEP-1932): proofs on token and MCP requests, the DPoP
// scheme, server nonces honoured. With Config.EnterpriseIdP, tokens come
// from Enterprise-Managed Authorization (SEP-990): the user's ID token is
// exchanged at the enterprise IdP for an ID-JAG (RFC 8693), which the JWT
// bearer grant turns into the access token.
//
// The seam is plain net/http: Transport is an http.RoundTripper that adds
// the bearer token and reacts to 401 and 403 by authorizing and retrying
// the request once. Give it to streamhttp.ClientOptions.HTTPClient:
//
//	tr := oauthclient.NewTransport(oauthclient.Config{...})
//	ct, err := streamhttp.Dial(ctx, url, streamhttp.ClientOptions{Revisions: revisions, HTTPClient: &http.Client{Transport: tr}})
//
// No change to the main module is needed for it.
package oauthclient
