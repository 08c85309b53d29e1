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
}

// Adopt returns a started Conn over t serving a legacy session whose
// initialize was handled elsewhere (another replica, which recorded st in a
// shared store): the Conn has the Policy of st.Version and the lifecycle
// installed, and its requests see st as if initialize had been handled on
// it. Nothing is read from t before the Conn starts. It fails for a
// version the server does not serve in the legacy era.
func (s *Server) Adopt(ctx context.Context, t jsonrpc2.Transport, st LegacyState) (*jsonrpc2.Conn, error) {
	rev, ok := s.legacyRevision(st.Version)
	if !ok {
		return nil, fmt.Errorf("session: Adopt: %q is not a legacy version this server serves (%v)", st.Version, s.SupportedVersions())
	}
	opts := append([]jsonrpc2.Option{jsonrpc2.WithLogger(atLeast(s.logger, slog.LevelWarn))}, s.connOpts...)
	opts = append(opts, jsonrpc2.WithPolicy(answersPing(rev.Policy(jsonrpc2.SideServer))))
	lc := &LegacyContext{Version: st.Version, ClientInfo: st.ClientInfo, ClientCapabilities: st.ClientCapabilities, LogLevel: st.LogLevel}
	conn, cs := s.newConn(t, opts, false, lc)
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

// SetLegacyLogLevel sets the logging/setLevel level of the legacy session
// served by conn (a Conn Accept or Adopt returned), for a level another
// replica accepted. It reports whether conn is such a session.
func (s *Server) SetLegacyLogLevel(conn *jsonrpc2.Conn, level string) bool {
	s.hub.mu.Lock()
	st := s.hub.legacy[conn]
	s.hub.mu.Unlock()
	if st == nil {
		return false
	}
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.legacy == nil {
		return false
	}
	st.legacy.LogLevel = level
	return true
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
// streams and subscriptions/listen streams) exactly as a local one is. A
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
