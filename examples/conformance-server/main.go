// Command conformance-server serves the fixtures that the official MCP
// conformance suite (@modelcontextprotocol/conformance 0.2.0-alpha.12 and
// 0.1.16) expects of a server (its everything-server: tools test_*,
// resources test://…, prompts, completion, the input-required-result
// (MRTR) tools, the diagnostic tools of server-stateless) over Streamable
// HTTP on /mcp, both eras from one binary: modern (2026-07-28) requests and
// legacy (2025-11-25, 2025-06-18, 2025-03-26) sessions.
// scripts/suites/50-conformance.sh runs the suite against it.
//
// It is built the way the README teaches: the generated mcp.NewServer with
// an implementation of the generated handler interfaces (ListTools,
// CallTool, …) returning the generated result types, session.WithLegacy for
// the older clients, and streamhttp for the transport. The session owns the
// lifecycle and the modern rules (server/discover, per-request _meta,
// subscriptions/listen, result defaults, MRTR); streamhttp owns the HTTP
// ones (statuses, headers, Mcp-Param-* validation). The few legacy-only
// answers (resources/subscribe, the log line after logging/setLevel) are
// session.WithHandler and an interceptor.
package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"time"

	flag "github.com/spf13/pflag"

	"github.com/mcpgen/mcpgen/generated/mcp20250326"
	"github.com/mcpgen/mcpgen/generated/mcp20250618"
	"github.com/mcpgen/mcpgen/generated/mcp20251125"
	mcp "github.com/mcpgen/mcpgen/generated/mcp20260728"
	"github.com/mcpgen/mcpgen/runtime/jsonrpc2"
	"github.com/mcpgen/mcpgen/runtime/session"
	"github.com/mcpgen/mcpgen/runtime/streamhttp"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:3000", "address to listen on")
	sse := flag.Bool("sse", false, "answer every request with an SSE stream (default: JSON unless something precedes the response)")
	flag.Parse()
	log := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	h, err := newHandler(log, *sse)
	if err != nil {
		fmt.Fprintln(os.Stderr, "conformance-server:", err)
		os.Exit(2)
	}
	mux := http.NewServeMux()
	mux.Handle("/mcp", h)
	srv := streamhttp.NewHTTPServer(*addr, mux)
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	go func() {
		<-ctx.Done()
		c, cancel := context.WithTimeout(context.Background(), 3*time.Second)
		defer cancel()
		_ = h.Close(c)
		_ = srv.Shutdown(c)
	}()
	fmt.Fprintf(os.Stderr, "conformance-server on http://%s/mcp\n", *addr)
	if err := srv.ListenAndServe(); err != nil && !errors.Is(err, http.ErrServerClosed) {
		log.Error("stopped", "error", err)
		os.Exit(1)
	}
}

var serverInfo = session.Implementation{Name: "mcp-conformance-test-server", Version: "1.0.0"}

// revisions are the revisions served: the modern base and the legacy ones
// through initialize. The HTTP handler gets the same list, so the
// versions it names in -32022 are the ones server/discover lists.
func revisions() []session.Revision {
	return []session.Revision{mcp.Revision(), mcp20251125.Revision(), mcp20250618.Revision(), mcp20250326.Revision()}
}

// newServer builds the session.Server: one for both eras.
func newServer(log *slog.Logger) (*session.Server, *server, error) {
	cat, err := loadCatalog()
	if err != nil {
		return nil, nil, err
	}
	impl := &server{cat: cat}
	srv := mcp.NewServer(serverInfo, impl,
		session.WithLegacy(mcp20251125.Revision(), mcp20250618.Revision(), mcp20250326.Revision()),
		session.WithLogger(log),
		session.WithConnOptions(jsonrpc2.WithLogger(log)),
		// The capabilities as the suite expects them: list changes are
		// announced (NotifyListChanged; modern clients hear them on
		// subscriptions/listen, which the session then serves), and
		// resources can be subscribed to.
		session.WithCapability("tools", []byte(`{"listChanged":true}`)),
		session.WithCapability("prompts", []byte(`{"listChanged":true}`)),
		session.WithCapability("resources", []byte(`{"subscribe":true,"listChanged":true}`)),
		session.WithCapability("completions", []byte(`{}`)),
		// Legacy-only methods: 2026-07-28 has no resources/subscribe (a
		// modern request for it gets 404/-32601 before reaching this).
		session.WithHandler("resources/subscribe", impl.subscribe()),
		session.WithHandler("resources/unsubscribe", impl.subscribe()),
		session.WithInterceptors(announceLevel))
	impl.srv = srv
	return srv, impl, nil
}

// newHandler is the Streamable HTTP handler serving newServer's Server.
func newHandler(log *slog.Logger, sse bool) (*streamhttp.Handler, error) {
	srv, impl, err := newServer(log)
	if err != nil {
		return nil, err
	}
	return streamhttp.NewHandler(streamhttp.AcceptConns(srv, log), streamhttp.Options{
		Logger: log, SSEResponses: sse, Revisions: revisions(),
		ParamHeaders: impl.paramHeaders,
	}), nil
}
