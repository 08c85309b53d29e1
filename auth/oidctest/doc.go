// Package oidctest runs auth/oauthclient against a real OpenID Provider:
// zitadel/oidc's op (v3, the example storage and its login UI), started
// in-process, in front of an mcpgen Streamable HTTP server whose bearer
// check is local to the test (JWT access tokens verified with the op's
// JWKS through zitadel's own verifier). It is a module of its own because
// zitadel/oidc v3.52 needs go 1.26, above the go directive of the main
// module and of auth/oauthclient.
//
// TestExampleAuthFlow runs the example programs as processes against the
// same op: examples/http-server --auth (runtime/auth, introspecting at the
// op as a confidential client) and auth/oauthclient/examples/http-client-auth
// (sign-in with PKCE, step-up), the test playing the user's browser.
package oidctest
