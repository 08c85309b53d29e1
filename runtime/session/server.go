package session

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"slices"
	"sync"

	"github.com/mcpgen/mcpgen/internal/jsonscan"
	"github.com/mcpgen/mcpgen/runtime/jsonrpc2"
)

// Lifecycle methods the session answers itself unless the implementation
// or WithHandler provides them.
const (
	MethodInitialize  = "initialize"
	MethodInitialized = "notifications/initialized"
	MethodPing        = "ping"
	MethodSetLevel    = "logging/setLevel"
	MethodDiscover    = "server/discover"
)

// Server serves one implementation of a generated Server interface to
// clients of every revision it is given. Build it with the generated
// package's NewServer, which supplies the revision data and registration.
type Server struct {
	info         Implementation
	base         Revision
	legacy       []Revision // legacy revisions served, newest first
	register     func(*jsonrpc2.Conn)
	provided     map[string]bool
	instructions string
	logger       *slog.Logger
	connOpts     []jsonrpc2.Option
	overrides    map[string]jsonrpc2.Handler
	extraCaps    map[string]json.RawMessage
}

// ServerOption configures a Server.
type ServerOption func(*Server)

// WithLegacy adds legacy revisions (mcp20251125.Revision(), …) that the
// server also serves through initialize, for a dual-era server whose base
// revision is modern.
func WithLegacy(revs ...Revision) ServerOption {
	return func(s *Server) { s.legacy = append(s.legacy, revs...) }
}

// WithInstructions sets the instructions of the initialize and
// server/discover results.
func WithInstructions(text string) ServerOption { return func(s *Server) { s.instructions = text } }

// WithLogger sets where handler failures are logged (with their detail,
// which the peer never sees). The Conn's own logger is derived from it at
// Warn, so nothing is logged at Info unless WithConnOptions says so.
// The default is slog.Default().
func WithLogger(l *slog.Logger) ServerOption { return func(s *Server) { s.logger = l } }

// WithConnOptions adds runtime options (observer, timeouts, logger) to
// every Conn the server builds. The Policy is the session's to choose.
func WithConnOptions(opts ...jsonrpc2.Option) ServerOption {
	return func(s *Server) { s.connOpts = append(s.connOpts, opts...) }
}

// WithHandler replaces the session's answer to a lifecycle method
// (initialize, ping, logging/setLevel, server/discover) or any other.
func WithHandler(method string, h jsonrpc2.Handler) ServerOption {
	return func(s *Server) { s.overrides[method] = h }
}

// WithCapability adds (or replaces) a server capability, e.g.
// WithCapability("experimental", json.RawMessage(`{"x":{}}`)).
func WithCapability(name string, value json.RawMessage) ServerOption {
	return func(s *Server) { s.extraCaps[name] = value }
}

// NewServer returns a Server for base, the revision whose Server interface
// the implementation provides. register installs the implementation's
// typed handlers on a Conn; provided lists the methods the implementation
// really provides (see Provided). Generated packages call it.
func NewServer(info Implementation, base Revision, register func(*jsonrpc2.Conn), provided []string, opts ...ServerOption) *Server {
	s := &Server{info: info, base: base, register: register, provided: map[string]bool{},
		overrides: map[string]jsonrpc2.Handler{}, extraCaps: map[string]json.RawMessage{}}
	for _, m := range provided {
		s.provided[m] = true
	}
	for _, o := range opts {
		o(s)
	}
	if !base.Modern {
		s.legacy = append([]Revision{base}, s.legacy...)
	}
	slices.SortStableFunc(s.legacy, func(a, b Revision) int { return -compareVersion(a.Version, b.Version) })
	if s.logger == nil {
		s.logger = slog.Default()
	}
	return s
}

func compareVersion(a, b string) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// SupportedVersions lists the protocol versions the server speaks, newest
// first.
func (s *Server) SupportedVersions() []string {
	var out []string
	if s.base.Modern {
		out = append(out, s.base.Version)
	}
	for _, r := range s.legacy {
		out = append(out, r.Version)
	}
	return out
}

func (s *Server) legacyRevision(v string) (Revision, bool) {
	for _, r := range s.legacy {
		if r.Version == v {
			return r, true
		}
	}
	return Revision{}, false
}

// negotiate picks the version to answer initialize with: the client's when
// supported, else the newest legacy one (lifecycle.mdx).
func (s *Server) negotiate(requested string) (Revision, bool) {
	if r, ok := s.legacyRevision(requested); ok {
		return r, true
	}
	if len(s.legacy) == 0 {
		return Revision{}, false
	}
	return s.legacy[0], true
}

// Serve runs one connection over t until the peer goes away, ctx ends or
// the connection fails, then closes it and waits for its handlers.
func (s *Server) Serve(ctx context.Context, t jsonrpc2.Transport) error {
	conn, err := s.Accept(ctx, t)
	if err != nil {
		t.Close()
		if errors.Is(err, jsonrpc2.ErrTransportClosed) || errors.Is(err, io.EOF) || errors.Is(err, context.Canceled) {
			return nil
		}
		return err
	}
	runErr := conn.Run(ctx)
	closeErr := conn.Close(context.WithoutCancel(ctx))
	if runErr != nil && !errors.Is(runErr, context.Canceled) {
		return runErr
	}
	if closeErr != nil && !errors.Is(closeErr, context.Canceled) {
		return closeErr
	}
	return nil
}

// Accept reads t until the client's era is known (an initialize request
// selects legacy, a request with modern _meta selects modern), answering
// ping and unsupported versions itself meanwhile, then returns a started
// Conn with the era's Policy and the lifecycle installed. The messages it
// read are replayed to the Conn. This is the seam for other transports:
// an HTTP handler calls it per legacy session or per modern request.
func (s *Server) Accept(ctx context.Context, t jsonrpc2.Transport) (*jsonrpc2.Conn, error) {
	rt := &replayTransport{}
	var pol jsonrpc2.Policy
	initFirst := false
	for decided := false; !decided; {
		msg, err := t.Read(ctx)
		if err != nil {
			return nil, err
		}
		m, derr := jsonrpc2.DecodeMessage(msg)
		if derr != nil || m.Kind != jsonrpc2.KindRequest {
			rt.pending = append(rt.pending, msg) // the Conn answers or drops it
			if len(rt.pending) < 64 {
				continue
			}
		}
		switch {
		case m != nil && m.Kind == jsonrpc2.KindRequest && m.Method == MethodInitialize:
			var p struct {
				ProtocolVersion string `json:"protocolVersion"`
			}
			_ = json.Unmarshal(m.Params, &p)
			initFirst = true
			if r, ok := s.negotiate(p.ProtocolVersion); ok {
				pol = r.Policy(jsonrpc2.SideServer)
			} else {
				pol = s.base.Policy(jsonrpc2.SideServer)
			}
		case m != nil && m.Kind == jsonrpc2.KindRequest && m.Method == MethodPing && jsonscan.Member(m.Params, "_meta") == nil:
			if err := t.Write(ctx, response(m.ID, json.RawMessage(`{}`), nil)); err != nil {
				return nil, err
			}
			continue
		case m != nil && m.Kind == jsonrpc2.KindRequest:
			if v, ok := metaString(m.Params, MetaProtocolVersion); ok && s.base.Modern && !s.supportsModern(v) {
				if err := t.Write(ctx, response(m.ID, nil, s.unsupported(v))); err != nil {
					return nil, err
				}
				continue
			}
			pol = s.base.Policy(jsonrpc2.SideServer)
		default:
			pol = s.base.Policy(jsonrpc2.SideServer)
		}
		rt.pending = append(rt.pending, msg)
		decided = true
	}
	opts := append([]jsonrpc2.Option{jsonrpc2.WithLogger(atLeast(s.logger, slog.LevelWarn))}, s.connOpts...)
	opts = append(opts, jsonrpc2.WithPolicy(pol))
	conn := jsonrpc2.NewConn(replaying(t, rt.pending), opts...)
	s.bind(conn, initFirst)
	conn.Start()
	return conn, nil
}

func (s *Server) supportsModern(v string) bool { return s.base.Modern && v == s.base.Version }

// unsupported is UnsupportedProtocolVersionError (versioning.mdx).
func (s *Server) unsupported(requested string) *jsonrpc2.Error {
	return &jsonrpc2.Error{Code: CodeUnsupportedProtocolVersion, Message: "Unsupported protocol version",
		Data: mustJSON(map[string]any{"supported": s.SupportedVersions(), "requested": requested})}
}

func response(id jsonrpc2.RequestID, result json.RawMessage, e *jsonrpc2.Error) []byte {
	msg := map[string]any{"jsonrpc": "2.0", "id": id}
	if e != nil {
		msg["error"] = e
	} else {
		msg["result"] = result
	}
	return mustJSON(msg)
}

// connState is one connection's lifecycle state.
type connState struct {
	srv  *Server
	conn *jsonrpc2.Conn
	log  *slog.Logger // s.logger through the Conn's dispatch queue: never blocks a handler

	mu     sync.Mutex
	legacy *LegacyContext // set by initialize

	// initDone is closed when the initialize that was read first has been
	// handled (nil when the connection did not start with one). Requests a
	// client pipelines behind initialize run concurrently with it; they
	// wait for it rather than being refused for a race the client did not
	// lose on the wire.
	initDone chan struct{}
}

// awaitInitialize waits, while ctx lasts, for the first initialize to be
// handled, and returns the legacy context it set.
func (st *connState) awaitInitialize(ctx context.Context) (LegacyContext, bool) {
	if lc, ok := st.legacyContext(); ok || st.initDone == nil {
		return lc, ok
	}
	select {
	case <-st.initDone:
	case <-ctx.Done():
	}
	return st.legacyContext()
}

func (st *connState) legacyContext() (LegacyContext, bool) {
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.legacy == nil {
		return LegacyContext{}, false
	}
	return *st.legacy, true
}

// bind installs the implementation and the lifecycle on conn.
func (s *Server) bind(conn *jsonrpc2.Conn, initFirst bool) {
	st := &connState{srv: s, conn: conn, log: conn.QueuedLogger(s.logger)}
	if initFirst {
		st.initDone = make(chan struct{})
	}
	s.register(conn)
	lifecycle := map[string]jsonrpc2.Handler{
		MethodPing:     func(context.Context, *jsonrpc2.Request) (any, error) { return json.RawMessage(`{}`), nil },
		MethodSetLevel: st.setLevel,
	}
	if s.base.Modern {
		lifecycle[MethodDiscover] = st.discover
	}
	for method, h := range lifecycle {
		if !s.provided[method] {
			conn.Handle(method, h)
		}
	}
	for method, h := range s.overrides {
		conn.Handle(method, h)
	}
	for method := range s.base.ServerMethods {
		if method == MethodInitialize {
			continue
		}
		if h := conn.Handler(method); h != nil {
			conn.Handle(method, st.wrap(method, h))
		}
	}
	if _, ok := s.base.ServerMethods[MethodDiscover]; !ok && s.base.Modern {
		conn.Handle(MethodDiscover, st.wrap(MethodDiscover, conn.Handler(MethodDiscover)))
	}
	init := st.initialize
	if h, ok := s.overrides[MethodInitialize]; ok {
		init = st.recordInitialize(h)
	} else if s.provided[MethodInitialize] {
		init = st.recordInitialize(conn.Handler(MethodInitialize))
	}
	if st.initDone != nil {
		var once sync.Once
		first := init
		init = func(ctx context.Context, req *jsonrpc2.Request) (any, error) {
			defer once.Do(func() { close(st.initDone) })
			return first(ctx, req)
		}
	}
	conn.Handle(MethodInitialize, init)
	if s.base.Modern {
		// Legacy-only requests have no modern handler; the session answers
		// those it owns, the rest get -32601.
		conn.Handle(MethodPing, lifecycle[MethodPing])
		if h, ok := s.overrides[MethodPing]; ok {
			conn.Handle(MethodPing, h)
		}
		if h, ok := s.overrides[MethodSetLevel]; ok {
			conn.Handle(MethodSetLevel, h)
		} else {
			conn.Handle(MethodSetLevel, st.setLevel)
		}
	}
	conn.HandleNotification(MethodInitialized, func(context.Context, *jsonrpc2.Notification) {})
}

// capabilities are derived from what the implementation provides.
func (s *Server) capabilities() json.RawMessage {
	caps := map[string]json.RawMessage{"logging": json.RawMessage(`{}`)}
	for method, c := range s.base.Capabilities {
		if s.provided[method] {
			caps[c] = json.RawMessage(`{}`)
		}
	}
	for k, v := range s.extraCaps {
		caps[k] = v
	}
	return mustJSON(caps)
}

type initializeParams struct {
	ProtocolVersion string          `json:"protocolVersion"`
	Capabilities    json.RawMessage `json:"capabilities"`
	ClientInfo      json.RawMessage `json:"clientInfo"`
}

func (st *connState) initialize(ctx context.Context, req *jsonrpc2.Request) (any, error) {
	var p initializeParams
	if err := json.Unmarshal(req.Params, &p); err != nil || p.ProtocolVersion == "" {
		return nil, jsonrpc2.ErrInvalidParams("initialize: protocolVersion is required")
	}
	r, ok := st.srv.negotiate(p.ProtocolVersion)
	if !ok {
		// versioning.mdx: a modern-only server SHOULD name the versions it
		// supports in its answer to initialize.
		e := st.srv.unsupported(p.ProtocolVersion)
		e.Message = fmt.Sprintf("initialize is not supported: this server speaks %v", st.srv.SupportedVersions())
		return nil, e
	}
	st.mu.Lock()
	st.legacy = &LegacyContext{Version: r.Version, ClientInfo: p.ClientInfo, ClientCapabilities: p.Capabilities}
	st.mu.Unlock()
	res := map[string]any{
		"protocolVersion": r.Version,
		"capabilities":    st.srv.capabilities(),
		"serverInfo":      st.srv.info,
	}
	if st.srv.instructions != "" {
		res["instructions"] = st.srv.instructions
	}
	return mustJSON(res), nil
}

// recordInitialize runs a user-provided initialize and records the
// version it answered with, so the rest of the lifecycle follows it.
func (st *connState) recordInitialize(h jsonrpc2.Handler) jsonrpc2.Handler {
	return func(ctx context.Context, req *jsonrpc2.Request) (any, error) {
		res, err := h(ctx, req)
		if err != nil {
			return res, err
		}
		b, merr := json.Marshal(res)
		if merr != nil {
			return res, err
		}
		var out struct {
			ProtocolVersion string `json:"protocolVersion"`
		}
		_ = json.Unmarshal(b, &out)
		var p initializeParams
		_ = json.Unmarshal(req.Params, &p)
		st.mu.Lock()
		st.legacy = &LegacyContext{Version: out.ProtocolVersion, ClientInfo: p.ClientInfo, ClientCapabilities: p.Capabilities}
		st.mu.Unlock()
		return res, nil
	}
}

func (st *connState) setLevel(ctx context.Context, req *jsonrpc2.Request) (any, error) {
	var p struct {
		Level string `json:"level"`
	}
	if err := json.Unmarshal(req.Params, &p); err != nil || levelRank(p.Level) < 0 {
		return nil, jsonrpc2.ErrInvalidParams("logging/setLevel: unknown level")
	}
	st.mu.Lock()
	if st.legacy != nil {
		st.legacy.LogLevel = p.Level
	}
	st.mu.Unlock()
	return json.RawMessage(`{}`), nil
}

func (st *connState) discover(ctx context.Context, req *jsonrpc2.Request) (any, error) {
	res := map[string]any{
		"_meta":             map[string]any{MetaServerInfo: st.srv.info},
		"supportedVersions": st.srv.SupportedVersions(),
		"capabilities":      st.srv.capabilities(),
		"cacheScope":        "public",
		"ttlMs":             0,
		"resultType":        "complete",
	}
	if st.srv.instructions != "" {
		res["instructions"] = st.srv.instructions
	}
	return mustJSON(res), nil
}
