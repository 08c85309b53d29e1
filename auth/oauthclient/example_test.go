package oauthclient_test

import (
	"context"
	"fmt"
	"net/http"

	"github.com/mcpgen/mcpgen/auth/oauthclient"
	mcp "github.com/mcpgen/mcpgen/generated/mcp20260728"
	"github.com/mcpgen/mcpgen/runtime/session"
	"github.com/mcpgen/mcpgen/runtime/streamhttp"
)

// An interactive client: the user signs in in the browser, the redirect
// comes back to a loopback listener, and every request of the session
// carries the token (refreshed, re-authorized, stepped up as the server
// asks).
func Example() {
	ctx := context.Background()
	serverURL := "https://mcp.example.com/mcp"
	lb, err := oauthclient.NewLoopback("/callback", func(authURL string) error {
		fmt.Println("open", authURL) // or start the system browser
		return nil
	})
	if err != nil {
		return
	}
	defer lb.Close()
	auth := oauthclient.NewTransport(oauthclient.Config{
		ServerURL:           serverURL,
		RedirectURL:         lb.RedirectURL(),
		Authorize:           lb.Authorize,
		ClientIDMetadataURL: "https://app.example.com/oauth/client.json", // where the server supports CIMD
		ClientName:          "example",
	})
	tr, err := streamhttp.Dial(ctx, serverURL, streamhttp.ClientOptions{Revisions: []session.Revision{mcp.Revision()}, HTTPClient: &http.Client{Transport: auth}})
	if err != nil {
		return
	}
	cs, err := mcp.Connect(ctx, tr, session.Implementation{Name: "example", Version: "1"}, nil)
	if err != nil {
		return
	}
	defer cs.Close(ctx)
	_, _ = cs.ListTools(ctx, &mcp.PaginatedRequestParams{})
}

// A headless client: the client credentials grant with a pre-registered
// client (the authorization server is still discovered from the MCP
// server's metadata, and the token is requested for its resource).
func Example_clientCredentials() {
	auth := oauthclient.NewTransport(oauthclient.Config{
		ServerURL:         "https://mcp.example.com/mcp",
		ClientID:          "svc-reporting",
		ClientSecret:      "from the secret store",
		ClientCredentials: true,
	})
	_ = &http.Client{Transport: auth} // streamhttp.ClientOptions.HTTPClient
}
