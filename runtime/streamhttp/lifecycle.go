package streamhttp

import (
	"context"
	"log/slog"

	"github.com/mcpgen/mcpgen/runtime/jsonrpc2"
	"github.com/mcpgen/mcpgen/runtime/session"
)

// Lifecycle is what a Handler serves: the lifecycle layer that builds the
// Conns of the transport, which *session.Server is (the generated
// NewServer returns one). It is the whole contract between the transport
// and the lifecycle, one named interface with nothing probed beside it;
// streamhttp reads nothing else of the session package but its revision
// data and the protocol's names (session.Method…, Meta…).
type Lifecycle interface {
	// Accept builds the started Conn of a legacy session over t from the
	// session's first message (initialize), which t yields at once; it
	// must not read a second message before it returns.
	Accept(ctx context.Context, t jsonrpc2.Transport) (*jsonrpc2.Conn, error)
	// Dispatcher builds the started Conn that serves every modern request
	// (2026-07-28), each handed to it with jsonrpc2.Conn.Deliver; t carries
	// nothing (jsonrpc2.NoTransport). The Handler builds it once and
	// closes it when it closes.
	Dispatcher(t jsonrpc2.Transport) (*jsonrpc2.Conn, error)
	// Adopt builds the started Conn of a legacy session that another
	// replica initialized, from the state it recorded (Options.Sessions).
	Adopt(ctx context.Context, t jsonrpc2.Transport, st session.LegacyState) (*jsonrpc2.Conn, error)
	// RefreshLegacy applies another replica's change of a session's state
	// (its log level, say) to the Conn serving it here, reporting whether
	// conn is one of the lifecycle's.
	RefreshLegacy(conn *jsonrpc2.Conn, st session.LegacyState) bool
	// Revisions lists the revisions served, newest first: the generated
	// Revision() of each (streamhttp holds no revision facts of its own).
	Revisions() []session.Revision
}

// NewHandler returns the http.Handler that serves srv over Streamable
// HTTP in both eras on one endpoint: a Conn per legacy session
// (srv.Accept), one Conn for every modern request (srv.Dispatcher). The
// transport's part stays here (sessions, streams, header validation, a
// closed modern stream reported as the request's cancellation); the
// lifecycle is srv's.
//
// The revisions served are srv's (opts.Revisions, where set, replaces
// their data) and the versions those of opts.LegacyVersions and
// opts.ModernVersions, by default every version of srv's revisions, so the
// -32022 error's supported list agrees with srv's server/discover. Without
// any revision it panics with ErrNoRevisions: a construction-time
// programming error, as for http.ServeMux's conflicting patterns.
func NewHandler(srv Lifecycle, opts Options) *Handler {
	if revs := srv.Revisions(); len(revs) > 0 {
		opts = forRevisions(revs, opts)
	}
	log := opts.Logger
	if log == nil {
		log = slog.Default()
	}
	h := newHandler(func(values context.Context, t jsonrpc2.Transport, era Era) *jsonrpc2.Conn {
		if era == EraModern {
			conn, err := srv.Dispatcher(t)
			if err != nil {
				log.Error("lifecycle refused to serve modern requests", "error", err)
				return nil
			}
			return conn
		}
		conn, err := srv.Accept(values, t)
		if err != nil {
			log.Error("lifecycle refused a "+era.String()+" connection", "error", err)
			return nil
		}
		return conn
	}, opts)
	h.adoptConn = func(values context.Context, t jsonrpc2.Transport, st session.LegacyState) *jsonrpc2.Conn {
		conn, err := srv.Adopt(values, t, st)
		if err != nil {
			log.Error("lifecycle refused to adopt a legacy session", "error", err)
			return nil
		}
		return conn
	}
	h.refresh = srv.RefreshLegacy
	return h
}
