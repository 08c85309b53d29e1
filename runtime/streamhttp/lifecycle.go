package streamhttp

import (
	"context"
	"errors"
	"log/slog"

	"github.com/mcpgen/mcpgen/runtime/jsonrpc2"
	"github.com/mcpgen/mcpgen/runtime/session"
)

// Lifecycle is a lifecycle layer that builds the Conn of a transport from
// the messages it carries: session.Server is one (its Accept reads an
// initialize or a modern request, picks the revision's Policy, installs
// initialize, ping, logging/setLevel and server/discover around the
// implementation, and returns the Conn started). This interface is the
// whole contract between the transport and the lifecycle; streamhttp reads
// nothing of the session package but its revision data (session.Revision,
// Options.Revisions) and the protocol's names (session.Method…, Meta…).
type Lifecycle interface {
	// Accept builds the started Conn of a legacy session over t from the
	// session's first message (initialize), which t yields at once.
	Accept(ctx context.Context, t jsonrpc2.Transport) (*jsonrpc2.Conn, error)
	// Dispatcher builds the started Conn that serves every modern request
	// (2026-07-28), each handed to it with jsonrpc2.Conn.Deliver; t carries
	// nothing (jsonrpc2.NoTransport). The Handler builds it once and
	// closes it when it closes.
	Dispatcher(t jsonrpc2.Transport) (*jsonrpc2.Conn, error)
}

// NewLifecycleHandler returns a Handler that serves srv in both eras on one
// endpoint: each legacy session and each modern request gets the Conn
// srv.Accept builds. The transport's part stays here (sessions, streams,
// header validation, a closed modern stream reported as the request's
// cancellation); the lifecycle is srv's.
//
// The versions served are opts.LegacyVersions and opts.ModernVersions;
// they should be versions srv speaks. Where they (and opts.Revisions) are
// nil and srv lists its revisions (a *session.Server does:
// RevisionLister), they are srv's, so the -32022 error's supported list
// agrees with srv's server/discover. Without revisions from either it
// panics with ErrNoRevisions (see NewHandler). A request srv would not accept from
// its first message alone (a version the two disagree on) is refused with
// 500 rather than left waiting.
func NewLifecycleHandler(srv Lifecycle, opts Options) *Handler {
	if rl, ok := srv.(RevisionLister); ok {
		opts = forRevisions(rl.Revisions(), opts)
	}
	if a, ok := srv.(SessionAdopter); ok && opts.Adopt == nil {
		opts.Adopt = AdoptConns(a, opts.Logger)
	}
	h := NewHandler(AcceptConns(srv, opts.Logger), opts)
	if l, ok := srv.(interface {
		RefreshLegacy(*jsonrpc2.Conn, session.LegacyState) bool
	}); ok {
		h.refresh = l.RefreshLegacy
	}
	return h
}

// SessionAdopter is a Lifecycle that can serve a legacy session another
// replica initialized, from the state it recorded (session.Server.Adopt).
type SessionAdopter interface {
	Adopt(ctx context.Context, t jsonrpc2.Transport, st session.LegacyState) (*jsonrpc2.Conn, error)
}

// AdoptConns adapts a SessionAdopter to Options.Adopt. log receives the
// reason a Conn was refused (nil means slog.Default()).
func AdoptConns(a SessionAdopter, log *slog.Logger) func(jsonrpc2.Transport, session.LegacyState) *jsonrpc2.Conn {
	if log == nil {
		log = slog.Default()
	}
	return func(t jsonrpc2.Transport, st session.LegacyState) *jsonrpc2.Conn {
		conn, err := a.Adopt(context.Background(), t, st)
		if err != nil {
			log.Error("lifecycle refused to adopt a legacy session", "error", err)
			return nil
		}
		return conn
	}
}

// AcceptConns adapts a Lifecycle to a ConnFactory, for a Handler that needs
// both (e.g. a factory that picks a Lifecycle per era). log receives the
// reason a Conn was refused (nil means slog.Default()).
//
// The Handler calls a factory once the first message of the session or
// request is readable from t, which is what lets Accept run inside it. t
// is a jsonrpc2.MessageReader: Accept (through jsonrpc2.Receive) and then
// the Conn take the message as the Handler decoded it. A read of Accept's
// that would wait for a further message fails at once instead.
func AcceptConns(srv Lifecycle, log *slog.Logger) ConnFactory {
	if log == nil {
		log = slog.Default()
	}
	return func(t jsonrpc2.Transport, era Era) *jsonrpc2.Conn {
		if era == EraModern {
			conn, err := srv.Dispatcher(t)
			if err != nil {
				log.Error("lifecycle refused to serve modern requests", "error", err)
				return nil
			}
			return conn
		}
		conn, err := srv.Accept(acceptCtx, t)
		if err != nil {
			log.Error("lifecycle refused a "+era.String()+" connection", "error", err)
			return nil
		}
		return conn
	}
}

// errUndecided is what Accept reads when the first message did not settle
// the era: on HTTP nothing else will arrive before it is answered.
var errUndecided = errors.New("streamhttp: the lifecycle layer did not accept the first message of the session or request")

type acceptKey struct{}

// acceptCtx is the context Accept reads with. The Handler's transports hold
// the message of the session or request when the factory runs, and any
// further message only comes after the Conn exists, so a read with this
// context that would wait fails at once with errUndecided instead. The
// Conn reads with its own context and waits as usual.
var acceptCtx = context.WithValue(context.Background(), acceptKey{}, true)

// accepting reports whether ctx is acceptCtx (or derived from it).
func accepting(ctx context.Context) bool { return ctx.Value(acceptKey{}) != nil }
