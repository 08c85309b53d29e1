// Command http-client-auth is examples/http-client with OAuth: it connects
// to an MCP server that is an OAuth 2.1 resource server (for one,
// examples/http-server --auth) and does the whole authorization of the MCP
// pages on the way, through an oauthclient.Transport under the documented
// client path (streamhttp.Dial, the generated mcp.Connect and callers):
//
//   - the first request is refused 401; the transport reads the Protected
//     Resource Metadata the challenge names (RFC 9728), then the
//     authorization server's metadata (RFC 8414 / OpenID discovery);
//   - it registers (a pre-registered --client-id here; dynamic registration
//     or a client ID metadata document where the server supports them);
//   - it runs the authorization code flow with PKCE and the resource
//     parameter (RFC 8707): the user signs in in the browser, whose
//     redirect comes back to a loopback listener (RFC 8252);
//   - it retries with the token, refreshes it when it expires, and steps up
//     when a call is refused 403 insufficient_scope (a tool that needs more
//     scope: the user is asked again, for the union of the scopes).
//
// It lives in the auth/oauthclient module because it needs
// golang.org/x/oauth2, and the main module (where examples/http-client
// lives) stays standard-library only.
//
// It lists the tools, then makes each --call NAME=JSON in order, and
// prints the answers. The authorization URL is printed on stderr
// ("authorize: URL"); --browser also opens it.
//
//	go run ./examples/http-server --auth --auth-issuer https://as.example.com \
//	  --auth-introspect https://as.example.com/oauth/introspect --auth-client-id mcp-rs \
//	  --auth-scopes openid --auth-tool-scopes sleep=mcp:sleep
//	cd auth/oauthclient && go run ./examples/http-client-auth --client-id mcp-client \
//	  --call echo='{"text":"hi"}' --call sleep='{"ms":10}' http://127.0.0.1:8080/mcp
//
// auth/oidctest's TestExampleAuthFlow runs exactly this against zitadel's
// OpenID Provider.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"time"

	"github.com/mcpgen/mcpgen/auth/oauthclient"
	"github.com/mcpgen/mcpgen/generated/mcp20251125"
	mcp "github.com/mcpgen/mcpgen/generated/mcp20260728"
	"github.com/mcpgen/mcpgen/runtime/session"
	"github.com/mcpgen/mcpgen/runtime/streamhttp"
)

// calls is the repeated --call flag.
type calls []call

type call struct {
	tool string
	args map[string]json.RawMessage
}

func (c *calls) String() string { return fmt.Sprint(len(*c), " calls") }

// Set parses NAME=JSON (or NAME alone, for no arguments).
func (c *calls) Set(v string) error {
	name, raw, found := strings.Cut(v, "=")
	if name == "" {
		return fmt.Errorf("%q: want NAME=JSON", v)
	}
	args := map[string]json.RawMessage{}
	if found {
		if err := json.Unmarshal([]byte(raw), &args); err != nil || args == nil {
			return fmt.Errorf("%q: the arguments are not a JSON object", v)
		}
	}
	*c = append(*c, call{name, args})
	return nil
}

func main() {
	flag.Usage = func() {
		fmt.Fprintln(os.Stderr, "usage: http-client-auth --client-id ID [--call NAME=JSON]... [--era auto|legacy|modern] [--browser] URL")
		flag.PrintDefaults()
	}
	clientID := flag.String("client-id", "", "the client's pre-registered client ID (empty: dynamic client registration); a confidential client's secret comes from $MCP_CLIENT_SECRET")
	eraFlag := flag.String("era", "auto", "protocol era: auto (detect), legacy or modern")
	browser := flag.Bool("browser", false, "open the authorization URL in the system browser")
	var cs calls
	flag.Var(&cs, "call", "a tool call NAME=JSON, repeatable (default: echo with {\"text\":\"hello\"})")
	flag.Parse()
	if flag.NArg() != 1 {
		flag.Usage()
		os.Exit(2)
	}
	var era streamhttp.Era
	switch *eraFlag {
	case "legacy":
		era = streamhttp.EraLegacy
	case "modern":
		era = streamhttp.EraModern
	case "auto":
	default:
		fmt.Fprintf(os.Stderr, "http-client-auth: --era %q: want auto, legacy or modern\n", *eraFlag)
		os.Exit(2)
	}
	if len(cs) == 0 {
		cs = calls{{"echo", map[string]json.RawMessage{"text": json.RawMessage(`"hello"`)}}}
	}
	open := func(authURL string) error {
		fmt.Fprintln(os.Stderr, "authorize:", authURL)
		if *browser {
			return openBrowser(authURL)
		}
		return nil
	}
	if err := run(flag.Arg(0), *clientID, os.Getenv("MCP_CLIENT_SECRET"), era, open, cs, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "http-client-auth:", err)
		os.Exit(1)
	}
}

func run(serverURL, clientID, secret string, era streamhttp.Era, open func(string) error, cs calls, out io.Writer) error {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute) // a person signs in meanwhile
	defer cancel()
	quiet := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	lb, err := oauthclient.NewLoopback("/callback", open)
	if err != nil {
		return err
	}
	defer lb.Close()
	authz := oauthclient.NewTransport(oauthclient.Config{
		ServerURL:    serverURL,
		RedirectURL:  lb.RedirectURL(),
		Authorize:    lb.Authorize,
		ClientID:     clientID,
		ClientSecret: secret,
		ClientName:   "mcpgen-http-client-auth",
	})
	info := session.Implementation{Name: "mcpgen-http-client-auth", Version: "0.1.0"}
	hc := &http.Client{Transport: authz}
	revisions := []session.Revision{mcp.Revision(), mcp20251125.Revision()} // what Connect speaks
	tr, err := streamhttp.Dial(ctx, serverURL, streamhttp.ClientOptions{Era: era, Revisions: revisions, ClientInfo: info, Logger: quiet, HTTPClient: hc})
	if err != nil {
		return err
	}
	sess, err := mcp.Connect(ctx, tr, info, nil, session.WithClientLegacy(mcp20251125.Revision()), session.WithClientLogger(quiet))
	if err != nil {
		_ = tr.Close()
		return fmt.Errorf("connect: %w", err)
	}
	defer func() {
		cctx, ccancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer ccancel()
		sess.Close(cctx)
	}()
	eraName := "legacy"
	if sess.Modern() {
		eraName = "modern"
	}
	srv := sess.ServerInfo()
	fmt.Fprintf(out, "connected (%s era, authorized): %s %s, protocol %s\n", eraName, srv.Name, srv.Version, sess.ProtocolVersion())
	list, err := sess.ListTools(ctx, &mcp.PaginatedRequestParams{})
	if err != nil {
		return fmt.Errorf("tools/list: %w", err)
	}
	names := make([]string, len(list.Tools))
	for i, t := range list.Tools {
		names[i] = t.Name
	}
	fmt.Fprintf(out, "tools: %s\n", strings.Join(names, ", "))
	for _, c := range cs {
		res, err := sess.CallTool(ctx, &mcp.CallToolRequestParams{Name: c.tool, Arguments: c.args})
		if err != nil {
			return fmt.Errorf("%s: %w", c.tool, err)
		}
		if res.IsError != nil && *res.IsError {
			return fmt.Errorf("%s failed: %s", c.tool, text(res))
		}
		fmt.Fprintf(out, "%s: %s\n", c.tool, text(res))
	}
	return nil
}

// text is a result's text content, or its structured content.
func text(res *mcp.CallToolResult) string {
	var parts []string
	for _, c := range res.Content {
		if t, ok := c.(*mcp.TextContent); ok {
			parts = append(parts, t.Text)
		}
	}
	if len(parts) == 0 && res.StructuredContent != nil {
		b, _ := json.Marshal(res.StructuredContent)
		return string(b)
	}
	return strings.Join(parts, " ")
}

// openBrowser starts the system browser on u.
func openBrowser(u string) error {
	var cmd *exec.Cmd
	switch runtime.GOOS {
	case "darwin":
		cmd = exec.Command("open", u)
	case "windows":
		cmd = exec.Command("rundll32", "url.dll,FileProtocolHandler", u)
	default:
		cmd = exec.Command("xdg-open", u)
	}
	if err := cmd.Start(); err != nil {
		return errors.Join(errors.New("cannot open a browser: open the URL above yourself"), err)
	}
	go cmd.Wait()
	return nil
}
