package auth_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"

	"github.com/mcpgen/mcpgen/runtime/auth"
)

// A resource server in front of an MCP endpoint. The verifier is where a
// real one goes (auth.IntrospectionVerifier, or auth/jwtverify for JWTs);
// the endpoint is where a streamhttp handler goes (with rs.Apply on its
// Options for per-method and per-tool scopes). Without a valid bearer
// token the request never reaches it: 401 with a challenge that points to
// the Protected Resource Metadata, which Mount serves too.
func Example() {
	rs, err := auth.New(auth.Config{
		Resource:             "https://mcp.example.com/mcp",
		AuthorizationServers: []string{"https://as.example.com"},
		Verifier: auth.VerifierFunc(func(_ context.Context, token string) (*auth.Identity, error) {
			if token != "good" {
				return nil, auth.ErrInvalidToken
			}
			return &auth.Identity{Subject: "alice", Issuer: "https://as.example.com",
				Audience: []string{"https://mcp.example.com/mcp"}}, nil
		}),
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	mux := http.NewServeMux()
	rs.Mount(mux, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		id, _ := auth.IdentityFrom(r.Context())
		fmt.Fprintf(w, "served %s", id.Subject)
	}))

	for _, token := range []string{"", "bad", "good"} {
		req := httptest.NewRequest("POST", "https://mcp.example.com/mcp", nil)
		if token != "" {
			req.Header.Set("Authorization", "Bearer "+token)
		}
		rec := httptest.NewRecorder()
		mux.ServeHTTP(rec, req)
		fmt.Printf("token %q: %d %s\n", token, rec.Code, rec.Body)
		if c := rec.Header().Get("WWW-Authenticate"); c != "" {
			fmt.Println("  WWW-Authenticate:", c)
		}
	}
	// Output:
	// token "": 401 {"error":"unauthorized","error_description":"a bearer token is required"}
	//   WWW-Authenticate: Bearer resource_metadata="https://mcp.example.com/.well-known/oauth-protected-resource/mcp"
	// token "bad": 401 {"error":"invalid_token","error_description":"the access token is invalid"}
	//   WWW-Authenticate: Bearer resource_metadata="https://mcp.example.com/.well-known/oauth-protected-resource/mcp", error="invalid_token", error_description="the access token is invalid"
	// token "good": 200 served alice
}
