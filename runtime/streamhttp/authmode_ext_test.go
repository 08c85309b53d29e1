package streamhttp_test

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"time"

	"github.com/mcpgen/mcpgen/runtime/auth"
	"github.com/mcpgen/mcpgen/runtime/streamhttp"
)

// The auth mode of the hardening tests (authmode_test.go): the fixture's
// Handler behind runtime/auth's ResourceServer (Middleware in front,
// Authorize and SessionOwner in its Options), with a verifier that knows
// one token, whose identity has the audience and scope the server needs.
func init() {
	streamhttp.SetTestAuth(func(resource string, opts *streamhttp.Options) streamhttp.AuthFront {
		const token = "hardening-token"
		verifier := auth.VerifierFunc(func(ctx context.Context, tok string) (*auth.Identity, error) {
			if tok != token {
				return nil, auth.ErrInvalidToken
			}
			return &auth.Identity{Subject: "hardening", Issuer: "https://as.test", Scopes: []string{"mcp"},
				Audience: []string{resource}, Expiry: time.Now().Add(time.Hour)}, nil
		})
		rs, err := auth.New(auth.Config{Resource: resource, AuthorizationServers: []string{"https://as.test"},
			Verifier: verifier, Scopes: []string{"mcp"},
			Logger: slog.New(slog.NewTextHandler(io.Discard, &slog.HandlerOptions{Level: slog.LevelError}))})
		if err != nil {
			panic(err) // the test's own configuration
		}
		rs.Apply(opts)
		return streamhttp.AuthFront{Wrap: func(h http.Handler) http.Handler {
			mux := http.NewServeMux()
			rs.Mount(mux, h)
			return mux
		}, Token: token}
	})
}
