package session

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"slices"
	"sync"
	"time"

	"github.com/mcpgen/mcpgen/runtime/cluster"
	"github.com/mcpgen/mcpgen/runtime/internal/jsonscan"
	"github.com/mcpgen/mcpgen/runtime/jsonrpc2"
	"github.com/mcpgen/mcpgen/runtime/logsink"
)

// Lifecycle methods the session answers itself, whatever the
// implementation has; WithHandler or an interceptor replaces its answers.
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
	register     func(*jsonrpc2.Conn) []string
	provided     map[string]bool // the methods register installs
	wrapped      map[string]bool // the methods whose handlers see the session's view of the request
	removed      map[string]bool // methods of the legacy revisions the modern base does not have
	hub          hub             // open subscriptions/listen streams and legacy connections
	stateKey     []byte          // signs requestState (WithRequestStateKey, else random)
	instructions string
	logger       *slog.Logger
	connOpts     []jsonrpc2.Option
	connSetup    []func(*jsonrpc2.Conn) error
	overrides    map[string]jsonrpc2.Handler
	extraCaps    map[string]json.RawMessage
	legacyCaps   map[string]legacyCap       // initialize only
	extensions   map[string]json.RawMessage // server/discover's capabilities.extensions
	interceptors []jsonrpc2.Interceptor
	shutdown     time.Duration // WithShutdownGrace; 0 means DefaultShutdownGrace
	bus          cluster.Bus   // WithBus: changes fan out to the other replicas
	origin       string        // this Server on the bus (its own changes are not delivered twice)
}

// DefaultShutdownGrace bounds how long Serve waits, once the connection has
// ended (peer EOF after the runtime's EOF grace, Serve's ctx ended, or the
// transport failed), for the handlers it cancelled to return and for the
// logger and observer to be handed what is queued for them. A handler that
// ignores its ctx is then left running and Serve returns an error saying
// so; the runtime has already logged it by then, once, with its method and
// id (jsonrpc2.DefaultCancelGrace, 1 s, is shorter). So Serve returns at
// most this long after its ctx ends, and at most jsonrpc2.DefaultEOFGrace
// plus this long after the peer's input ends.
const DefaultShutdownGrace = 2 * time.Second

// WithShutdownGrace sets Serve's shutdown bound (see DefaultShutdownGrace).
// Zero means DefaultShutdownGrace; a negative d waits for every handler,
// however long it runs.
func WithShutdownGrace(d time.Duration) ServerOption { return func(s *Server) { s.shutdown = d } }

// ServerOption configures a Server.
type ServerOption func(*Server)

// WithLegacy adds legacy revisions (mcp20251125.Revision(), …) that the
// server also serves through initialize, for a dual-era server whose base
// revision is modern.
func WithLegacy(revs ...Revision) ServerOption {
	return func(s *Server) { s.legacy = append(s.legacy, revs...) }
}

// WithRequestStateKey sets the key that signs the requestState of
// InputRequiredResults (HMAC-SHA256), so that a client cannot forge or
// alter the answers it carries. The default is a random key per Server,
// which is right for one process; servers behind a load balancer, where a
// retry may reach another process, share a key of at least 32 random
// bytes.
func WithRequestStateKey(key []byte) ServerOption {
	return func(s *Server) { s.stateKey = slices.Clone(key) }
}

// WithInstructions sets the instructions of the initialize and
// server/discover results.
func WithInstructions(text string) ServerOption { return func(s *Server) { s.instructions = text } }

// WithLogger sets where handler failures are logged (with their detail,
// which the peer never sees). The Conn's own logger is derived from it at
// Warn, so nothing is logged at Info unless WithConnOptions says so.
// The default is slog.Default().
func WithLogger(l *slog.Logger) ServerOption { return func(s *Server) { s.logger = l } }

// atLeast returns l restricted to records at min or above, so the
// runtime's Info lines (cancellations) stay quiet unless asked for.
func atLeast(l *slog.Logger, min slog.Level) *slog.Logger {
	return slog.New(logsink.AtLeast(l.Handler(), min))
}

// WithConnOptions adds runtime options (observer, timeouts, logger) to
// every Conn the server builds. The Policy is the session's to choose.
func WithConnOptions(opts ...jsonrpc2.Option) ServerOption {
	return func(s *Server) { s.connOpts = append(s.connOpts, opts...) }
}

// WithConnSetup runs setup on every Conn the server builds, after the
// implementation's handlers are registered and before the Conn starts: the
// place to attach what needs the Conn itself, such as a tasks.Manager
// (tasks.WithTasks does that and declares its capabilities). What setup adds with Conn.Intercept sits inside the
// session's and the user's interceptors. An error fails Accept.
func WithConnSetup(setup func(*jsonrpc2.Conn) error) ServerOption {
	return func(s *Server) { s.connSetup = append(s.connSetup, setup) }
}

// WithHandler replaces the session's answer to a lifecycle method
// (initialize, ping, logging/setLevel, server/discover) or any other: it
// answers method in place of the session and of the implementation. The
// session still records the version an initialize handler answers with.
func WithHandler(method string, h jsonrpc2.Handler) ServerOption {
	return func(s *Server) { s.overrides[method] = h }
}

// WithCapability adds (or replaces) a server capability, e.g.
// WithCapability("experimental", json.RawMessage(`{"x":{}}`)).
func WithCapability(name string, value json.RawMessage) ServerOption {
	return func(s *Server) { s.extraCaps[name] = value }
}

// legacyCap is a capability declared to legacy clients of the revisions
// when accepts.
type legacyCap struct {
	when  func(Revision) bool
	value json.RawMessage
}

// WithLegacyCapability adds a capability to the initialize result only, for
// legacy clients whose negotiated revision when accepts (nil: every legacy
// revision): one the modern era does not have and older revisions do not
// know, such as "tasks" for revisions with Revision.CoreTasks (2026-07-28
// moved tasks into an extension). It is a predicate on the revision's data
// rather than a version, because the session compares no version strings:
// what a revision has comes with its generated Revision.
func WithLegacyCapability(name string, value json.RawMessage, when func(Revision) bool) ServerOption {
	return func(s *Server) { s.legacyCaps[name] = legacyCap{when: when, value: value} }
}

// WithExtension declares an extension to modern clients: id in
// capabilities.extensions of the server/discover result, with its settings
// ({} when it defines none), e.g. the Tasks extension
// "io.modelcontextprotocol/tasks".
func WithExtension(id string, settings json.RawMessage) ServerOption {
	return func(s *Server) { s.extensions[id] = settings }
}

// WithInterceptors adds interceptors around every request and notification
// the server's connections receive and every call and notification they
// send (see jsonrpc2.Interceptor; the first given is the outermost). They
// sit inside the session's view of the request and outside its lifecycle:
// they see every request, initialize, ping, logging/setLevel and
// server/discover included, with a ctx the session helpers
// (ProtocolVersion, Log, Input…) work with and, for a legacy client of a
// modern server, the params already mapped to the modern form; an error
// they return goes through the session's error policy; answering without
// calling next replaces the session's (or the implementation's) answer.
// The order is: the session's view, these interceptors, the session's
// lifecycle, the interceptors of WithConnOptions and of layers that add
// them to the Conn later (the task manager), the implementation.
func WithInterceptors(ics ...jsonrpc2.Interceptor) ServerOption {
	return func(s *Server) { s.interceptors = append(s.interceptors, ics...) }
}

// NewServer returns a Server for base, the revision whose ServerHandler
// interface the implementation implements (in part). register installs the
// implementation's typed handlers on a Conn and returns the methods it
// installed; NewServer calls it once with a nil Conn, on which it installs
// nothing and only lists them, to derive the capabilities: those of the
// methods listed (Revision.Capabilities), logging (which the session
// answers) and WithCapability's. Generated packages call it.
func NewServer(info Implementation, base Revision, register func(*jsonrpc2.Conn) []string, opts ...ServerOption) *Server {
	s := &Server{info: info, base: base, register: register, provided: map[string]bool{},
		overrides: map[string]jsonrpc2.Handler{}, extraCaps: map[string]json.RawMessage{},
		legacyCaps: map[string]legacyCap{}, extensions: map[string]json.RawMessage{}}
	for _, m := range register(nil) {
		s.provided[m] = true
	}
	for _, o := range opts {
		o(s)
	}
	if !base.Modern {
		s.legacy = append([]Revision{base}, s.legacy...)
	}
	slices.SortStableFunc(s.legacy, func(a, b Revision) int { return -compareVersion(a.Version, b.Version) })
	rememberVersions(append([]Revision{base}, s.legacy...)...)
	s.wrapped = s.wrappedMethods()
	s.removed = s.removedMethods()
	if s.logger == nil {
		s.logger = slog.Default()
	}
	if len(s.stateKey) == 0 {
		s.stateKey = make([]byte, 32)
		_, _ = rand.Read(s.stateKey) // crypto/rand.Read never fails (Go 1.24)
	}
	s.joinBus()
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

// Revisions returns the data of the revisions the server speaks, newest
// first (a modern base revision, then the legacy ones: the base revision
// and WithLegacy's), in SupportedVersions' order. Transports take what
// they need of each revision from these (streamhttp.NewHandler).
func (s *Server) Revisions() []Revision {
	var out []Revision
	if s.base.Modern {
		out = append(out, s.base)
	}
	return append(out, s.legacy...)
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
// the connection fails, then closes it and waits for its handlers, for at
// most the shutdown grace (WithShutdownGrace, DefaultShutdownGrace): Serve
// returns within that grace of ctx ending, whatever its handlers do.
func (s *Server) Serve(ctx context.Context, t jsonrpc2.Transport) error {
	return s.serve(ctx, t, s.shutdown)
}

// serve is Serve with the shutdown bound given (0: DefaultShutdownGrace,
// negative: unbounded), so ServeStdio can take its own.
func (s *Server) serve(ctx context.Context, t jsonrpc2.Transport, grace time.Duration) error {
	conn, err := s.Accept(ctx, t)
	if err != nil {
		t.Close()
		if errors.Is(err, jsonrpc2.ErrTransportClosed) || errors.Is(err, io.EOF) || errors.Is(err, context.Canceled) || ctx.Err() != nil {
			return nil
		}
		return err
	}
	runErr := conn.Run(ctx)
	closeCtx, cancel := context.WithoutCancel(ctx), context.CancelFunc(func() {})
	if grace == 0 {
		grace = DefaultShutdownGrace
	}
	if grace > 0 {
		closeCtx, cancel = context.WithTimeout(closeCtx, grace)
	}
	closeErr := conn.Close(closeCtx)
	cancel()
	if runErr != nil && !errors.Is(runErr, context.Canceled) {
		return runErr
	}
	if errors.Is(closeErr, context.DeadlineExceeded) {
		return fmt.Errorf("%w: still running %v after the connection ended (they ignore their cancelled context): %w", ErrShutdownGrace, grace, closeErr)
	}
	if closeErr != nil && !errors.Is(closeErr, context.Canceled) {
		return closeErr
	}
	return nil
}

// Accept reads t until the client's era is known (an initialize request
// selects legacy, a request with modern _meta selects modern), answering
// ping and unsupported versions itself meanwhile, then returns a started
// Conn with the era's Policy and the lifecycle installed. It reads with
// jsonrpc2.Receive, so a transport that decodes (Streamable HTTP) hands it
// decoded messages, and the messages it read go to the Conn as they are
// (jsonrpc2.WithReceived): each is decoded once. This is the seam for other
// transports: an HTTP handler calls it per legacy session or per modern
// request.
//
// The Conn's handlers see ctx's values (an HTTP session's: those of the
// request that opened it, its verified identity), not its cancellation:
// ctx bounds the reading done here, and a jsonrpc2.WithBaseContext among
// the Server's Conn options replaces it.
func (s *Server) Accept(ctx context.Context, t jsonrpc2.Transport) (*jsonrpc2.Conn, error) {
	var read []jsonrpc2.Received // for the Conn, in order
	var pol jsonrpc2.Policy
	initFirst := false
	for decided := false; !decided; {
		r, err := jsonrpc2.Receive(ctx, t)
		if err != nil {
			return nil, err
		}
		m := r.Msg
		if r.Err != nil || m.Kind != jsonrpc2.KindRequest {
			// The Conn answers or drops it. A peer that sends nothing but
			// these gets the base revision's Policy after maxUndecided.
			read = append(read, r)
			if len(read) >= maxUndecided {
				pol, decided = s.base.Policy(jsonrpc2.SideServer), true
			}
			continue
		}
		switch {
		case m.Method == MethodInitialize:
			var p struct {
				ProtocolVersion string `json:"protocolVersion"`
			}
			_ = json.Unmarshal(m.Params, &p)
			initFirst = true
			if rev, ok := s.negotiate(p.ProtocolVersion); ok {
				pol = rev.Policy(jsonrpc2.SideServer)
			} else {
				pol = s.base.Policy(jsonrpc2.SideServer)
			}
		case m.Method == MethodPing && jsonscan.Member(m.Params, "_meta") == nil:
			if err := t.Write(ctx, response(m.ID, json.RawMessage(`{}`), nil)); err != nil {
				return nil, err
			}
			continue
		default:
			if v, ok := metaString(m.Params, MetaProtocolVersion); ok && s.base.Modern && !s.supportsModern(v) {
				if err := t.Write(ctx, response(m.ID, nil, s.unsupported(v))); err != nil {
					return nil, err
				}
				continue
			}
			pol = s.base.Policy(jsonrpc2.SideServer)
		}
		read = append(read, r)
		decided = true
	}
	opts := append([]jsonrpc2.Option{jsonrpc2.WithBaseContext(ctx), jsonrpc2.WithLogger(atLeast(s.logger, slog.LevelWarn))}, s.connOpts...)
	opts = append(opts, jsonrpc2.WithPolicy(answersPing(pol)), jsonrpc2.WithReceived(read...))
	conn, st := s.newConn(t, opts, initFirst, nil)
	for _, setup := range s.connSetup {
		if err := setup(conn); err != nil {
			conn.Close(context.WithoutCancel(ctx))
			return nil, fmt.Errorf("session: conn setup: %w", err)
		}
	}
	if initFirst {
		// Before Start, so that a change announced once initialize is
		// answered reaches this session.
		s.hub.addLegacy(conn, st)
	}
	conn.Start()
	return conn, nil
}

// Dispatcher returns a started Conn over t that serves modern requests
// handed to it with jsonrpc2.Conn.Deliver: the one Conn of a Streamable
// HTTP server's modern era (2026-07-28), which reads every request in a
// POST of its own and so has nothing for Accept to read. It has the base
// revision's Policy, the session's view of each request, the
// interceptors, the lifecycle and the implementation's handlers, exactly
// as the Conn Accept builds for a modern first request; its per-request
// state is the request's own (_meta), so one Conn serves every client.
// The caller owns it: Close it when the transport shuts down. It fails for
// a Server whose base revision is not modern.
func (s *Server) Dispatcher(t jsonrpc2.Transport) (*jsonrpc2.Conn, error) {
	if !s.base.Modern {
		return nil, fmt.Errorf("session: Dispatcher: base revision %s is not modern (stateless)", s.base.Version)
	}
	pol := s.base.Policy(jsonrpc2.SideServer)
	opts := append([]jsonrpc2.Option{jsonrpc2.WithLogger(atLeast(s.logger, slog.LevelWarn))}, s.connOpts...)
	opts = append(opts, jsonrpc2.WithPolicy(answersPing(pol)))
	conn, _ := s.newConn(t, opts, false, nil)
	for _, setup := range s.connSetup {
		if err := setup(conn); err != nil {
			conn.Close(context.Background())
			return nil, fmt.Errorf("session: conn setup: %w", err)
		}
	}
	conn.Start()
	return conn, nil
}

// answersPing returns pol with ping as its LivenessMethod when the
// revision names none: the session answers ping in every era (a revision
// without ping, 2026-07-28, included, for now: issue 21), so ping keeps
// its admission past a full house whatever the revision.
func answersPing(pol jsonrpc2.Policy) jsonrpc2.Policy {
	if pol.LivenessMethod == "" {
		pol.LivenessMethod = MethodPing
	}
	return pol
}

// maxUndecided bounds the messages Accept holds before the era is known
// (notifications, responses, invalid messages: none of them decides it).
const maxUndecided = 64

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
	legacy *LegacyContext  // set by initialize
	subs   map[string]bool // legacy resources/subscribe URIs (WithBus only)

	// initDone is closed when the initialize that was read first has been
	// handled (nil when the connection did not start with one). Requests a
	// client pipelines behind initialize run concurrently with it; they
	// wait for it rather than being refused for a race the client did not
	// lose on the wire.
	initDone chan struct{}
	initOnce sync.Once
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

// wrappedMethods are the requests whose handlers see the session's view of
// the request (state, legacy mapping, MRTR, error policy): the methods of
// the base revision that have a handler (the implementation's, the
// session's lifecycle, WithHandler's), initialize aside, which the session
// records instead. A modern server answers ping and logging/setLevel (for
// legacy clients it maps) with no such view, as the modern revision has
// neither.
func (s *Server) wrappedMethods() map[string]bool {
	has := map[string]bool{MethodPing: true, MethodSetLevel: true}
	for m := range s.provided {
		has[m] = true
	}
	for m := range s.overrides {
		has[m] = true
	}
	w := map[string]bool{}
	for m := range s.base.ServerMethods {
		if has[m] && m != MethodInitialize {
			w[m] = true
		}
	}
	if s.base.HasLifecycle(MethodDiscover) {
		w[MethodDiscover] = true
	}
	if s.servesListen() {
		w[MethodSubscriptionsListen] = true
	}
	for _, m := range []string{MethodPing, MethodSetLevel} {
		if !s.base.HasLifecycle(m) {
			delete(w, m)
		}
	}
	return w
}

// newConn builds a Conn over t with the session installed: its view of
// each request and its lifecycle as interceptors (see WithInterceptors for
// the order), then the implementation's handlers. Nothing is read back
// from the Conn: the lifecycle is answered before the handler table is
// consulted, so the implementation can never shadow it.
//
// adopted, when not nil, is the state of a legacy session initialized
// elsewhere (Adopt): the Conn starts with it, as if its initialize had been
// handled here.
func (s *Server) newConn(t jsonrpc2.Transport, opts []jsonrpc2.Option, initFirst bool, adopted *LegacyContext) (*jsonrpc2.Conn, *connState) {
	st := &connState{srv: s, legacy: adopted}
	if initFirst {
		st.initDone = make(chan struct{})
	}
	ics := append([]jsonrpc2.Interceptor{{Request: st.intercept}}, s.interceptors...)
	ics = append(ics, jsonrpc2.Interceptor{Request: st.lifecycle}, jsonrpc2.Interceptor{Request: recoverHandler})
	conn := jsonrpc2.NewConn(t, append([]jsonrpc2.Option{jsonrpc2.WithInterceptors(ics...)}, opts...)...)
	st.conn, st.log = conn, conn.QueuedLogger(s.logger)
	s.register(conn)
	conn.HandleNotification(MethodInitialized, func(context.Context, *jsonrpc2.Notification) {})
	return conn, st
}

// lifecycle is the interceptor that answers the lifecycle (and the methods
// WithHandler replaces) before the implementation's handlers are reached.
func (st *connState) lifecycle(ctx context.Context, req *jsonrpc2.Request, next jsonrpc2.Handler) (any, error) {
	if h, ok := st.srv.overrides[req.Method]; ok {
		return h(ctx, req)
	}
	switch req.Method {
	case MethodInitialize:
		return st.initialize(ctx, req)
	case MethodPing:
		return json.RawMessage(`{}`), nil
	case MethodSetLevel:
		return st.setLevel(ctx, req)
	case MethodDiscover:
		if st.srv.base.HasLifecycle(MethodDiscover) {
			return st.discover(ctx, req)
		}
	case MethodSubscriptionsListen:
		if st.srv.servesListen() {
			return st.listen(ctx, req)
		}
	case methodSubscribe, methodUnsubscribe:
		if st.srv.bus != nil {
			if _, legacy := st.legacyContext(); legacy {
				return st.trackSubscription(ctx, req, next)
			}
		}
	}
	return next(ctx, req)
}

// initializing runs initialize (whoever answers it) and records the
// version it answered with, so the rest of the lifecycle follows it; the
// requests a client pipelined behind the first initialize wait for it.
func (st *connState) initializing(ctx context.Context, req *jsonrpc2.Request, next jsonrpc2.Handler) (any, error) {
	if st.initDone != nil {
		defer st.initOnce.Do(func() { close(st.initDone) })
	}
	res, err := next(ctx, req)
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

// capabilities are derived from what the implementation provides, for a
// legacy client's initialize (the version it negotiated) or a modern
// client's server/discover (modern).
func (s *Server) capabilities(version string, modern bool) json.RawMessage {
	caps := map[string]json.RawMessage{"logging": json.RawMessage(`{}`)}
	for method, c := range s.base.Capabilities {
		if s.provided[method] {
			caps[c] = json.RawMessage(`{}`)
		}
	}
	for k, v := range s.extraCaps {
		caps[k] = v
	}
	if !modern {
		rev, known := s.legacyRevision(version)
		for k, c := range s.legacyCaps {
			if c.when == nil || known && c.when(rev) {
				caps[k] = c.value
			}
		}
	} else if len(s.extensions) > 0 {
		ext := map[string]json.RawMessage{}
		_ = json.Unmarshal(caps["extensions"], &ext) // WithCapability's, if any
		for k, v := range s.extensions {
			ext[k] = v
		}
		caps["extensions"] = mustJSON(ext)
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
		return nil, jsonrpc2.NewInvalidParamsError("initialize: protocolVersion is required")
	}
	r, ok := st.srv.negotiate(p.ProtocolVersion)
	if !ok {
		// versioning.mdx: a modern-only server SHOULD name the versions it
		// supports in its answer to initialize.
		e := st.srv.unsupported(p.ProtocolVersion)
		e.Message = fmt.Sprintf("initialize is not supported: this server speaks %v", st.srv.SupportedVersions())
		return nil, e
	}
	res := map[string]any{
		"protocolVersion": r.Version,
		"capabilities":    st.srv.capabilities(r.Version, false),
		"serverInfo":      st.srv.info,
	}
	if st.srv.instructions != "" {
		res["instructions"] = st.srv.instructions
	}
	return mustJSON(res), nil
}

func (st *connState) setLevel(ctx context.Context, req *jsonrpc2.Request) (any, error) {
	var p struct {
		Level string `json:"level"`
	}
	if err := json.Unmarshal(req.Params, &p); err != nil || levelRank(p.Level) < 0 {
		return nil, jsonrpc2.NewInvalidParamsError("logging/setLevel: unknown level")
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
		"capabilities":      st.srv.capabilities(st.srv.base.Version, true),
		"cacheScope":        "public",
		"ttlMs":             0,
		"resultType":        "complete",
	}
	if st.srv.instructions != "" {
		res["instructions"] = st.srv.instructions
	}
	return mustJSON(res), nil
}
