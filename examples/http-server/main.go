// Command http-server is a small MCP server on Streamable HTTP, serving both
// protocol eras on one endpoint (/mcp): legacy sessions (2025-03-26 …
// 2025-11-25, initialize first) and modern stateless requests (2026-07-28).
//
// It offers the same two tools as examples/stdio-server:
//
//   - sleep {"ms": integer}: waits that many milliseconds, or until the
//     request is cancelled; it can also run as a task in both eras (a
//     2025-11-25 session asks with the "task" member, a 2026-07-28 request
//     lists the Tasks extension in its capabilities), served by one
//     tasks.Manager for both;
//   - echo {"text": string}: returns the text.
//
// Its tools are examples/stdio-server's (package tools), and
// runtime/session owns the lifecycle as it does there: streamhttp hands
// each legacy session and each modern request to a session.Server.
//
// Cancellation follows each era's rule: a legacy client cancels by POSTing
// notifications/cancelled (dropping the stream is not a cancellation), a
// modern client by closing the request's response stream. Every
// cancellation is logged on stderr (--log-format text|json).
//
//	go run ./examples/http-server --addr 127.0.0.1:8080
//	go run ./examples/http-client http://127.0.0.1:8080/mcp
//
// With --auth the endpoint is an OAuth 2.1 resource server (runtime/auth):
// every request needs a bearer token for this server (audience: the
// canonical URI, --auth-resource, by default http://ADDR/mcp), verified by
// the authorization server's RFC 7662 introspection endpoint; Protected
// Resource Metadata is served at /.well-known/oauth-protected-resource/mcp
// and /.well-known/oauth-protected-resource; legacy sessions and tasks
// belong to the identity that created them. The example stays standard
// library only: for JWT access tokens checked against the issuer's JWKS,
// use the separate module github.com/mcpgen/mcpgen/auth/jwtverify as the
// Config.Verifier instead. The introspection client's secret comes from
// the environment (MCP_AUTH_CLIENT_SECRET), not the command line.
//
//	go run ./examples/http-server --auth --auth-issuer https://as.example.com \
//	  --auth-introspect https://as.example.com/introspect --auth-client-id mcp-rs \
//	  --auth-scopes mcp --auth-tool-scopes sleep=mcp:sleep
//
// The client side of the flow (discovery, sign-in with PKCE, refresh,
// step-up) is auth/oauthclient/examples/http-client-auth;
// auth/oidctest's TestExampleAuthFlow runs the two against zitadel's
// OpenID Provider.
package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"time"

	flag "github.com/spf13/pflag"

	"github.com/mcpgen/mcpgen/examples/stdio-server/tools"
	"github.com/mcpgen/mcpgen/generated/mcp20250326"
	"github.com/mcpgen/mcpgen/generated/mcp20250618"
	"github.com/mcpgen/mcpgen/generated/mcp20251125"
	mcp "github.com/mcpgen/mcpgen/generated/mcp20260728"
	"github.com/mcpgen/mcpgen/runtime/auth"
	"github.com/mcpgen/mcpgen/runtime/jsonrpc2"
	"github.com/mcpgen/mcpgen/runtime/logsink"
	"github.com/mcpgen/mcpgen/runtime/session"
	"github.com/mcpgen/mcpgen/runtime/streamhttp"
	"github.com/mcpgen/mcpgen/runtime/tasks"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:8080", "address to listen on (loopback by default: DNS-rebinding safety)")
	format := flag.String("log-format", "text", "log format on stderr: text or json")
	var ac authConfig
	flag.BoolVar(&ac.on, "auth", false, "require OAuth bearer tokens (resource server; see --auth-*)")
	flag.StringVar(&ac.resource, "auth-resource", "", "canonical URI of this server, the tokens' audience (default http://ADDR/mcp)")
	flag.StringVar(&ac.issuer, "auth-issuer", "", "the authorization server (issuer URL) listed in the resource metadata")
	flag.StringVar(&ac.introspect, "auth-introspect", "", "the authorization server's RFC 7662 introspection endpoint")
	flag.StringVar(&ac.clientID, "auth-client-id", "", "client id for the introspection endpoint (secret: $MCP_AUTH_CLIENT_SECRET)")
	flag.StringSliceVar(&ac.scopes, "auth-scopes", nil, "scopes every request needs")
	flag.StringToStringVar(&ac.toolScopes, "auth-tool-scopes", nil, "further scope per tool, e.g. sleep=mcp:sleep")
	var lim limits
	flag.IntVar(&lim.maxSessions, "max-sessions", 0, "legacy session cap (0: streamhttp's default, 1024); at the cap the oldest session without a completed handshake, else the least recently active idle one, gives way")
	flag.DurationVar(&lim.handshakeTimeout, "handshake-timeout", 0, "end a legacy session that sends no notifications/initialized within this (0: streamhttp's default, 10s)")
	flag.Parse()
	sink, err := logsink.NewFormatHandler(os.Stderr, *format, nil)
	if err != nil {
		fmt.Fprintln(os.Stderr, "http-server:", err)
		os.Exit(2)
	}
	log := slog.New(sink)
	if err := run(*addr, log, ac, lim); err != nil {
		log.Error("http-server stopped", "error", err)
		sink.Close(context.Background())
		os.Exit(1)
	}
	sink.Close(context.Background())
}

// newServer is the session.Server of one era; the two differ only in the
// "era" attribute of their log records.
func newServer(log *slog.Logger, tm *tasks.Manager) *session.Server {
	return mcp.NewServer(session.Implementation{Name: "mcpgen-http-server", Version: "0.1.0"}, tools.NewHandler(&server{log: log}),
		tasks.WithTasks(tm),
		session.WithLegacy(mcp20251125.Revision(), mcp20250618.Revision(), mcp20250326.Revision()),
		session.WithLogger(log),
		session.WithConnOptions(
			// The runtime's own log, warnings only: cancellations are
			// logged once each by the observer.
			jsonrpc2.WithLogger(slog.New(logsink.AtLeast(log.Handler(), slog.LevelWarn))),
			jsonrpc2.WithObserver(jsonrpc2.LogCancellations(log))))
}

// eras is the streamhttp.Lifecycle of the example: legacy sessions are
// served by one session.Server and modern requests by another, which
// differ only in the "era" attribute of their log records.
type eras struct {
	*session.Server // legacy sessions (Accept, Adopt, RefreshLegacy) and the revisions
	modern          *session.Server
}

// Dispatcher serves the modern requests with the modern Server.
func (e eras) Dispatcher(t jsonrpc2.Transport) (*jsonrpc2.Conn, error) { return e.modern.Dispatcher(t) }

// authConfig is what the --auth flags say.
type authConfig struct {
	on                           bool
	resource, issuer, introspect string
	clientID                     string
	scopes                       []string
	toolScopes                   map[string]string
}

// resourceServer builds the resource server of --auth for an endpoint
// listening at addr.
func (ac authConfig) resourceServer(addr string, log *slog.Logger) (*auth.ResourceServer, error) {
	if ac.issuer == "" || ac.introspect == "" {
		return nil, errors.New("--auth needs --auth-issuer and --auth-introspect")
	}
	if ac.resource == "" {
		ac.resource = "http://" + addr + "/mcp"
	}
	tools := map[string][]string{}
	supported := append([]string(nil), ac.scopes...)
	for tool, scope := range ac.toolScopes {
		tools[tool] = []string{scope}
		supported = append(supported, scope)
	}
	return auth.New(auth.Config{
		Resource:             ac.resource,
		AuthorizationServers: []string{ac.issuer},
		Verifier: &auth.IntrospectionVerifier{Endpoint: ac.introspect, Issuer: ac.issuer,
			ClientID: ac.clientID, ClientSecret: os.Getenv("MCP_AUTH_CLIENT_SECRET")},
		Scopes:          ac.scopes,
		ToolScopes:      tools,
		ScopesSupported: supported,
		ResourceName:    "mcpgen-http-server",
		Logger:          log,
	})
}

// limits are the hardening flags handed to streamhttp.Options.
type limits struct {
	maxSessions      int
	handshakeTimeout time.Duration
}

func run(addr string, log *slog.Logger, ac authConfig, lim limits) error {
	// One task manager for both eras: sleep may run as a task, echo may not.
	// A legacy task lives as long as its session; a modern one (stateless
	// requests, each its own Conn) is reached by its id alone.
	tcfg := tasks.Config{
		Methods: []string{mcp.MethodCallTool},
		ToolSupport: func(tool string) tasks.Support {
			if tool == "sleep" {
				return tasks.Optional
			}
			return tasks.Forbidden
		},
		Logger: slog.New(logsink.AtLeast(log.Handler(), slog.LevelWarn)),
	}
	if ac.on {
		// Tasks belong to the verified identity that created them.
		tcfg.Owner = auth.TaskOwner
	}
	tm := tasks.NewManager(tcfg)
	defer func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = tm.Close(ctx)
	}()
	lc := eras{Server: newServer(log.With("era", "legacy"), tm), modern: newServer(log.With("era", "modern"), tm)}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	opts := streamhttp.Options{Logger: log, MaxSessions: lim.maxSessions, HandshakeTimeout: lim.handshakeTimeout}
	var rs *auth.ResourceServer
	if ac.on {
		// Built once the address is bound, so the default resource URI
		// names the real port (--addr 127.0.0.1:0).
		if rs, err = ac.resourceServer(ln.Addr().String(), log); err != nil {
			ln.Close()
			return err
		}
		rs.Apply(&opts) // scopes per tool, sessions bound to their identity
	}
	h := streamhttp.NewHandler(lc, opts) // -32022 lists what server/discover lists
	mux := http.NewServeMux()
	if rs != nil {
		rs.Mount(mux, h) // the endpoint behind the token check, and the metadata
	} else {
		mux.Handle("/mcp", h)
	}
	srv := streamhttp.NewHTTPServer(addr, mux)
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	// The bound address, so --addr 127.0.0.1:0 is usable (tests do that).
	if rs != nil {
		log.Info("listening", "url", "http://"+ln.Addr().String()+"/mcp", "resource", rs.Resource(), "resource_metadata", rs.MetadataURL())
	} else {
		log.Info("listening", "url", "http://"+ln.Addr().String()+"/mcp")
	}
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	shutdown, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_ = h.Close(shutdown) // ends sessions and streams, so Shutdown does not wait on SSE
	if err := srv.Shutdown(shutdown); err != nil && !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

// server implements the tools of examples/stdio-server/tools.
type server struct{ log *slog.Logger }

// Echo returns its text.
func (s *server) Echo(_ context.Context, a *tools.EchoArgs) (*tools.EchoResult, error) {
	return &tools.EchoResult{Text: a.Text}, nil
}

// Sleep waits a.Ms milliseconds or until the request is cancelled, by the
// era's rule; context.Cause(ctx) says how, and the result is then dropped.
func (s *server) Sleep(ctx context.Context, a *tools.SleepArgs) (*tools.SleepResult, error) {
	if id, ok := auth.IdentityFrom(ctx); ok {
		s.log.Info("sleep started", "ms", a.Ms, "subject", id.Subject)
	} else {
		s.log.Info("sleep started", "ms", a.Ms)
	}
	start, timer := time.Now(), time.NewTimer(time.Duration(a.Ms)*time.Millisecond)
	defer timer.Stop()
	select {
	case <-timer.C:
		s.log.Info("sleep finished", "ms", a.Ms)
		return &tools.SleepResult{SleptMs: a.Ms}, nil
	case <-ctx.Done():
		cause := context.Cause(ctx)
		attrs := []any{"ms", a.Ms, "after", time.Since(start).Round(time.Millisecond).String(), "cause", cause.Error()}
		var ce *jsonrpc2.CancelError
		if errors.As(cause, &ce) {
			attrs = append(attrs, "id", ce.ID.String(), "source", ce.Source.String(), "reason", ce.Reason)
		}
		s.log.Info("sleep interrupted", attrs...)
		return nil, cause
	}
}
