package streamhttp

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"slices"
	"sync"
	"time"

	"github.com/mcpgen/mcpgen/runtime/internal/jsonscan"
	"github.com/mcpgen/mcpgen/runtime/jsonrpc2"
	"github.com/mcpgen/mcpgen/runtime/session"
)

// errNoStream is returned for a server-to-client request when the session
// has no open stream to carry it.
var errNoStream = errors.New("streamhttp: no open stream to the client (no request stream and no GET stream)")

// legacySession is one legacy session: the jsonrpc2.Transport of its Conn.
// Client messages arrive from POST handlers through in; the Conn's writes are
// routed to the stream each message belongs on, so each message goes on
// exactly one stream.
type legacySession struct {
	id string
	h  *Handler
	// owner is Options.SessionOwner of the initialize request; base holds
	// that request's values (not its cancellation) for the Conn's handlers.
	owner string
	base  context.Context
	in    chan inbound
	// streams is the semaphore of MaxSessionStreams.
	streams chan struct{}

	// ready is closed once conn is set (or the factory refused the
	// session). The Conn may already be writing while the factory runs (a
	// lifecycle layer starts it), so conn is read under mu.
	ready chan struct{}
	conn  *jsonrpc2.Conn

	closed    chan struct{}
	closeOnce sync.Once

	mu         sync.Mutex
	reqStreams map[jsonrpc2.RequestID]*stream // client requests awaiting their response
	outStreams map[jsonrpc2.RequestID]*stream // our requests, by the stream they went on
	get        *stream
	// ending holds the POST streams of requests the client cancelled that
	// still carry requests of ours (outStreams): each ends once the last
	// of those is answered or cancelled, so the notifications/cancelled
	// the handler's calls send for them go on the stream they belong to
	// before it ends (endCancelledStream, endIfDrained).
	ending     map[*stream]struct{}
	open       int // streams open now; a session with one is never idle
	reqOpen    int // POST streams open now: requests in flight
	lastActive time.Time

	created     time.Time
	initialized bool   // notifications/initialized arrived
	nextStream  uint64 // stream ids of the session's event logs
	// resumable holds, by stream id, the streams a GET with Last-Event-ID
	// can resume: detached (client gone, request pending or answer kept)
	// and lingering (answered, events kept a short while).
	resumable map[string]*stream
	orphans   map[jsonrpc2.RequestID]*orphan

	// Replicas (Options.Sessions; cluster.go). initID and initParams are
	// the session's initialize (its answer creates the record); recorded
	// is set once the record exists; storedActive is the LastActive last
	// written; changes are the logging/setLevel, resources/subscribe and
	// resources/unsubscribe requests in flight, by id.
	initID        jsonrpc2.RequestID
	initParams    json.RawMessage
	recorded      bool
	storedActive  time.Time
	activeWriting bool
	changes       map[jsonrpc2.RequestID]recordChange
}

// inbound is a client message on its way to the session's Conn.
type inbound struct {
	m    *jsonrpc2.Message // decoded by Handler.post
	data []byte
}

func newLegacySession(h *Handler) *legacySession {
	return &legacySession{
		id:         newSessionID(),
		h:          h,
		in:         make(chan inbound, 16),
		streams:    make(chan struct{}, h.opts.MaxSessionStreams),
		ready:      make(chan struct{}),
		closed:     make(chan struct{}),
		reqStreams: map[jsonrpc2.RequestID]*stream{},
		outStreams: map[jsonrpc2.RequestID]*stream{},
		lastActive: time.Now(),
		created:    time.Now(),
		resumable:  map[string]*stream{},
		orphans:    map[jsonrpc2.RequestID]*orphan{},
	}
}

// newLog returns the event log of a new stream of the session, or nil
// without resumption. version is the request's MCP-Protocol-Version: only
// clients of a revision with SSEPriming (2025-11-25 and later) get a
// priming event.
func (s *legacySession) newLog(version string) *eventLog {
	if s.h.store == nil {
		return nil
	}
	s.mu.Lock()
	s.nextStream++
	id := s.h.share.streamName(s.nextStream)
	s.mu.Unlock()
	return &eventLog{store: s.h.store, session: s.id, stream: id, retry: s.h.opts.SSERetry, priming: version != "" && revisionFor(s.h.opts.Revisions, version, false).SSEPriming}
}

// ReadMessage implements jsonrpc2.MessageReader: the client's messages as
// the Handler decoded them.
//
// Messages accepted before Close (their POST got 202) are still returned
// before io.EOF: a notifications/cancelled followed at once by DELETE must
// cancel with the client's reason, not be lost to the session's end.
func (s *legacySession) ReadMessage(ctx context.Context) (*jsonrpc2.Message, error) {
	in, err := s.next(ctx)
	return in.m, err
}

// Read implements jsonrpc2.Transport, for a reader that wants the bytes
// (the Conn reads through ReadMessage).
func (s *legacySession) Read(ctx context.Context) ([]byte, error) {
	in, err := s.next(ctx)
	return in.data, err
}

func (s *legacySession) next(ctx context.Context) (inbound, error) {
	select {
	case in := <-s.in:
		return in, nil
	default:
	}
	select {
	case in := <-s.in:
		return in, nil
	case <-s.closed:
		select {
		case in := <-s.in:
			return in, nil
		default:
			return inbound{}, io.EOF
		}
	case <-ctx.Done():
		return inbound{}, ctx.Err()
	}
}

// Close implements jsonrpc2.Transport: it ends the session's streams (their
// ServeHTTP calls return) and makes Read return io.EOF.
func (s *legacySession) Close() error {
	s.closeOnce.Do(func() { close(s.closed) })
	return nil
}

// writeLog is the logger for what Write logs. Write runs on the Conn's
// sender and handler goroutines, and a sender stuck in a log call would in
// the end stop the Conn's read loop, so it logs through the Conn's dispatch
// queue, which never blocks.
func (s *legacySession) writeLog() *slog.Logger {
	if c := s.getConn(); c != nil {
		return c.QueuedLogger(s.h.log)
	}
	return s.h.log
}

func (s *legacySession) getConn() *jsonrpc2.Conn {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.conn
}

// handlerDone reports whether ctx is the context of a handler that has been
// cancelled or has answered. Whatever such a handler still sends (a late
// progress notification) must not reach the wire: it could otherwise slip
// in before the runtime's own notifications/cancelled, or after the stream
// was meant to end.
func handlerDone(ctx context.Context) bool {
	_, ok := jsonrpc2.RequestFromContext(ctx)
	return ok && ctx.Err() != nil
}

// Write implements jsonrpc2.Transport by routing msg to its stream. The
// Conn writes its responses, notifications and requests described
// (WriteMessage); only what its sender queue writes (cancellations, error
// replies of the read loop) comes here as bytes, decoded to be routed.
func (s *legacySession) Write(ctx context.Context, msg []byte) error {
	if handlerDone(ctx) {
		return errStreamClosed
	}
	m, derr := jsonrpc2.DecodeMessage(msg)
	if derr != nil {
		return derr
	}
	o := jsonrpc2.OutMessage{Kind: m.Kind, ID: m.ID, Method: m.Method, Data: msg}
	if m.Error != nil {
		o.Code = m.Error.Code
	}
	if isCancellation(&o) {
		o.ID, _ = cancelRequestID(m.Params)
	}
	return s.route(ctx, &o)
}

// isCancellation reports whether m is a notifications/cancelled.
func isCancellation(m *jsonrpc2.OutMessage) bool {
	return m.Kind == jsonrpc2.KindNotification && m.Method == "notifications/cancelled"
}

// WriteMessage implements jsonrpc2.MessageWriter: a message the Conn
// describes, routed without decoding it (a cancellation the Conn wrote
// carries the id of the request it cancels).
func (s *legacySession) WriteMessage(ctx context.Context, m *jsonrpc2.OutMessage) error {
	if handlerDone(ctx) {
		return errStreamClosed
	}
	if isCancellation(m) && m.ID.IsZero() {
		// Not the Conn's own (a handler's Notify): read the id it names.
		o := *m
		o.ID, _ = cancelRequestID(jsonscan.Member(m.Data, "params"))
		m = &o
	}
	return s.route(ctx, m)
}

// route sends m on the stream it belongs to.
func (s *legacySession) route(ctx context.Context, m *jsonrpc2.OutMessage) error {
	msg := m.Data
	switch m.Kind {
	case jsonrpc2.KindResponse, jsonrpc2.KindErrorResponse:
		msg = s.h.share.response(s, m)
		s.mu.Lock()
		st := s.reqStreams[m.ID]
		delete(s.reqStreams, m.ID)
		s.mu.Unlock()
		s.answered(m.ID)
		if st == nil {
			s.writeLog().Debug("response dropped: its request's stream is gone", "session", s.id, "id", m.ID.String())
			return errStreamClosed
		}
		return st.send(msg, true)
	case jsonrpc2.KindRequest:
		st := s.streamFor(ctx)
		if st == nil {
			return errNoStream
		}
		s.mu.Lock()
		s.outStreams[m.ID] = st
		s.mu.Unlock()
		if err := st.send(msg, false); err != nil {
			s.mu.Lock()
			delete(s.outStreams, m.ID)
			s.mu.Unlock()
			return err
		}
		return nil
	case jsonrpc2.KindNotification:
		var st *stream
		var named jsonrpc2.RequestID // the request a cancellation names, if ours
		if isCancellation(m) {
			// The cancellation follows the request it names, so the client
			// sees it on the stream where that request arrived.
			st, named = s.outStreamOf(m.ID)
		}
		if st == nil {
			st = s.streamFor(ctx)
		}
		if st == nil {
			s.forgetOut(named)
			s.writeLog().Debug("notification dropped: no open stream", "session", s.id, "method", m.Method)
			return errStreamClosed
		}
		err := st.send(msg, false)
		if !named.IsZero() {
			// Only now, sent: until then the request's stream, if its own
			// request was cancelled, waited for this (endCancelledStream).
			if o := s.forgetOut(named); o != nil {
				s.endIfDrained(o)
			}
		}
		return err
	}
	return errors.New("streamhttp: refusing to write an invalid message")
}

// streamFor picks the stream for a server-initiated message: the stream of
// the client request whose handler sent it; the GET stream for messages not
// made by a handler. A handler whose stream has ended (answered, cancelled
// or dropped) gets nil: what it sends then must not appear anywhere.
func (s *legacySession) streamFor(ctx context.Context) *stream {
	s.mu.Lock()
	defer s.mu.Unlock()
	if req, ok := jsonrpc2.RequestFromContext(ctx); ok {
		if st := s.reqStreams[req.ID]; st != nil && !st.finished() {
			return st
		}
		return nil
	}
	if s.get != nil && !s.get.finished() {
		return s.get
	}
	return nil
}

// outStreamOf returns the stream for a cancellation of request rid: the one
// that request went on, else the GET stream; nil if neither is
// open. id is the request's when it is one of ours (in outStreams), which
// the caller removes once the cancellation is written (forgetOut).
func (s *legacySession) outStreamOf(rid jsonrpc2.RequestID) (st *stream, id jsonrpc2.RequestID) {
	if rid.IsZero() {
		return nil, id
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	st, ok := s.outStreams[rid]
	if !ok {
		return nil, id
	}
	if st != nil && st.finished() {
		st = s.get
		if st != nil && st.finished() {
			st = nil
		}
	}
	return st, rid
}

// forgetOut removes our request id from outStreams and returns the stream
// it went on; nil for a zero id or one not there.
func (s *legacySession) forgetOut(id jsonrpc2.RequestID) *stream {
	if id.IsZero() {
		return nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	st := s.outStreams[id]
	delete(s.outStreams, id)
	return st
}

// endCancelledStream ends the POST stream of a request the client has just
// cancelled. The Conn writes no response for a cancelled request, so without
// this the stream would stay open until the session ends; the client has
// given up on the answer, so ending it is safe even in the rare case the Conn
// ignores the cancellation (a cancel naming initialize, which the client must
// never send).
func (s *legacySession) endCancelledStream(params json.RawMessage) {
	var p struct {
		RequestID json.RawMessage `json:"requestId"`
	}
	if json.Unmarshal(params, &p) != nil || len(p.RequestID) == 0 {
		return
	}
	id, err := jsonrpc2.ParseRequestID(p.RequestID)
	if err != nil {
		return
	}
	s.mu.Lock()
	st := s.reqStreams[id]
	delete(s.reqStreams, id)
	carrying := st != nil && s.carriesLocked(st)
	if carrying {
		// The handler's requests on it are cancelled with it, and the
		// client must read those cancellations here: this stream may be
		// the only one it has (no GET stream). Removed from reqStreams,
		// it takes nothing else the handler sends.
		if s.ending == nil {
			s.ending = map[*stream]struct{}{}
		}
		s.ending[st] = struct{}{}
	}
	s.mu.Unlock()
	if st != nil && !carrying {
		st.abort()
	}
	s.h.releaseOrphanOf(s, id) // the Conn cancels it: the client's own reason
	s.h.share.done(s, id)
}

// carriesLocked reports whether st carries a request of ours still
// awaiting its answer. Called with mu held.
func (s *legacySession) carriesLocked(st *stream) bool {
	for _, o := range s.outStreams {
		if o == st {
			return true
		}
	}
	return false
}

// endIfDrained ends st if it is the stream of a cancelled request
// (ending) and carries no request of ours any more: the last one was
// cancelled (its notification just sent) or answered.
func (s *legacySession) endIfDrained(st *stream) {
	s.mu.Lock()
	_, waiting := s.ending[st]
	drained := waiting && !s.carriesLocked(st)
	if drained {
		delete(s.ending, st)
	}
	s.mu.Unlock()
	if drained {
		st.abort()
	}
}

// receive hands a client message to the session's Conn on the POST's own
// goroutine (Conn.Receive): the Conn's read loop is not woken for it, one
// goroutine hand-off fewer per request. Before the Conn exists (the
// initialize request, whose POST builds it) the message is queued for the
// read loop instead. It reports false when the session has ended.
func (s *legacySession) receive(ctx context.Context, m *jsonrpc2.Message, data []byte) bool {
	c := s.getConn()
	if c == nil {
		return s.deliver(ctx, m, data)
	}
	select {
	case <-s.closed:
		return false
	default:
	}
	c.Receive(m)
	return true
}

// deliver queues a client message for the Conn's read loop.
func (s *legacySession) deliver(ctx context.Context, m *jsonrpc2.Message, data []byte) bool {
	select {
	case <-s.closed:
		return false // checked first: a message queued after EOF would be lost
	default:
	}
	select {
	case s.in <- inbound{m, data}:
		return true
	case <-s.closed:
		return false
	case <-ctx.Done():
		return false
	}
}

func (s *legacySession) touch(delta int) {
	now := time.Now()
	s.mu.Lock()
	s.open += delta
	s.lastActive = now
	s.mu.Unlock()
	s.h.share.active(s, now)
}

func (s *legacySession) idleSince() (time.Time, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.lastActive, s.open == 0
}

func (h *Handler) lookup(id string) *legacySession {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.sessions[id]
}

// lookupFor is lookup for a request of the session: a session bound to
// another owner is reported unknown, so its id tells another requestor
// nothing (not even that it exists).
func (h *Handler) lookupFor(r *http.Request, id string) (*legacySession, error) {
	s := h.lookup(id)
	if s == nil {
		var err error
		if s, err = h.share.adopt(r, id); err != nil { // another replica's session
			return nil, err
		}
	}
	if s != nil && h.opts.SessionOwner != nil && h.opts.SessionOwner(r) != s.owner {
		h.log.Warn("request for a session of another requestor refused as unknown", "session", id)
		return nil, nil
	}
	return s, nil
}

// writeNoSession answers a request whose session lookupFor did not give:
// 404 (unknown), or 503 when the session store could not be read.
func writeNoSession(w http.ResponseWriter, id jsonrpc2.RequestID, err error) {
	if err != nil {
		w.Header().Set("Retry-After", "1")
		writeError(w, http.StatusServiceUnavailable, id, jsonrpc2.CodeInternalError, "session store unavailable; try again", nil)
		return
	}
	writeError(w, http.StatusNotFound, id, jsonrpc2.CodeInvalidRequest, "session not found", nil)
}

func (h *Handler) legacyInit(w http.ResponseWriter, r *http.Request, m *jsonrpc2.Message, data []byte) {
	s := newLegacySession(h)
	s.initID, s.initParams = m.ID, m.Params
	s.base = context.WithValue(context.WithoutCancel(r.Context()), sessionKey{}, s)
	if h.opts.SessionOwner != nil {
		s.owner = h.opts.SessionOwner(r)
	}
	h.mu.Lock()
	var victim *legacySession
	var why string
	if !h.closed && len(h.sessions) >= h.opts.MaxSessions {
		victim, why = h.victimLocked()
		if victim != nil {
			delete(h.sessions, victim.id)
		}
	}
	if h.closed || len(h.sessions) >= h.opts.MaxSessions {
		h.mu.Unlock()
		w.Header().Set("Retry-After", "1")
		writeError(w, http.StatusServiceUnavailable, m.ID, jsonrpc2.CodeInternalError, "too many sessions", nil)
		return
	}
	h.sessions[s.id] = s
	startJanitor := h.janitorLocked()
	h.mu.Unlock()
	if startJanitor {
		go h.runJanitor()
	}
	if victim != nil {
		h.log.Info("session ended to make room for a new one (MaxSessions reached)", "session", victim.id, "why", why)
		h.closeSession(victim, why)
	}
	// The factory runs once initialize is queued and its stream is
	// registered: a lifecycle layer (Lifecycle) reads initialize to choose
	// the revision's Policy before it builds the Conn, and may start the
	// Conn, which may answer at once.
	h.legacyRequest(w, r, s, m, data, func() bool {
		conn := h.newConn(s.base, s, EraLegacy)
		s.mu.Lock()
		s.conn = conn
		s.mu.Unlock()
		close(s.ready)
		if conn == nil {
			h.mu.Lock()
			delete(h.sessions, s.id)
			h.mu.Unlock()
			s.Close()
			return false
		}
		conn.Start()
		h.log.Debug("session started", "session", s.id)
		return true
	})
}

func (h *Handler) legacyPost(w http.ResponseWriter, r *http.Request, s *legacySession, m *jsonrpc2.Message, data []byte) {
	s.touch(0)
	if v := r.Header.Get(HeaderProtocolVersion); v != "" && m.Method != session.MethodInitialize && !slices.Contains(h.opts.LegacyVersions, v) {
		writeError(w, http.StatusBadRequest, requestID(m), jsonrpc2.CodeInvalidRequest, "Bad Request: unsupported MCP-Protocol-Version "+v, nil)
		return
	}
	if m.Kind != jsonrpc2.KindRequest {
		if m.Method == "notifications/initialized" {
			s.mu.Lock()
			s.initialized = true
			s.mu.Unlock()
			h.share.initialized(s)
		}
		if m.Kind == jsonrpc2.KindResponse || m.Kind == jsonrpc2.KindErrorResponse {
			if st := s.forgetOut(m.ID); st != nil {
				s.endIfDrained(st)
			}
		}
		// notifications/cancelled included: the session's own Conn applies
		// it to its own requests, so another session's ids never match. The
		// stream ends first, so nothing the handler sends once cancelled can
		// reach the wire.
		if m.Method == "notifications/cancelled" {
			if forwarded, err := h.share.forwardCancel(r.Context(), s, m.Params); err != nil {
				// Not accepted: 202 would tell the client its cancellation
				// is on its way when it may reach no replica. The spec
				// answers input the server cannot accept with an HTTP error
				// status; 503 says to try again.
				w.Header().Set("Retry-After", "1")
				writeError(w, http.StatusServiceUnavailable, jsonrpc2.RequestID{}, jsonrpc2.CodeInternalError, "cancellation not forwarded: cluster bus unavailable; send it again", nil)
				return
			} else if forwarded {
				w.WriteHeader(http.StatusAccepted) // the replica running it applies it
				return
			}
			s.endCancelledStream(m.Params)
		}
		if !s.receive(r.Context(), m, data) {
			writeError(w, http.StatusNotFound, jsonrpc2.RequestID{}, jsonrpc2.CodeInvalidRequest, "session ended", nil)
			return
		}
		if m.Method == "notifications/cancelled" {
			// Applied already (or queued, before the session's Conn
			// exists): the cancelled handler runs next, before the 202.
			yieldToCancelled()
		}
		w.WriteHeader(http.StatusAccepted)
		return
	}
	h.legacyRequest(w, r, s, m, data, nil)
}

// legacyRequest serves a client request of session s on its POST stream.
// start, when not nil, runs after the request is queued for the Conn and
// before the wait: legacyInit builds the session's Conn there. If it
// returns false the request is refused with 500.
func (h *Handler) legacyRequest(w http.ResponseWriter, r *http.Request, s *legacySession, m *jsonrpc2.Message, data []byte, start func() bool) {
	if !h.acceptSessionStream(w, s, m.ID) {
		if start != nil {
			h.refuseSession(s)
		}
		return
	}
	defer h.releaseSessionStream(s)
	st := newStream(w, !h.opts.SSEResponses, h.opts.WriteTimeout)
	st.header = http.Header{HeaderSessionID: {s.id}}
	st.ev = s.newLog(r.Header.Get(HeaderProtocolVersion))
	s.mu.Lock()
	if _, dup := s.reqStreams[m.ID]; dup {
		s.mu.Unlock()
		writeError(w, http.StatusBadRequest, m.ID, jsonrpc2.CodeInvalidRequest, "request id "+m.ID.String()+" is already in flight in this session", nil)
		return
	}
	s.reqStreams[m.ID] = st
	if st.ev != nil {
		// Resumable from its first event on: a client may resume before
		// the server has seen its old connection drop.
		s.resumable[st.ev.stream] = st
	}
	s.reqOpen++
	s.mu.Unlock()
	h.drainTrack(st, m, s)
	defer h.drainUntrack(st)
	defer func() {
		s.mu.Lock()
		s.reqOpen--
		s.mu.Unlock()
	}()
	s.touch(1)
	defer s.touch(-1)
	if h.opts.SSEResponses && st.ev != nil {
		// Known to be SSE: the priming event goes now, as the spec asks,
		// so the client can resume even before the first message.
		_ = st.openSSE()
	}
	m.Values = postValues(r)
	h.share.arriving(s, m, start == nil) // initialize is never cancelled
	if !s.receive(r.Context(), m, data) {
		st.abort()
		h.share.done(s, m.ID)
	} else if start == nil {
		h.share.delivered(s, m.ID)
	}
	if start != nil && !start() {
		s.mu.Lock()
		delete(s.reqStreams, m.ID)
		s.mu.Unlock()
		if !st.finished() { // a lifecycle layer may have answered before refusing
			writeError(w, http.StatusInternalServerError, m.ID, jsonrpc2.CodeInternalError, "session refused", nil)
		}
		return
	}
	gone := h.wait(r, st, s.closed)
	h.settle(s, st, m.ID, 0, gone)
	if gone {
		if c := s.getConn(); c != nil {
			// The Conn decides: under a legacy Policy this is logged, not
			// a cancellation, and the handler keeps running.
			c.StreamClosed(m.ID)
		}
	}
}

func (h *Handler) get(w http.ResponseWriter, r *http.Request) {
	if !h.legacyEnabled() {
		w.Header().Set("Allow", "POST")
		writeError(w, http.StatusMethodNotAllowed, jsonrpc2.RequestID{}, jsonrpc2.CodeInvalidRequest, "GET is not supported: no sessions in this protocol version", nil)
		return
	}
	if _, sse := accepts(r.Header.Values("Accept")); !sse {
		writeError(w, http.StatusNotAcceptable, jsonrpc2.RequestID{}, jsonrpc2.CodeInvalidRequest, "Accept must list text/event-stream", nil)
		return
	}
	s := h.requestSession(w, r)
	if s == nil {
		return
	}
	if last := r.Header.Get("Last-Event-ID"); last != "" && h.store != nil {
		h.resumeGet(w, r, s, last)
		return
	}
	if !h.acceptSessionStream(w, s, jsonrpc2.RequestID{}) {
		return
	}
	defer h.releaseSessionStream(s)
	st := newStream(w, false, h.opts.WriteTimeout)
	st.header = http.Header{HeaderSessionID: {s.id}}
	st.ev = s.newLog(r.Header.Get(HeaderProtocolVersion))
	s.mu.Lock()
	if old := s.get; old != nil {
		if d, _ := old.state(); d {
			// A GET stream whose client left, not resumed: a new GET
			// stream takes its place (what it kept is dropped).
			s.get = nil
			delete(s.resumable, old.ev.stream)
			s.mu.Unlock()
			old.abort()
			s.mu.Lock()
		}
	}
	if s.get != nil && !s.get.finished() {
		s.mu.Unlock()
		writeError(w, http.StatusConflict, jsonrpc2.RequestID{}, jsonrpc2.CodeInvalidRequest, "Conflict: only one GET stream per session", nil)
		return
	}
	s.get = st
	if st.ev != nil {
		s.resumable[st.ev.stream] = st
	}
	s.mu.Unlock()
	s.touch(1)
	defer s.touch(-1)
	if st.openSSE() == nil {
		h.wait(r, st, s.closed)
	}
	h.settleGet(s, st, 0)
}

// settleGet ends the GET stream st, or keeps it for a resumption when its
// client left (what the server sends meanwhile is kept, within the
// EventStore's bounds, until a GET resumes it or a new GET replaces it).
func (h *Handler) settleGet(s *legacySession, st *stream, gen uint64) {
	if st.generation() != gen {
		return // a resumption took the stream over
	}
	detached, _ := st.state()
	s.mu.Lock()
	defer s.mu.Unlock()
	if detached && s.get == st {
		return // stays resumable
	}
	if s.get == st {
		s.get = nil
	}
	if st.ev != nil && s.resumable[st.ev.stream] == st {
		delete(s.resumable, st.ev.stream)
	}
}

// requestSession is the session a GET or DELETE names in Mcp-Session-Id,
// or nil once it has answered 400 (no header) or 404 (unknown, or another
// identity's: lookupFor).
func (h *Handler) requestSession(w http.ResponseWriter, r *http.Request) *legacySession {
	sid := r.Header.Get(HeaderSessionID)
	if sid == "" {
		writeError(w, http.StatusBadRequest, jsonrpc2.RequestID{}, jsonrpc2.CodeInvalidRequest, "Bad Request: Mcp-Session-Id header is required", nil)
		return nil
	}
	s, err := h.lookupFor(r, sid)
	if s == nil {
		writeNoSession(w, jsonrpc2.RequestID{}, err)
	}
	return s
}

func (h *Handler) delete(w http.ResponseWriter, r *http.Request) {
	if !h.legacyEnabled() {
		w.Header().Set("Allow", "POST")
		writeError(w, http.StatusMethodNotAllowed, jsonrpc2.RequestID{}, jsonrpc2.CodeInvalidRequest, "DELETE is not supported: no sessions in this protocol version", nil)
		return
	}
	s := h.requestSession(w, r)
	if s == nil {
		return
	}
	h.share.deleted(s)
	w.WriteHeader(http.StatusOK)
}

// endSession forgets s (later requests get 404), ends its streams and
// closes its Conn in the background: handlers still running are cancelled
// with the transport-closed source.
func (h *Handler) endSession(s *legacySession, why string) {
	h.mu.Lock()
	if h.sessions[s.id] != s {
		h.mu.Unlock()
		return
	}
	delete(h.sessions, s.id)
	h.mu.Unlock()
	h.closeSession(s, why)
}

// closeSession is endSession for a session already removed from the map.
func (h *Handler) closeSession(s *legacySession, why string) {
	h.log.Debug("session ended", "session", s.id, "why", why)
	s.Close()
	h.share.forget(s)
	s.mu.Lock()
	var orphans []*orphan
	for _, o := range s.orphans {
		orphans = append(orphans, o)
	}
	var kept []*stream
	for _, st := range s.resumable {
		kept = append(kept, st)
	}
	clear(s.resumable)
	s.mu.Unlock()
	for _, o := range orphans {
		h.releaseOrphan(o) // the Conn's close cancels what still runs
	}
	for _, st := range kept {
		st.abort()
		st.dropLinger()
	}
	if h.store != nil {
		h.store.SessionClosed(context.Background(), s.id)
	}
	h.background(func() {
		ctx, cancel := context.WithTimeout(context.Background(), h.opts.ShutdownTimeout)
		defer cancel()
		// Let the Conn read what was accepted before the end (it sees EOF
		// after that), so handlers end for the reason the client gave.
		select {
		case <-s.ready: // legacyInit may still be building the Conn
		case <-ctx.Done():
		}
		conn := s.getConn()
		if conn == nil {
			return
		}
		select {
		case <-conn.Done():
		case <-ctx.Done():
		}
		if err := conn.Close(ctx); err != nil {
			h.log.Warn("session handlers still running after close", "session", s.id, "error", err)
		}
	})
}

// refuseSession forgets a session whose Conn was never built.
func (h *Handler) refuseSession(s *legacySession) {
	h.mu.Lock()
	delete(h.sessions, s.id)
	h.mu.Unlock()
	s.Close()
	close(s.ready)
}

// runJanitor ends sessions idle for SessionIdleTimeout and those that did
// not complete their handshake within HandshakeTimeout.
func (h *Handler) runJanitor() {
	defer h.bg.Done()
	every := h.opts.SessionIdleTimeout / 4
	if h.opts.HandshakeTimeout > 0 && (every <= 0 || h.opts.HandshakeTimeout/4 < every) {
		every = h.opts.HandshakeTimeout / 4
	}
	if every < 10*time.Millisecond {
		every = 10 * time.Millisecond
	}
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-h.ctx.Done():
			return
		case now := <-t.C:
			h.mu.Lock()
			var idle, unfinished []*legacySession
			for _, s := range h.sessions {
				if last, quiet := s.idleSince(); h.opts.SessionIdleTimeout > 0 && quiet && now.Sub(last) >= h.opts.SessionIdleTimeout {
					idle = append(idle, s)
				} else if h.opts.HandshakeTimeout > 0 && !s.isInitialized() && now.Sub(s.created) >= h.opts.HandshakeTimeout {
					unfinished = append(unfinished, s)
				}
			}
			h.mu.Unlock()
			for _, s := range idle {
				h.share.endIdle(s, now)
			}
			for _, s := range unfinished {
				h.share.endUnfinished(s, now)
			}
		}
	}
}

// janitorLocked reports whether the caller must start the janitor (go
// h.runJanitor()), counting it for Close. Called under h.mu.
func (h *Handler) janitorLocked() bool {
	start := !h.janitor && (h.opts.SessionIdleTimeout > 0 || h.opts.HandshakeTimeout > 0)
	h.janitor = h.janitor || start
	if start {
		h.bg.Add(1) // under mu, before Close can start waiting
	}
	return start
}

func (s *legacySession) isInitialized() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.initialized
}

// victimLocked picks the session that gives way when MaxSessions is
// reached: the oldest one that has not completed its handshake, else the
// least recently active one with no request in flight (its GET stream, if
// any, does not protect it). Nil when every session has a request in
// flight. Called under h.mu.
func (h *Handler) victimLocked() (*legacySession, string) {
	var unfinished, idle *legacySession
	var idleLast time.Time
	for _, s := range h.sessions {
		s.mu.Lock()
		init, busy, last, created := s.initialized, s.reqOpen > 0, s.lastActive, s.created
		s.mu.Unlock()
		if !init {
			if unfinished == nil || created.Before(unfinished.created) {
				unfinished = s
			}
			continue
		}
		if !busy && (idle == nil || last.Before(idleLast)) {
			idle, idleLast = s, last
		}
	}
	if unfinished != nil {
		return unfinished, "evicted at the session cap: handshake not completed"
	}
	if idle != nil {
		return idle, "evicted at the session cap: least recently active session with no request in flight"
	}
	return nil, ""
}
