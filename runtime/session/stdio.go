package session

import (
	"context"
	"errors"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/mcpgen/mcpgen/runtime/jsonrpc2"
)

// ErrShutdownGrace is wrapped by the error Serve and ServeStdio return when
// handlers were still running when their shutdown bound ran out.
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
//   - either way ServeStdio then waits at most grace (zero means the
//     server's WithShutdownGrace, by default DefaultShutdownGrace) for the
//     handlers to return and returns: a handler
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
	if grace == 0 {
		grace = s.shutdown
	}
	return s.serve(ctx, jsonrpc2.NewStdioTransport(os.Stdin, os.Stdout, jsonrpc2.StdioOptions{}), grace)
}
