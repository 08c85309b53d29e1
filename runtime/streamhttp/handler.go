package streamhttp

import (
	"container/list"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"log/slog"
	"mime"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/mcpgen/mcpgen/runtime/cluster"
	"github.com/mcpgen/mcpgen/runtime/jsonrpc2"
	"github.com/mcpgen/mcpgen/runtime/session"
)

// connFactory builds the jsonrpc2.Conn that serves t: one per legacy
// session, and one for the whole modern era, over a t that carries nothing
// (jsonrpc2.NoTransport): every modern request is handed to that Conn with
// jsonrpc2.Conn.Deliver, its answer going to the request's own stream. The
// Handler starts and closes it. Returning nil refuses the session, or the
// modern requests, with 500. NewHandler builds it from a Lifecycle; tests
// build Conns of their own.
type connFactory func(values context.Context, t jsonrpc2.Transport, era Era) *jsonrpc2.Conn

// Options configures a Handler. The zero value is usable: every limit then
// has the default documented on its field.
type Options struct {
	// AllowedOrigins lists the Origin header values accepted (exact match,
	// "*" for any). When empty, only loopback origins (localhost, 127.0.0.0/8,
	// [::1], any port) are accepted, which is what a local server needs
	// against DNS rebinding. Requests without Origin are always accepted
	// (they do not come from a browser). Others get 403.
	AllowedOrigins []string
	// AllowAnyHost turns off the DNS-rebinding check on Host: by default a
	// request that reached a loopback address with a Host header that is
	// not a loopback name or address gets 403 (a browser tricked by DNS
	// rebinding sends the attacker's host name).
	AllowAnyHost bool
	// MaxBodyBytes bounds one POST body (default 4 MiB); larger gets 413.
	MaxBodyBytes int64
	// MaxBodyBudget bounds the bytes of all request bodies being read at
	// once (default 64 MiB; negative disables, with the three limits
	// below), so that many clients each sending just under MaxBodyBytes
	// and stalling cannot take the memory: a body whose bytes would go
	// beyond it gets 503 (with Retry-After). A body of known length
	// (Content-Length) takes its bytes when its reading starts.
	MaxBodyBudget int64
	// SmallBodyBytes is the size up to which a body is small (default
	// 64 KiB, at most MaxBodyBytes). Small bodies may use all of
	// MaxBodyBudget; larger ones all but SmallBodyReserve, so however many
	// large bodies stall, an ordinary request (a tools/call is a few
	// hundred bytes) is still read at once.
	SmallBodyBytes int64
	// SmallBodyReserve is the part of MaxBodyBudget that only small bodies
	// may hold (default a quarter of it; negative: none). A large body
	// that would take the large bodies being read beyond the rest gets
	// 503.
	SmallBodyReserve int64
	// MaxClientBodyBytes bounds the bytes of one client's large bodies
	// being read at once (default a quarter of MaxBodyBudget less
	// SmallBodyReserve, at least MaxBodyBytes; negative: no bound), so that
	// one client cannot take the large bodies' budget from the others; one
	// client's small bodies may hold a quarter of SmallBodyReserve (at
	// least one small body). Beyond its share a body gets 429 (with
	// Retry-After). ClientKey says who a client is.
	MaxClientBodyBytes int64
	// ClientKey names the client a request comes from, for
	// MaxClientBodyBytes. Nil, or "" returned: the authenticated identity
	// (SessionOwner, which runtime/auth sets) when the request has one,
	// else the remote IP address (of IPv6, its /64). Never the connection:
	// a client opens as many as it likes. Set it behind a reverse proxy,
	// where every client has the proxy's address (to the client address
	// the proxy forwards, from a proxy you trust).
	ClientKey func(r *http.Request) string
	// BodyReadTimeout bounds reading one request body (default 10 s;
	// negative disables); a client that stalls gets 408. It replaces the
	// http.Server's ReadTimeout for the body, and clears the read deadline
	// once the body is read, so a long response stream is not cut by it.
	BodyReadTimeout time.Duration
	// MaxSessions bounds live legacy sessions (default 1024). When an
	// initialize finds the cap reached, a session gives way, so that no
	// client can lock the others out: the oldest session that has not
	// completed its handshake (no notifications/initialized), else the
	// least recently active session with no request in flight (an open GET
	// stream does not count: a held GET stream must not keep a session
	// alive against the cap). Only when every session has a request in
	// flight does initialize get 503. With Sessions (replicas) it is this
	// replica's bound on the copies of sessions it holds, not a bound on the
	// cluster's sessions: a copy that gave way is adopted again from the
	// store on its session's next request (docs/replicas.md, "Limits").
	MaxSessions int
	// HandshakeTimeout ends a legacy session that has not sent
	// notifications/initialized this long after its initialize (default
	// 10 s; negative disables).
	HandshakeTimeout time.Duration
	// MaxOrphans bounds, over all sessions, the legacy requests whose
	// client connection went away before their answer (default 1024). In
	// the legacy era a disconnect is not a cancellation: their handlers run
	// on, and a resumable stream keeps what they send. Beyond the bound the
	// oldest orphan is given up: its handler is cancelled (source "local",
	// a reason that says why) and its stream's events dropped.
	MaxOrphans int
	// OrphanGrace is how long an orphaned legacy request waits for its
	// client to resume its stream (GET with Last-Event-ID) before it is
	// given up as above (default 60 s).
	OrphanGrace time.Duration
	// EventStore keeps the events of legacy SSE streams for resumption
	// (Last-Event-ID). Nil means a NewMemoryEventStore with its default
	// bounds (32 MiB in all, 4 MiB per stream). Modern (2026-07-28)
	// streams are never resumable and never stored.
	EventStore EventStore
	// DisableResumption turns off event ids, priming events and retry on
	// legacy streams (EventStore is then unused).
	DisableResumption bool
	// SSERetry is the retry field sent on legacy SSE streams: how long a
	// client waits before resuming a broken stream (default 1 s).
	SSERetry time.Duration
	// MaxStreams bounds open response and GET streams, over all sessions and
	// modern requests (default 4096); beyond it a request gets 503.
	MaxStreams int
	// MaxSessionStreams bounds the open streams of one legacy session (its
	// POST response streams and its GET stream; default 256), so one
	// client cannot take every slot of MaxStreams; beyond it a request of
	// that session gets 503.
	MaxSessionStreams int
	// SessionIdleTimeout ends a legacy session with no open stream and no
	// request for this long (default 30 minutes; negative disables).
	SessionIdleTimeout time.Duration
	// KeepAlive is the interval of SSE comment lines on quiet streams
	// (default 15 s; negative disables).
	KeepAlive time.Duration
	// WriteTimeout bounds each write to a client, so a client that stops
	// reading cannot stall a session (default 30 s; negative disables).
	WriteTimeout time.Duration
	// ShutdownTimeout bounds how long a finished request's or session's
	// Conn.Close waits for handlers that ignore their context (default 10 s).
	// ListenAndServe also gives running requests this long to finish when
	// it drains on SIGTERM (Handler.Drain's grace).
	ShutdownTimeout time.Duration
	// Revisions are the data of the revisions served (the generated
	// mcpYYYYMMDD.Revision() of each): which versions each era serves
	// unless ModernVersions or LegacyVersions say otherwise, and the
	// headers, Mcp-Name members, lifecycle methods, removed methods and SSE
	// priming of each. Required: NewHandler and ListenAndServe
	// take them from a *session.Server (its Revisions) when nil; otherwise
	// none is ErrNoRevisions, since streamhttp has no revision facts of its
	// own.
	Revisions []session.Revision
	// ModernVersions and LegacyVersions are the revisions served, latest
	// first. Nil means those of Revisions (Versions); an empty non-nil
	// slice disables the era.
	ModernVersions []string
	LegacyVersions []string
	// ParamHeaders returns the x-mcp-header annotations of a tool, for the
	// Mcp-Param-* validation of modern tools/call requests. Nil skips that
	// check (no tool then has custom headers).
	ParamHeaders func(tool string) []ParamHeader
	// SSEResponses answers every request with an SSE stream, even one with
	// nothing before its response (by default such a response is plain
	// JSON). Useful behind proxies that treat the two differently.
	SSEResponses bool
	// Logger receives transport-level logs (default slog.Default()).
	Logger *slog.Logger

	// Authorize, when set, admits each decoded POST message before it
	// reaches a session or a Conn (runtime/auth's ResourceServer.Authorize
	// enforces scopes per method and tool there). It returns false when it
	// has answered the request itself (403): a refused message then costs no
	// session, no handler and no task.
	Authorize func(w http.ResponseWriter, r *http.Request, m *jsonrpc2.Message) bool
	// SessionOwner, when set, names the requestor of an HTTP request (for
	// runtime/auth: the verified token's issuer and subject). A legacy
	// session is bound to the owner of its initialize; a request naming the
	// session with another owner gets the same 404 as an unknown session,
	// so it learns nothing about it.
	SessionOwner func(r *http.Request) string

	// Sessions, when set, keeps the state of legacy sessions where every
	// replica of the server reads it (runtime/cluster; natscluster for
	// NATS), so any replica serves any request of a session without
	// balancer affinity: the record is created before the initialize
	// response carrying Mcp-Session-Id goes out, updated on
	// notifications/initialized and logging/setLevel, and a replica that
	// does not hold a session builds its local copy from it (Adopt). Nil
	// keeps sessions in this process only.
	Sessions cluster.SessionStore
	// Bus carries what the replicas of a cluster tell each other: a
	// notifications/cancelled that names a request running on another
	// replica, and the end of a session (DELETE), so that every replica
	// drops its local copy. Nil with Sessions set means no forwarding
	// (one replica reading a shared store); without Sessions it is unused.
	// Change notifications (list_changed, resources/updated) are the
	// session layer's: give the same bus to session.WithBus.
	Bus cluster.Bus
	// Replica names this replica in logs and SessionRecord.Replica
	// (default: a random name).
	Replica string
	// CancelWindow is how long a replica keeps a cancellation from the bus
	// whose request it does not (yet) run: a request POSTed to it that
	// arrives within the window is cancelled at once (its POST and the
	// cancel's POST raced through the balancer). Default 5 s.
	CancelWindow time.Duration
	// ActiveInterval bounds how stale a session's LastActive in Sessions
	// may be: a replica serving a session writes it at most this often
	// (default SessionIdleTimeout/4, at most 1 minute), not on every POST.
	// A session idle on one replica is ended only once the store also shows
	// it idle for SessionIdleTimeout; otherwise only the local copy goes.
	ActiveInterval time.Duration
}

func (o Options) withDefaults() Options {
	if o.MaxBodyBytes <= 0 {
		o.MaxBodyBytes = 4 << 20
	}
	if o.MaxSessions <= 0 {
		o.MaxSessions = 1024
	}
	if o.MaxBodyBudget == 0 {
		o.MaxBodyBudget = 64 << 20
	}
	if o.BodyReadTimeout == 0 {
		o.BodyReadTimeout = 10 * time.Second
	}
	if o.SmallBodyBytes <= 0 {
		o.SmallBodyBytes = 64 << 10
	}
	o.SmallBodyBytes = min(o.SmallBodyBytes, o.MaxBodyBytes)
	if o.SmallBodyReserve == 0 {
		o.SmallBodyReserve = max(o.MaxBodyBudget, 0) / 4
	}
	if o.MaxClientBodyBytes == 0 {
		o.MaxClientBodyBytes = max((o.MaxBodyBudget-max(o.SmallBodyReserve, 0))/4, o.MaxBodyBytes)
	}
	if o.HandshakeTimeout == 0 {
		o.HandshakeTimeout = 10 * time.Second
	}
	if o.MaxOrphans <= 0 {
		o.MaxOrphans = 1024
	}
	if o.OrphanGrace <= 0 {
		o.OrphanGrace = time.Minute
	}
	if o.SSERetry <= 0 {
		o.SSERetry = time.Second
	}
	if o.EventStore == nil && !o.DisableResumption {
		o.EventStore = NewMemoryEventStore(0, 0)
	}
	if o.MaxStreams <= 0 {
		o.MaxStreams = 4096
	}
	if o.MaxSessionStreams <= 0 {
		o.MaxSessionStreams = 256
	}
	if o.SessionIdleTimeout == 0 {
		o.SessionIdleTimeout = 30 * time.Minute
	}
	if o.KeepAlive == 0 {
		o.KeepAlive = 15 * time.Second
	}
	if o.WriteTimeout == 0 {
		o.WriteTimeout = 30 * time.Second
	}
	if o.ShutdownTimeout <= 0 {
		o.ShutdownTimeout = 10 * time.Second
	}
	if o.ModernVersions == nil {
		o.ModernVersions = Versions(o.Revisions, EraModern)
	}
	if o.LegacyVersions == nil {
		o.LegacyVersions = Versions(o.Revisions, EraLegacy)
	}
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	return o
}

// Handler serves MCP's Streamable HTTP on one endpoint, both eras at once.
// Close it to end every session and wait for the Conns it started.
type Handler struct {
	newConn connFactory
	// adoptConn builds the Conn of a legacy session another replica
	// initialized (Lifecycle.Adopt); nil refuses.
	adoptConn func(values context.Context, t jsonrpc2.Transport, st session.LegacyState) *jsonrpc2.Conn
	// disp serves every modern request (Conn.Deliver); built on first use.
	disp     *jsonrpc2.Conn
	dispOnce sync.Once
	opts     Options
	log      *slog.Logger
	ctx      context.Context
	cancel   context.CancelFunc
	streams  chan struct{} // semaphore of open streams

	mu       sync.Mutex
	sessions map[string]*legacySession
	closed   bool
	waiting  bool // Close is in bg.Wait: no more bg.Add
	janitor  bool

	bg sync.WaitGroup // Conn closes and the janitor

	store  EventStore // nil: no resumption
	bodies bodyPool   // request bodies being read now (body.go)

	omu     sync.Mutex
	orphans list.List // of *orphan, oldest first

	// share is what the legacy sessions share with other replicas
	// (share.go, cluster.go); refresh applies another replica's changes to
	// a session (session.Server.RefreshLegacy).
	share   sessionShare
	refresh func(*jsonrpc2.Conn, session.LegacyState) bool

	dr drainState // Drain (drain.go)
}

// newHandler returns a Handler whose Conns newConn builds.
func newHandler(newConn connFactory, opts Options) *Handler {
	if len(opts.Revisions) == 0 {
		panic(ErrNoRevisions)
	}
	opts = opts.withDefaults()
	ctx, cancel := context.WithCancel(context.Background())
	h := &Handler{
		newConn:  newConn,
		opts:     opts,
		log:      opts.Logger,
		ctx:      ctx,
		cancel:   cancel,
		streams:  make(chan struct{}, opts.MaxStreams),
		sessions: map[string]*legacySession{},
		store:    opts.EventStore,
	}
	h.share = newShare(h)
	return h
}

// NewHTTPServer returns an http.Server for h with the timeouts a public-facing
// MCP endpoint needs: ReadHeaderTimeout against slow-header clients, and no
// WriteTimeout (SSE streams are long; Options.WriteTimeout bounds each write
// instead).
func NewHTTPServer(addr string, h http.Handler) *http.Server {
	return &http.Server{
		Addr:              addr,
		Handler:           h,
		ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout:       time.Minute,
		IdleTimeout:       2 * time.Minute,
		MaxHeaderBytes:    64 << 10,
	}
}

// Sessions returns the number of live legacy sessions.
func (h *Handler) Sessions() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return len(h.sessions)
}

// Close ends every session and open stream, then waits (until ctx ends) for
// the Conns to close. Requests arriving afterwards get 503.
func (h *Handler) Close(ctx context.Context) error {
	h.mu.Lock()
	h.closed = true
	all := make([]*legacySession, 0, len(h.sessions))
	for _, s := range h.sessions {
		all = append(all, s)
	}
	h.mu.Unlock()
	h.share.close()
	for _, s := range all {
		h.endSession(s, "server closing") // local copies only: the other replicas serve on
	}
	h.cancel()
	h.dispOnce.Do(func() {}) // none is built from now on; one being built is waited for
	if disp := h.disp; disp != nil {
		// Its handlers were cancelled with the streams; it closes like a
		// session's Conn, bounded by ShutdownTimeout.
		h.background(func() {
			cctx, cancel := context.WithTimeout(context.Background(), h.opts.ShutdownTimeout)
			defer cancel()
			if err := disp.Close(cctx); err != nil {
				h.log.Warn("modern request handlers still running after close", "error", err)
			}
		})
	}
	h.mu.Lock()
	h.waiting = true
	h.mu.Unlock()
	done := make(chan struct{})
	go func() { h.bg.Wait(); close(done) }()
	select {
	case <-done:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// ServeHTTP implements http.Handler.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if !h.originOK(r.Header.Get("Origin")) {
		h.log.Warn("request from a disallowed origin refused", "origin", r.Header.Get("Origin"))
		writeError(w, http.StatusForbidden, jsonrpc2.RequestID{}, jsonrpc2.CodeInvalidRequest, "Forbidden: origin not allowed", nil)
		return
	}
	if !h.opts.AllowAnyHost && !hostOK(r) {
		h.log.Warn("request with a non-loopback Host on a loopback address refused", "host", r.Host)
		writeError(w, http.StatusForbidden, jsonrpc2.RequestID{}, jsonrpc2.CodeInvalidRequest, "Forbidden: host not allowed", nil)
		return
	}
	if h.isClosed() {
		w.Header().Set("Retry-After", "1") // nothing ran: another replica may take it
		w.Header().Set("Connection", "close")
		writeError(w, http.StatusServiceUnavailable, jsonrpc2.RequestID{}, jsonrpc2.CodeInternalError, "server is shutting down", nil)
		return
	}
	if h.drainGate(w, r) {
		return
	}
	switch r.Method {
	case http.MethodPost:
		h.post(w, r)
	case http.MethodGet:
		h.get(w, r)
	case http.MethodDelete:
		h.delete(w, r)
	default:
		w.Header().Set("Allow", "GET, POST, DELETE")
		writeError(w, http.StatusMethodNotAllowed, jsonrpc2.RequestID{}, jsonrpc2.CodeInvalidRequest, "method not allowed", nil)
	}
}

// background runs f on a goroutine that Close waits for; once Close has
// started waiting, f runs on the caller's goroutine instead, since a
// WaitGroup must not grow during Wait.
func (h *Handler) background(f func()) {
	h.mu.Lock()
	if h.waiting {
		h.mu.Unlock()
		f()
		return
	}
	h.bg.Add(1)
	h.mu.Unlock()
	go func() {
		defer h.bg.Done()
		f()
	}()
}

// enter counts a request that will build a Conn, so that Close waits for
// it and for the Conn's close, or reports false once Close has begun. The
// count is taken under mu before Close marks the Handler closed, which keeps
// every Add from zero ahead of Close's Wait.
func (h *Handler) enter() bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.closed {
		return false
	}
	h.bg.Add(1)
	return true
}

func (h *Handler) isClosed() bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.closed
}

func (h *Handler) legacyEnabled() bool { return len(h.opts.LegacyVersions) > 0 }
func (h *Handler) modernEnabled() bool { return len(h.opts.ModernVersions) > 0 }

func (h *Handler) originOK(origin string) bool {
	if origin == "" {
		return true
	}
	if len(h.opts.AllowedOrigins) > 0 {
		return slices.Contains(h.opts.AllowedOrigins, origin) || slices.Contains(h.opts.AllowedOrigins, "*")
	}
	u, err := url.Parse(origin)
	if err != nil || u.Host == "" {
		return false
	}
	host := u.Hostname()
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// hostOK applies the Host check: only for requests that arrived on a
// loopback address, where any legitimate client names a loopback host.
func hostOK(r *http.Request) bool {
	local, ok := r.Context().Value(http.LocalAddrContextKey).(net.Addr)
	if !ok {
		return true
	}
	tcp, ok := local.(*net.TCPAddr)
	if !ok || !tcp.IP.IsLoopback() {
		return true
	}
	return isLoopbackHost(r.Host)
}

func isLoopbackHost(hostport string) bool {
	host := hostport
	if h, _, err := net.SplitHostPort(hostport); err == nil {
		host = h
	}
	host = strings.Trim(host, "[]")
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

func (h *Handler) post(w http.ResponseWriter, r *http.Request) {
	if ct := r.Header.Get("Content-Type"); ct != "application/json" && !isJSONMediaType(ct) {
		writeError(w, http.StatusUnsupportedMediaType, jsonrpc2.RequestID{}, jsonrpc2.CodeInvalidRequest, "Content-Type must be application/json", nil)
		return
	}
	if json, sse := accepts(r.Header.Values("Accept")); !json || !sse {
		writeError(w, http.StatusNotAcceptable, jsonrpc2.RequestID{}, jsonrpc2.CodeInvalidRequest, "Accept must list application/json and text/event-stream", nil)
		return
	}
	data, ok := h.readBody(w, r)
	if !ok {
		return
	}
	if !utf8.Valid(data) {
		// Never rewritten to U+FFFD: a string the client did not send
		// would reach the handler. Outside strings invalid UTF-8 is
		// invalid JSON anyway, so this is the strings' check.
		writeError(w, http.StatusBadRequest, jsonrpc2.RequestID{}, jsonrpc2.CodeParseError, "parse error: the message is not valid UTF-8", nil)
		return
	}
	m, derr := jsonrpc2.DecodeMessage(data)
	if derr != nil {
		var id jsonrpc2.RequestID
		if m != nil && m.Kind == jsonrpc2.KindRequest {
			id = m.ID
		}
		writeError(w, http.StatusBadRequest, id, derr.Code, derr.Message, nil)
		return
	}
	if !h.drainAdmit(w, r, m) {
		return
	}
	defer h.drainDone(m)
	if h.opts.Authorize != nil && !h.opts.Authorize(w, r, m) {
		return
	}
	version := r.Header.Get(HeaderProtocolVersion)
	p, paramsOK := peekParams(m.Params)
	metaVersion, hasMeta := p.metaVersion(h.opts.ModernVersions)
	modern := h.modernEnabled() && (slices.Contains(h.opts.ModernVersions, version) || hasMeta ||
		(version != "" && !slices.Contains(h.opts.LegacyVersions, version) && m.Method != session.MethodInitialize))
	if !modern && h.legacyEnabled() {
		sid := r.Header.Get(HeaderSessionID)
		switch {
		case sid != "":
			s, err := h.lookupFor(r, sid)
			if s == nil {
				writeNoSession(w, requestID(m), err)
				return
			}
			h.legacyPost(w, r, s, m, data)
		case m.Kind == jsonrpc2.KindRequest && m.Method == session.MethodInitialize:
			h.legacyInit(w, r, m, data)
		default:
			writeError(w, http.StatusBadRequest, requestID(m), jsonrpc2.CodeInvalidRequest, "Bad Request: Mcp-Session-Id header is required", nil)
		}
		return
	}
	if !h.modernEnabled() {
		writeError(w, http.StatusBadRequest, requestID(m), jsonrpc2.CodeInvalidRequest, "unsupported protocol version", nil)
		return
	}
	h.modernPost(w, r, m, data, version, metaVersion, hasMeta, p, paramsOK)
}

func requestID(m *jsonrpc2.Message) jsonrpc2.RequestID {
	if m.Kind == jsonrpc2.KindRequest {
		return m.ID
	}
	return jsonrpc2.RequestID{}
}

// acceptStream takes a slot of the stream semaphore, or answers 503.
func (h *Handler) acceptStream(w http.ResponseWriter, id jsonrpc2.RequestID) bool {
	select {
	case h.streams <- struct{}{}:
		return true
	default:
		w.Header().Set("Retry-After", "1")
		writeError(w, http.StatusServiceUnavailable, id, jsonrpc2.CodeInternalError, "too many open streams", nil)
		return false
	}
}

func (h *Handler) releaseStream() { <-h.streams }

// acceptSessionStream takes a slot of session s's stream semaphore and of
// the Handler's, or answers 503.
func (h *Handler) acceptSessionStream(w http.ResponseWriter, s *legacySession, id jsonrpc2.RequestID) bool {
	select {
	case s.streams <- struct{}{}:
	default:
		w.Header().Set("Retry-After", "1")
		writeError(w, http.StatusServiceUnavailable, id, jsonrpc2.CodeInternalError, "too many open streams in this session", nil)
		return false
	}
	if !h.acceptStream(w, id) {
		<-s.streams
		return false
	}
	return true
}

func (h *Handler) releaseSessionStream(s *legacySession) {
	<-s.streams
	h.releaseStream()
}

// wait keeps ServeHTTP alive while st is open, sending keep-alives. It
// reports whether the client went away while the stream was still open.
func (h *Handler) wait(r *http.Request, st *stream, ended <-chan struct{}) (clientGone bool) {
	var tick <-chan time.Time
	if h.opts.KeepAlive > 0 {
		t := keepAliveTicker(h.opts.KeepAlive)
		defer releaseTicker(t)
		tick = t.C
	}
	done, gen := st.watch()
	for {
		select {
		case <-done:
			return false
		case <-r.Context().Done():
			// A resumable (legacy SSE) stream is detached, not ended: the
			// client may come back with Last-Event-ID.
			_, open := st.detach(gen)
			return open
		case <-h.ctx.Done():
			st.abort()
			return false
		case <-ended:
			st.abort()
			return false
		case <-tick:
			st.keepAlive()
		}
	}
}

// keepAliveTickers holds stopped tickers for wait: every request waits
// with one, and most end long before it ticks, so a fresh ticker each
// time (three allocations) would be a tenth of a modern round trip's.
// Since Go 1.23 a stopped or reset ticker delivers no stale tick, so a
// reused one behaves as a new one.
var keepAliveTickers sync.Pool

// keepAliveTicker returns a ticker of period d, reused when one is free.
func keepAliveTicker(d time.Duration) *time.Ticker {
	if t, ok := keepAliveTickers.Get().(*time.Ticker); ok {
		t.Reset(d)
		return t
	}
	return time.NewTicker(d)
}

// releaseTicker stops t and keeps it for the next wait.
func releaseTicker(t *time.Ticker) {
	t.Stop()
	keepAliveTickers.Put(t)
}

// isJSONMediaType reports whether a Content-Type names application/json
// (with parameters, in any case); the exact value, what clients send, is
// checked before without parsing.
func isJSONMediaType(ct string) bool {
	mt, _, err := mime.ParseMediaType(ct)
	return err == nil && mt == "application/json"
}

// accepts reports whether an Accept header admits JSON and SSE.
func accepts(values []string) (json, sse bool) {
	if len(values) == 1 {
		// What clients send, recognised without parsing.
		switch values[0] {
		case "application/json, text/event-stream", "text/event-stream, application/json":
			return true, true
		}
	}
	for _, v := range values {
		for _, part := range strings.Split(v, ",") {
			mt, _, err := mime.ParseMediaType(strings.TrimSpace(part))
			if err != nil {
				continue
			}
			switch mt {
			case "*/*":
				json, sse = true, true
			case "application/json", "application/*":
				json = true
			case "text/event-stream", "text/*":
				sse = true
			}
		}
	}
	return json, sse
}

// errorBody encodes a JSON-RPC error response; id may be zero (null).
func errorBody(id jsonrpc2.RequestID, code int, msg string, data any) []byte {
	type errObj struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
		Data    any    `json:"data,omitempty"`
	}
	var idv any
	if !id.IsZero() {
		idv = id
	}
	b, _ := json.Marshal(struct {
		JSONRPC string `json:"jsonrpc"`
		ID      any    `json:"id"`
		Error   errObj `json:"error"`
	}{"2.0", idv, errObj{code, msg, data}})
	return b
}

func writeError(w http.ResponseWriter, status int, id jsonrpc2.RequestID, code int, msg string, data any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(errorBody(id, code, msg, data))
}

func newSessionID() string {
	var b [24]byte
	_, _ = rand.Read(b[:]) // crypto/rand.Read never fails (Go 1.24)
	return hex.EncodeToString(b[:])
}
