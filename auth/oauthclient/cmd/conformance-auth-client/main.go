// Command conformance-auth-client is the client the official MCP
// conformance suite drives in its authorization scenarios (auth/*): the
// same documented path as examples/conformance-client (streamhttp's client
// transport, the generated Connect, the generated callers), with an
// oauthclient.Transport as its HTTP client's transport. It lives in the
// oauthclient module because the main module stays standard-library only.
//
// The suite runs one command for every scenario, so this one is run as
//
//	conformance-auth-client FALLBACK URL
//
// and execs FALLBACK URL (examples/conformance-client) for every scenario
// that is not auth/*. For auth/* it lists the tools and calls each, and the
// authorization happens on the way: the user agent is played by following
// the authorization endpoint's redirect without a browser (the suite's
// authorization server consents at once). Scenario data comes in
// MCP_CONFORMANCE_CONTEXT: client_id and client_secret of pre-registered
// clients and of the client credentials scenarios, and private_key_pem of
// the private_key_jwt one, valid_jwt of the workload identity one, the
// IdP's token endpoint and the user's ID token of the enterprise-managed
// one. DPoP is on: the auth/dpop* scenarios' authorization server
// advertises it, the others do not.
package main

import (
	"context"
	"crypto"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"os"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/mcpgen/mcpgen/auth/oauthclient"
	mcp20250326 "github.com/mcpgen/mcpgen/generated/mcp20250326"
	mcp20250618 "github.com/mcpgen/mcpgen/generated/mcp20250618"
	mcp20251125 "github.com/mcpgen/mcpgen/generated/mcp20251125"
	mcp "github.com/mcpgen/mcpgen/generated/mcp20260728"
	"github.com/mcpgen/mcpgen/runtime/session"
	"github.com/mcpgen/mcpgen/runtime/streamhttp"
)

// clientIDMetadataURL is the Client ID Metadata Document URL the suite's
// auth/basic-cimd scenario expects as client_id.
const clientIDMetadataURL = "https://conformance-test.local/client-metadata.json"

func main() {
	if len(os.Args) != 3 {
		fmt.Fprintln(os.Stderr, "usage: conformance-auth-client FALLBACK URL")
		os.Exit(2)
	}
	scenario := os.Getenv("MCP_CONFORMANCE_SCENARIO")
	if !strings.HasPrefix(scenario, "auth/") {
		err := syscall.Exec(os.Args[1], []string{os.Args[1], os.Args[2]}, os.Environ())
		fmt.Fprintln(os.Stderr, "conformance-auth-client: exec", os.Args[1], err)
		os.Exit(2)
	}
	if err := run(scenario, os.Args[2]); err != nil {
		fmt.Fprintln(os.Stderr, "conformance-auth-client:", err)
		os.Exit(1)
	}
}

// scenarioContext is the part of MCP_CONFORMANCE_CONTEXT this client uses.
type scenarioContext struct {
	ClientID      string `json:"client_id"`
	ClientSecret  string `json:"client_secret"`
	PrivateKeyPEM string `json:"private_key_pem"` // private_key_jwt (auth/client-credentials-jwt)
	ValidJWT      string `json:"valid_jwt"`       // the workload's identity token (auth/wif-jwt-bearer)
	// The enterprise IdP (auth/enterprise-managed-authorization).
	IdPClientID      string `json:"idp_client_id"`
	IdPIDToken       string `json:"idp_id_token"`
	IdPTokenEndpoint string `json:"idp_token_endpoint"`
}

func run(scenario, serverURL string) error {
	ctx, cancel := context.WithTimeout(context.Background(), 25*time.Second)
	defer cancel()
	var sc scenarioContext
	if c := os.Getenv("MCP_CONFORMANCE_CONTEXT"); c != "" {
		if err := json.Unmarshal([]byte(c), &sc); err != nil {
			return fmt.Errorf("MCP_CONFORMANCE_CONTEXT: %w", err)
		}
	}
	var key crypto.Signer
	if sc.PrivateKeyPEM != "" {
		var err error
		if key, err = oauthclient.ParsePrivateKey([]byte(sc.PrivateKeyPEM)); err != nil {
			return fmt.Errorf("MCP_CONFORMANCE_CONTEXT private_key_pem: %w", err)
		}
	}
	var workload func(context.Context) (string, error)
	if sc.ValidJWT != "" {
		workload = func(context.Context) (string, error) { return sc.ValidJWT, nil }
	}
	var enterprise *oauthclient.EnterpriseIdP
	if sc.IdPTokenEndpoint != "" {
		enterprise = &oauthclient.EnterpriseIdP{TokenEndpoint: sc.IdPTokenEndpoint, ClientID: sc.IdPClientID,
			IDToken: func(context.Context) (string, error) { return sc.IdPIDToken, nil }}
	}
	// The browser: follow nothing, read the redirect back to us.
	agent := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	auth := oauthclient.NewTransport(oauthclient.Config{
		ServerURL:           serverURL,
		RedirectURL:         "http://127.0.0.1:39999/callback",
		ClientIDMetadataURL: clientIDMetadataURL,
		ClientName:          "mcpgen-conformance-auth-client",
		ClientID:            sc.ClientID,
		ClientSecret:        sc.ClientSecret,
		ClientAssertionKey:  key,
		JWTBearerAssertion:  workload,
		ClientCredentials:   strings.HasPrefix(scenario, "auth/client-credentials"),
		// DPoP wherever the authorization server advertises it (the
		// auth/dpop* extension scenarios; the others do not).
		DPoP:          true,
		EnterpriseIdP: enterprise,
		Authorize: func(ctx context.Context, authURL string) (*url.URL, error) {
			req, err := http.NewRequestWithContext(ctx, http.MethodGet, authURL, nil)
			if err != nil {
				return nil, err
			}
			resp, err := agent.Do(req)
			if err != nil {
				return nil, err
			}
			resp.Body.Close()
			loc := resp.Header.Get("Location")
			if loc == "" {
				return nil, fmt.Errorf("authorization endpoint answered %s without a redirect", resp.Status)
			}
			return url.Parse(loc)
		},
	})

	log := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	info := session.Implementation{Name: "mcpgen-conformance-auth-client", Version: "0.2.0"}
	legacy := []session.Revision{mcp20251125.Revision(), mcp20250618.Revision(), mcp20250326.Revision()}
	revisions := append([]session.Revision{mcp.Revision()}, legacy...)
	opts := streamhttp.ClientOptions{Revisions: revisions, ClientInfo: info, Logger: log, HTTPClient: &http.Client{Transport: auth}}
	sessOpts := []session.ClientOption{session.WithClientLegacy(legacy...), session.WithClientLogger(log)}
	if v := os.Getenv("MCP_CONFORMANCE_PROTOCOL_VERSION"); v != "" {
		opts.Era = streamhttp.EraLegacy
		if slices.Contains(streamhttp.Versions(revisions, streamhttp.EraModern), v) {
			opts.Era, opts.ModernVersion = streamhttp.EraModern, v
		}
		sessOpts = append(sessOpts, session.WithVersion(v))
	}
	tr, err := streamhttp.Dial(ctx, serverURL, opts)
	if err != nil {
		return err
	}
	cs, err := mcp.Connect(ctx, tr, info, nil, sessOpts...)
	if err != nil {
		tr.Close()
		return err
	}
	defer func() {
		c, cc := context.WithTimeout(context.Background(), 5*time.Second)
		defer cc()
		cs.Close(c)
	}()
	list, err := cs.ListTools(ctx, &mcp.PaginatedRequestParams{})
	if err != nil {
		return fmt.Errorf("tools/list: %w", err)
	}
	var errs []error
	for _, tool := range list.Tools {
		if _, err := cs.CallTool(ctx, &mcp.CallToolRequestParams{Name: tool.Name, Arguments: map[string]json.RawMessage{}}); err != nil {
			errs = append(errs, fmt.Errorf("tools/call %s: %w", tool.Name, err))
		}
	}
	return errors.Join(errs...)
}
