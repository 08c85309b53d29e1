// Command stdio-server is a dual-era MCP server on the stdio transport: its
// handlers are written once, against the newest generated bindings
// (generated/mcp20260728), and runtime/session serves them to clients of
// every revision from 2024-11-05 to 2026-07-28: legacy clients through
// initialize, modern ones through per-request _meta and server/discover,
// and -32022 for versions it does not speak.
//
// It offers two tools:
//
//   - sleep {"ms": integer}: waits that many milliseconds, reporting
//     progress, or until the request is cancelled, then returns a text result;
//     it can also run as a task, in both eras, with the same method: a
//     2025-11-25 client asks with the "task" member (tools/list shows
//     execution.taskSupport "optional"), a 2026-07-28 client by listing the
//     Tasks extension (io.modelcontextprotocol/tasks) in the request's
//     capabilities; tasks/cancel then ends it;
//   - echo {"text": string}: returns the text.
//
// The session owns the lifecycle (initialize, ping, server/discover,
// logging/setLevel), the capabilities (derived from the methods below) and
// the revision's cancellation policy. It logs every cancellation and its
// reason to stderr (stdout carries only MCP messages, as the stdio transport
// requires; --log-format json writes one slog JSON record per line, and every
// cancellation event is a record with "msg":"cancellation"). Logging never
// blocks the protocol: a stderr nobody drains costs dropped log records,
// counted, not a stall.
//
// When stdin reaches EOF it stops reading, lets the requests already read
// finish (jsonrpc2.DefaultEOFGrace), writes their answers and exits. On
// SIGTERM or SIGINT it exits within shutdownGrace whatever the client does.
//
// Run it under a client, for example:
//
//	go run ./examples/stdio-client -- go run ./examples/stdio-server
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/mcpgen/mcpgen/examples/stdio-server/tools"
	"github.com/mcpgen/mcpgen/generated/mcp20241105"
	"github.com/mcpgen/mcpgen/generated/mcp20250326"
	"github.com/mcpgen/mcpgen/generated/mcp20250618"
	"github.com/mcpgen/mcpgen/generated/mcp20251125"
	mcp "github.com/mcpgen/mcpgen/generated/mcp20260728"
	"github.com/mcpgen/mcpgen/runtime/jsonrpc2"
	"github.com/mcpgen/mcpgen/runtime/logsink"
	"github.com/mcpgen/mcpgen/runtime/session"
	"github.com/mcpgen/mcpgen/runtime/tasks"
)

// shutdownGrace bounds how long the server takes to exit after a signal: the
// handlers that ignore their cancellation get this long, then are left
// behind. The runtime's stdio transport abandons a read of a stdin that stays
// open and a write to a stdout nobody reads, so nothing else can hold it up.
const shutdownGrace = 1500 * time.Millisecond

func main() {
	logFormat := flag.String("log-format", "text", "stderr log format: text or json (one slog JSON record per line)")
	flag.Parse()
	// stdout is the protocol stream; every log line goes to stderr, through
	// a bounded queue so a stuck stderr never stalls the protocol.
	sink, err := logsink.NewFormatHandler(os.Stderr, *logFormat, nil)
	if err != nil {
		fmt.Fprintln(os.Stderr, "stdio-server:", err)
		os.Exit(2)
	}
	log := slog.New(sink)
	err = run(log)
	if err != nil {
		log.Error("stdio-server stopped", "error", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	sink.Close(ctx) // best effort: a stuck stderr must not keep us alive
	cancel()
	if err != nil {
		os.Exit(1)
	}
}

// newTasks is the task manager of both eras: sleep may run as a task, echo
// may not. Its defaults agree with each other: up to 256 running tasks per
// requestor, polled every second, within the rate limit (tasks.DefaultRateLimit).
func newTasks(log *slog.Logger) *tasks.Manager {
	return tasks.NewManager(tasks.Config{
		Methods: []string{mcp.MethodCallTool},
		ToolSupport: func(tool string) tasks.Support {
			if tool == "sleep" {
				return tasks.Optional
			}
			return tasks.Forbidden
		},
		Logger: slog.New(logsink.AtLeast(log.Handler(), slog.LevelWarn)),
	})
}

func run(log *slog.Logger) error {
	tm := newTasks(log)
	defer func() {
		ctx, cancel := context.WithTimeout(context.Background(), shutdownGrace)
		defer cancel()
		_ = tm.Close(ctx) // tasks still running end with a cause saying the server stopped
	}()
	opts := []session.ServerOption{
		tasks.WithTasks(tm),
		// Legacy clients get the same handlers, through initialize.
		session.WithLegacy(mcp20251125.Revision(), mcp20250618.Revision(), mcp20250326.Revision(), mcp20241105.Revision()),
		session.WithLogger(log), // handler errors, with the detail the client never sees
		session.WithConnOptions(
			// The runtime's own log, warnings only (protocol errors from the
			// peer): cancellations are logged once each by the observer below.
			jsonrpc2.WithLogger(slog.New(logsink.AtLeast(log.Handler(), slog.LevelWarn))),
			jsonrpc2.WithObserver(jsonrpc2.LogCancellations(log)),
		),
	}
	srv := mcp.NewServer(session.Implementation{Name: "mcpgen-stdio-server", Version: "0.1.0"}, tools.NewHandler(&server{log: log}),
		append(opts, debugOptions()...)...)

	// Run until stdin reaches EOF (the client's way of saying goodbye on
	// stdio; requests already read still finish, within the runtime's EOF
	// grace) or a signal arrives. What still runs then has its ctx
	// cancelled with a cause saying why.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	conn, err := srv.Accept(ctx, jsonrpc2.NewStdioTransport(os.Stdin, os.Stdout, jsonrpc2.StdioOptions{}))
	if err != nil {
		log.Info("stdio-server exiting before any request", "error", err)
		return nil
	}
	runErr := conn.Run(ctx)

	// Give cancelled handlers a moment to return, then exit.
	closeCtx, cancel := context.WithTimeout(context.Background(), shutdownGrace)
	defer cancel()
	if err := conn.Close(closeCtx); err != nil {
		log.Warn("handlers still running at exit", "error", err)
	}
	if runErr != nil && !errors.Is(runErr, context.Canceled) {
		return runErr // the transport failed
	}
	// conn.Err() says why the connection ended: EOF, a signal, ...
	var why *jsonrpc2.CancelError
	if errors.As(conn.Err(), &why) {
		log.Info("stdio-server exiting", "source", why.Source.String(), "reason", why.Reason)
	}
	return nil
}

// server implements the tools of tools/tools.json; the generated
// tools.Handler validates their arguments, answers tools/list and
// tools/call, and answers every other method with -32601 (keeping them out
// of the capabilities); the session answers the lifecycle.
type server struct{ log *slog.Logger }

// Echo returns its text.
func (s *server) Echo(_ context.Context, a *tools.EchoArgs) (*tools.EchoResult, error) {
	return &tools.EchoResult{Text: a.Text}, nil
}

// Sleep waits a.Ms milliseconds, reporting progress ten times, or until the
// request is cancelled: select on ctx.Done() next to the real work.
func (s *server) Sleep(ctx context.Context, a *tools.SleepArgs) (*tools.SleepResult, error) {
	d := time.Duration(a.Ms) * time.Millisecond
	s.log.Info("sleep started", "ms", a.Ms)
	start, tick := time.Now(), time.NewTicker(max(d/10, time.Millisecond))
	defer tick.Stop()
	for done := time.After(d); ; {
		select {
		case <-tick.C:
			_ = mcp.Progress(ctx, float64(time.Since(start).Milliseconds()), float64(a.Ms), "sleeping")
		case <-done:
			return &tools.SleepResult{SleptMs: a.Ms}, nil
		case <-ctx.Done():
			var ce *jsonrpc2.CancelError // the cause: request id, source and the client's reason
			if errors.As(context.Cause(ctx), &ce) {
				s.log.Info("sleep interrupted", "ms", a.Ms, "after", time.Since(start).Round(time.Millisecond), "id", ce.ID.String(), "source", ce.Source.String(), "reason", ce.Reason)
			}
			return nil, context.Cause(ctx) // dropped: a cancelled request gets no response
		}
	}
}
