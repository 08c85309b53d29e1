package session

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/mcpgen/mcpgen/runtime/jsonrpc2"
)

// DefaultShutdownGrace is the shutdown bound ServeStdio uses when given
// zero: how long handlers still running when the server stops get to return
// before ServeStdio returns without them.
const DefaultShutdownGrace = 2 * time.Second

// ErrShutdownGrace is wrapped by the error ServeStdio returns when handlers
// were still running when its shutdown bound ran out.
var ErrShutdownGrace = errors.New("session: handlers still running when the shutdown bound ran out")

// ServeStdio serves one client on the process's stdin and stdout (the MCP
// stdio transport, jsonrpc2.NewStdioTransport) until the client closes
// stdin, ctx ends, or the process receives SIGINT or SIGTERM. It is what a
// stdio server's main needs, graceful shutdown included:
//
//   - at EOF on stdin, the requests already read are still answered (within
//     jsonrpc2.DefaultEOFGrace) and then the rest is cancelled;
//   - on a signal or ctx's end, every running handler's ctx is cancelled
//     with a cause (a *jsonrpc2.CancelError) saying why;
//   - either way ServeStdio then waits at most grace (zero means
//     DefaultShutdownGrace) for the handlers to return and returns: a handler
//     that ignores its cancelled ctx is left behind, and the error wraps
//     ErrShutdownGrace. The stdio transport abandons a stdin that stays open
//     and a stdout nobody reads, so nothing else can hold it up.
//
// It returns nil when the client went away or a signal or ctx ended the
// session, and the transport's error if it failed. Log output belongs on
// stderr (WithLogger): stdout carries only MCP messages.
func (s *Server) ServeStdio(ctx context.Context, grace time.Duration) error {
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
	defer stop()
	return s.serveBounded(ctx, jsonrpc2.NewStdioTransport(os.Stdin, os.Stdout, jsonrpc2.StdioOptions{}), grace)
}

// serveBounded is ServeStdio on any transport: Serve with a bound on the
// wait for handlers after the connection ends.
func (s *Server) serveBounded(ctx context.Context, t jsonrpc2.Transport, grace time.Duration) error {
	if grace <= 0 {
		grace = DefaultShutdownGrace
	}
	conn, err := s.Accept(ctx, t)
	if err != nil {
		t.Close()
		if errors.Is(err, jsonrpc2.ErrTransportClosed) || errors.Is(err, io.EOF) || errors.Is(err, context.Canceled) || ctx.Err() != nil {
			return nil // the client left (or we were stopped) before its first request
		}
		return err
	}
	runErr := conn.Run(ctx)
	closeCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), grace)
	defer cancel()
	if err := conn.Close(closeCtx); err != nil && errors.Is(err, context.DeadlineExceeded) {
		return fmt.Errorf("%w (%v)", ErrShutdownGrace, grace)
	}
	if runErr != nil && !errors.Is(runErr, context.Canceled) {
		return runErr
	}
	return nil
}
