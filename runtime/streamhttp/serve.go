package streamhttp

import (
	"context"
	"errors"
	"net"
	"net/http"
	"os"
	"os/signal"
	"syscall"
)

// ListenAndServe serves srv (a session.Server) over Streamable HTTP, both
// eras on one endpoint (NewHandler), at http://addr/mcp, until ctx
// ends or the process receives SIGINT or SIGTERM. It is what an HTTP
// server's main needs, graceful shutdown included: it logs the endpoint's
// URL (with the port bound, so addr "127.0.0.1:0" works) at Info on
// opts.Logger, and on the way out closes every session and stream (their
// handlers' ctx is cancelled) and shuts the http.Server down, waiting at
// most opts.ShutdownTimeout (default 10 s) for each. The server has
// NewHTTPServer's timeouts and opts' limits and origin checks. It returns
// nil after a shutdown, else the listener's error, or ErrNoRevisions when
// neither opts.Revisions nor srv (a RevisionLister) gives revisions.
func ListenAndServe(ctx context.Context, addr string, srv Lifecycle, opts Options) error {
	if revs := srv.Revisions(); len(revs) > 0 {
		opts = forRevisions(revs, opts)
	}
	if len(opts.Revisions) == 0 {
		return ErrNoRevisions
	}
	opts = opts.withDefaults()
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
	defer stop()
	h := NewHandler(srv, opts)
	mux := http.NewServeMux()
	mux.Handle("/mcp", h)
	hs := NewHTTPServer(addr, mux)
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	opts.Logger.Info("listening", "url", "http://"+ln.Addr().String()+"/mcp")
	errc := make(chan error, 1)
	go func() { errc <- hs.Serve(ln) }()
	select {
	case err := <-errc:
		_ = h.Close(context.Background())
		return err
	case <-ctx.Done():
	}
	closeCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), opts.ShutdownTimeout)
	defer cancel()
	_ = h.Close(closeCtx) // ends sessions and streams, so Shutdown does not wait on SSE
	shutCtx, cancel2 := context.WithTimeout(context.WithoutCancel(ctx), opts.ShutdownTimeout)
	defer cancel2()
	if err := hs.Shutdown(shutCtx); err != nil && !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}
