package session

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"log/slog"

	"github.com/mcpgen/mcpgen/runtime/cluster"
	"github.com/mcpgen/mcpgen/runtime/jsonrpc2"
)

// This file holds the session's part in running several replicas of one
// server (runtime/cluster): serving a legacy session another replica
// initialized (Adopt), and fanning change notifications out to the clients
// of every replica (WithBus).

// LegacyState is the negotiated state of a legacy (≤ 2025-11-25) session, as
// a shared session store keeps it (cluster.SessionRecord): what a replica
// needs to serve the session's requests without having seen its
// initialize.
type LegacyState struct {
	// Version is the protocol version initialize answered with.
	Version string
	// ClientInfo and ClientCapabilities are initialize's clientInfo and
	// capabilities, as sent.
	ClientInfo         json.RawMessage
	ClientCapabilities json.RawMessage
	// LogLevel is the level set with logging/setLevel ("" when unset).
	LogLevel string
	// ResourceSubscriptions are the URIs of the session's
	// resources/subscribe requests that succeeded (and were not
	// unsubscribed). With WithBus the session delivers
	// notifications/resources/updated for them (NotifyResourceUpdated).
	ResourceSubscriptions []string
}

// Adopt returns a started Conn over t serving a legacy session whose
// initialize was handled elsewhere (another replica, which recorded st in a
// shared store): the Conn has the Policy of st.Version and the lifecycle
// installed, and its requests see st as if initialize had been handled on
// it. Nothing is read from t before the Conn starts. It fails for a
// version the server does not serve in the legacy era. As for Accept, the
// Conn's handlers see ctx's values, not its cancellation.
func (s *Server) Adopt(ctx context.Context, t jsonrpc2.Transport, st LegacyState) (*jsonrpc2.Conn, error) {
	rev, ok := s.legacyRevision(st.Version)
	if !ok {
		return nil, fmt.Errorf("session: Adopt: %q is not a legacy version this server serves (%v)", st.Version, s.SupportedVersions())
	}
	opts := append([]jsonrpc2.Option{jsonrpc2.WithBaseContext(ctx), jsonrpc2.WithLogger(atLeast(s.logger, slog.LevelWarn))}, s.connOpts...)
	opts = append(opts, jsonrpc2.WithPolicy(answersPing(rev.Policy(jsonrpc2.SideServer))))
	lc := &LegacyContext{Version: st.Version, ClientInfo: st.ClientInfo, ClientCapabilities: st.ClientCapabilities, LogLevel: st.LogLevel}
	conn, cs := s.newConn(t, opts, false, lc)
	cs.setSubscriptions(st.ResourceSubscriptions)
	for _, setup := range s.connSetup {
		if err := setup(conn); err != nil {
			conn.Close(context.WithoutCancel(ctx))
			return nil, fmt.Errorf("session: conn setup: %w", err)
		}
	}
	s.hub.addLegacy(conn, cs)
	conn.Start()
	return conn, nil
}

// RefreshLegacy brings the legacy session served by conn (a Conn Accept or
// Adopt returned) up to date with st, for changes another replica accepted:
// the log level and the resource subscriptions (the negotiated version and
// client data never change). It reports whether conn is such a session.
func (s *Server) RefreshLegacy(conn *jsonrpc2.Conn, st LegacyState) bool {
	s.hub.mu.Lock()
	cs := s.hub.legacy[conn]
	s.hub.mu.Unlock()
	if cs == nil {
		return false
	}
	cs.mu.Lock()
	if cs.legacy == nil {
		cs.mu.Unlock()
		return false
	}
	cs.legacy.LogLevel = st.LogLevel
	cs.mu.Unlock()
	cs.setSubscriptions(st.ResourceSubscriptions)
	return true
}

func (st *connState) setSubscriptions(uris []string) {
	st.mu.Lock()
	defer st.mu.Unlock()
	st.subs = map[string]bool{}
	for _, u := range uris {
		st.subs[u] = true
	}
}

// trackSubscription records a legacy resources/subscribe or unsubscribe
// that succeeded (WithBus only: a single server leaves legacy
// subscriptions to the implementation, as before).
func (st *connState) trackSubscription(ctx context.Context, req *jsonrpc2.Request, next jsonrpc2.Handler) (any, error) {
	res, err := next(ctx, req)
	if err != nil {
		return res, err
	}
	var p struct {
		URI string `json:"uri"`
	}
	if json.Unmarshal(req.Params, &p) == nil && p.URI != "" {
		st.mu.Lock()
		if st.subs == nil {
			st.subs = map[string]bool{}
		}
		if req.Method == methodSubscribe {
			st.subs[p.URI] = true
		} else {
			delete(st.subs, p.URI)
		}
		st.mu.Unlock()
	}
	return res, err
}

const (
	methodSubscribe   = "resources/subscribe"
	methodUnsubscribe = "resources/unsubscribe"
)

// subscribed reports whether the legacy session st subscribed to uri.
func (st *connState) subscribed(uri string) bool {
	st.mu.Lock()
	defer st.mu.Unlock()
	return st.subs[uri]
}

// Subjects of the notifications fanned out between replicas (WithBus):
// NotifySubjectPrefix + "list_changed.<kind>" and
// NotifySubjectPrefix + "resources_updated".
const NotifySubjectPrefix = "mcp.notify."

// fanout is a change announced on the bus: which replica raised it (so it
// is not delivered twice there) and what changed.
type fanout struct {
	Origin string `json:"origin"`
	Kind   string `json:"kind,omitempty"` // list_changed: tools, prompts, resources
	URI    string `json:"uri,omitempty"`  // resources/updated
}

// WithBus makes the server one replica of several: NotifyListChanged and
// NotifyResourceUpdated also publish the change on bus (subjects under
// NotifySubjectPrefix), and changes the other replicas publish are
// delivered to this server's own subscribers (legacy sessions' standalone
// streams and subscriptions/listen streams) exactly as a local one is.
// With it the session also tracks legacy resources/subscribe and
// resources/unsubscribe that the implementation accepted
// (LegacyState.ResourceSubscriptions, kept in the shared record by
// streamhttp) and NotifyResourceUpdated delivers
// notifications/resources/updated to those legacy sessions too, on every
// replica: the implementation then must not send them itself. A
// change is delivered once on each replica: the one that raised it delivers
// it directly and ignores its own copy from the bus. The subscription lasts
// as long as the bus does (closing the bus, or its NATS connection, ends
// it). A failed subscription is logged (WithLogger) and leaves the server
// local.
func WithBus(bus cluster.Bus) ServerOption {
	return func(s *Server) { s.bus = bus }
}

// joinBus subscribes to the other replicas' changes (NewServer, once the
// options are applied).
func (s *Server) joinBus() {
	if s.bus == nil {
		return
	}
	var b [12]byte
	_, _ = rand.Read(b[:])
	s.origin = hex.EncodeToString(b[:])
	_, err := s.bus.Subscribe(NotifySubjectPrefix+">", func(subject string, data []byte) {
		var f fanout
		if err := json.Unmarshal(data, &f); err != nil {
			s.logger.Warn("session: malformed change notification from the bus ignored", "subject", subject, "error", err)
			return
		}
		if f.Origin == s.origin {
			return // delivered locally when it was raised
		}
		var err error
		switch subject {
		case NotifySubjectPrefix + "resources_updated":
			err = s.deliverResourceUpdated(f.URI)
		default:
			err = s.deliverListChanged(f.Kind)
		}
		if err != nil {
			s.logger.Debug("session: change from another replica not delivered to every stream", "subject", subject, "error", err)
		}
	})
	if err != nil {
		s.logger.Error("session: cannot subscribe to the other replicas' changes; notifications stay local", "error", err)
		s.bus = nil
	}
}

// publish announces a change to the other replicas (best effort: a bus
// that refuses it is logged; local delivery has happened already).
func (s *Server) publish(subject string, f fanout) {
	if s.bus == nil {
		return
	}
	f.Origin = s.origin
	if err := s.bus.Publish(context.Background(), subject, mustJSON(f)); err != nil {
		s.logger.Warn("session: change not published to the other replicas", "subject", subject, "error", err)
	}
}
