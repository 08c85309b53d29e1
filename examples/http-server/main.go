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
	"github.com/mcpgen/mcpgen/runtime/jsonrpc2"
	"github.com/mcpgen/mcpgen/runtime/logsink"
	"github.com/mcpgen/mcpgen/runtime/session"
	"github.com/mcpgen/mcpgen/runtime/streamhttp"
	"github.com/mcpgen/mcpgen/runtime/tasks"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:8080", "address to listen on (loopback by default: DNS-rebinding safety)")
	format := flag.String("log-format", "text", "log format on stderr: text or json")
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
	if err := run(*addr, log, lim); err != nil {
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

// limits are the hardening flags handed to streamhttp.Options.
type limits struct {
	maxSessions      int
	handshakeTimeout time.Duration
}

func run(addr string, log *slog.Logger, lim limits) error {
	// One task manager for both eras: sleep may run as a task, echo may not.
	// A legacy task lives as long as its session; a modern one (stateless
	// requests, each its own Conn) is reached by its id alone.
	tm := tasks.NewManager(tasks.Config{
		Methods: []string{mcp.MethodCallTool},
		ToolSupport: func(tool string) tasks.Support {
			if tool == "sleep" {
				return tasks.Optional
			}
			return tasks.Forbidden
		},
		Logger: slog.New(logsink.AtLeast(log.Handler(), slog.LevelWarn)),
	})
	defer func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = tm.Close(ctx)
	}()
	modernSrv := newServer(log.With("era", "modern"), tm)
	legacy := streamhttp.AcceptConns(newServer(log.With("era", "legacy"), tm), log)
	modern := streamhttp.AcceptConns(modernSrv, log)
	h := streamhttp.NewHandler(func(t jsonrpc2.Transport, era streamhttp.Era) *jsonrpc2.Conn {
		if era == streamhttp.EraModern {
			return modern(t, era)
		}
		return legacy(t, era)
	}, streamhttp.ForServer(modernSrv, streamhttp.Options{Logger: log, MaxSessions: lim.maxSessions, HandshakeTimeout: lim.handshakeTimeout})) // -32022 lists what server/discover lists
	mux := http.NewServeMux()
	mux.Handle("/mcp", h)
	srv := streamhttp.NewHTTPServer(addr, mux)
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	// The bound address, so --addr 127.0.0.1:0 is usable (tests do that).
	log.Info("listening", "url", "http://"+ln.Addr().String()+"/mcp")
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
	s.log.Info("sleep started", "ms", a.Ms)
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
