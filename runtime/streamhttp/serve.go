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
// opts.Logger, serves the probes (Handler.Probes) on PathLiveness and
// PathReadiness, and on the way out drains (Handler.Drain, with
// opts.ShutdownTimeout, default 10 s, as the grace: readiness fails, new
// requests get 503, running ones may finish), closes every session and
// stream and shuts the http.Server down, waiting at most
// opts.ShutdownTimeout more for each. The server has
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
	probes := h.Probes()
	mux.Handle(PathLiveness, probes)
	mux.Handle(PathReadiness, probes)
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
	closeCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 2*opts.ShutdownTimeout)
	defer cancel()
	_ = h.Drain(closeCtx, opts.ShutdownTimeout) // ends sessions and streams, so Shutdown does not wait on SSE
	shutCtx, cancel2 := context.WithTimeout(context.WithoutCancel(ctx), opts.ShutdownTimeout)
	defer cancel2()
	if err := hs.Shutdown(shutCtx); err != nil && !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}
