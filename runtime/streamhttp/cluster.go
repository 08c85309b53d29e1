package streamhttp

import (
	"container/list"
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"slices"
	"sync"
	"time"

	"github.com/mcpgen/mcpgen/runtime/cluster"
	"github.com/mcpgen/mcpgen/runtime/jsonrpc2"
	"github.com/mcpgen/mcpgen/runtime/session"
)

// Replicas (Options.Sessions, Options.Bus). What this file adds to the
// single-process Handler, and why:
//
//   - The record of a legacy session is created in Options.Sessions when
//     its initialize is answered, before the response that carries
//     Mcp-Session-Id is written: a client cannot name the session to
//     another replica before every replica can read it.
//   - A replica that gets a request naming a session it does not hold reads
//     the record and adopts the session (Lifecycle.Adopt: a Conn in the
//     negotiated state, no initialize), after the same owner check as a
//     local session (another identity gets the same 404 as an unknown id).
//   - notifications/cancelled naming a request that does not run on the
//     replica that received it is published on the bus (subject
//     "mcp.cancel.<session token>") instead of reaching the local Conn
//     (where it would be an unknown request, logged as noise). Every replica
//     receives it; the one running the request applies it exactly as a
//     local cancellation (its stream ends, then its Conn reads the
//     notification: the handler's ctx ends with the client's reason, no
//     response). A replica keeps a cancellation it could not apply for
//     CancelWindow (bounded in number too): a request arriving within it is
//     cancelled at once, which settles the race of a request POSTed to one
//     replica and its cancel POSTed to another just after. Each
//     cancellation is applied at most once per replica, so duplicate
//     deliveries are harmless; one that finds its request finished (or
//     never seen) expires from the window and is logged at debug. The cancel
//     POST is answered 202 only once the bus accepted the notification
//     (Publish returned nil, within 10s and the POST's ctx); otherwise 503
//     with Retry-After, as the transport lets a server answer input it
//     cannot accept with an HTTP error: a 202 would tell the client its
//     cancellation is on its way when it may reach no replica. With
//     natscluster's durable bus, accepted means held by a JetStream stream
//     that the runner reads after it reconnects, so a NATS restart loses
//     none.
//   - DELETE removes the record and publishes "mcp.session.drop.<token>":
//     every replica ends its local copy (its handlers are cancelled as the
//     session's end cancels them).
//   - logging/setLevel, resources/subscribe and resources/unsubscribe
//     accepted on one replica update the record, which is published
//     ("mcp.session.state.<token>") to the local copies of the others
//     (session.Server.RefreshLegacy), so a resources/updated reaches the
//     session on the replica holding its GET stream.
//   - LastActive is written at most every ActiveInterval, not on every
//     POST; the idle janitor ends a session (record and all) only when the
//     record also shows it idle for SessionIdleTimeout, else only its
//     local copy. The handshake janitor reads the record too (the client
//     may have sent notifications/initialized to another replica).
//   - 2026-07-28 needs none of this: there are no sessions, and closing a
//     request's response stream, its cancellation, is seen by the replica
//     that holds the stream, which is the one running the request.

// Bus subjects of the legacy session layer (the session package's change
// notifications use session.NotifySubjectPrefix).
const (
	SubjectCancel       = "mcp.cancel."        // + SubjectToken(session id)
	SubjectSessionDrop  = "mcp.session.drop."  // + SubjectToken(session id)
	SubjectSessionState = "mcp.session.state." // + SubjectToken(session id)
)

// maxPendingCancels bounds the cancellations a replica keeps for requests
// it does not run (CancelWindow).
const maxPendingCancels = 4096

// busMsg is what the replicas tell each other about a session.
type busMsg struct {
	Origin  string                 `json:"origin"`
	Session string                 `json:"session"`
	Params  json.RawMessage        `json:"params,omitempty"` // cancel: the notification's params, as sent
	Record  *cluster.SessionRecord `json:"record,omitempty"` // state: the record after the change
}

// recordChange is a request whose success changes the record.
type recordChange struct {
	method, value string // value: the level or the URI
}

// noteChange remembers a request whose success changes the record
// (arriving), for response.
func (rp *replicas) noteChange(s *legacySession, m *jsonrpc2.Message) {
	var p struct {
		Level string `json:"level"`
		URI   string `json:"uri"`
	}
	switch m.Method {
	case session.MethodSetLevel, "resources/subscribe", "resources/unsubscribe":
	default:
		return
	}
	if json.Unmarshal(m.Params, &p) != nil {
		return
	}
	s.mu.Lock()
	if s.changes == nil {
		s.changes = map[jsonrpc2.RequestID]recordChange{}
	}
	s.changes[m.ID] = recordChange{m.Method, p.Level + p.URI}
	s.mu.Unlock()
}

// cancelKey names a request of a session.
type cancelKey struct {
	session, id string
}

// liveRequest is a client request of a local session, from just before it
// is handed to the Conn until it is answered or cancelled. A cancellation
// from the bus is applied only once delivered is set, so that the Conn
// always reads the request before its cancellation.
type liveRequest struct {
	s         *legacySession
	delivered bool
}

// pendingCancel is a cancellation from the bus kept for CancelWindow.
type pendingCancel struct {
	key     cancelKey
	params  json.RawMessage
	expires time.Time
	applied bool
	elem    *list.Element
}

// replicas is sessionShare for a Handler with Options.Sessions: the
// session store, the bus and the cancellations in flight between replicas.
type replicas struct {
	h *Handler
	// The bus subscriptions, the forwarded cancellations kept for
	// CancelWindow and the requests running here, under cmu; refresh
	// applies another replica's changes to a session
	// (session.Server.RefreshLegacy).
	subs         []cluster.Subscription
	cmu          sync.Mutex
	pending      map[cancelKey]*pendingCancel
	pendingOrder list.List // of *pendingCancel, oldest first
	live         map[cancelKey]*liveRequest
}

// newShare returns the sessionShare of h: soloShare without a session
// store, else the replicas, joined to the bus.
func newShare(h *Handler) sessionShare {
	if h.opts.Sessions == nil {
		return soloShare{h}
	}
	rp := &replicas{h: h}
	rp.join()
	return rp
}

// join subscribes to the bus (newShare).
func (rp *replicas) join() {
	h := rp.h
	if h.opts.Replica == "" {
		h.opts.Replica = "replica-" + newSessionID()[:12]
	}
	if h.opts.CancelWindow <= 0 {
		h.opts.CancelWindow = 5 * time.Second
	}
	if h.opts.ActiveInterval <= 0 {
		h.opts.ActiveInterval = time.Minute
		if q := h.opts.SessionIdleTimeout / 4; q > 0 && q < h.opts.ActiveInterval {
			h.opts.ActiveInterval = q
		}
	}
	rp.pending = map[cancelKey]*pendingCancel{}
	rp.live = map[cancelKey]*liveRequest{}
	if h.opts.Bus == nil {
		return
	}
	for pattern, fn := range map[string]func(string, []byte){
		SubjectCancel + ">":       rp.onBusCancel,
		SubjectSessionDrop + ">":  rp.onBusDrop,
		SubjectSessionState + ">": rp.onBusState,
		SubjectResumed + ">":      h.onBusResumed,
	} {
		sub, err := h.opts.Bus.Subscribe(pattern, fn)
		if err != nil {
			h.log.Error("cluster bus: cannot subscribe; this replica will not see what the others forward", "subject", pattern, "error", err)
			continue
		}
		rp.subs = append(rp.subs, sub)
	}
}

// close ends the bus subscriptions (Handler.Close).
func (rp *replicas) close() {
	for _, sub := range rp.subs {
		_ = sub.Unsubscribe()
	}
}

func (rp *replicas) publish(subject string, m busMsg) {
	h := rp.h
	if h.opts.Bus == nil {
		return
	}
	m.Origin = h.opts.Replica
	data, _ := json.Marshal(m)
	ctx, cancel := context.WithTimeout(h.ctx, 5*time.Second)
	defer cancel()
	if err := h.opts.Bus.Publish(ctx, subject, data); err != nil {
		h.log.Warn("cluster bus: publish failed", "subject", subject, "session", m.Session, "error", err)
	}
}

func (rp *replicas) storeCtx() (context.Context, context.CancelFunc) {
	h := rp.h
	return context.WithTimeout(context.WithoutCancel(h.ctx), 10*time.Second)
}

// recordSession creates the record of s from its initialize and the
// result about to be written (legacySession.Write). A failure is returned:
// the session then cannot be served by the other replicas, and the
// initialize is answered with an error instead.
func (rp *replicas) recordSession(s *legacySession, result []byte) error {
	h := rp.h
	var res struct {
		Result struct {
			ProtocolVersion string `json:"protocolVersion"`
		} `json:"result"`
	}
	_ = json.Unmarshal(result, &res)
	var p struct {
		Capabilities json.RawMessage `json:"capabilities"`
		ClientInfo   json.RawMessage `json:"clientInfo"`
	}
	_ = json.Unmarshal(s.initParams, &p)
	now := time.Now()
	ctx, cancel := rp.storeCtx()
	defer cancel()
	err := h.opts.Sessions.Create(ctx, cluster.SessionRecord{
		ID: s.id, Revision: res.Result.ProtocolVersion, ClientInfo: p.ClientInfo, ClientCapabilities: p.Capabilities,
		Owner: s.owner, Replica: h.opts.Replica, Created: s.created, LastActive: now,
	})
	if err == nil {
		s.mu.Lock()
		s.storedActive = now
		s.mu.Unlock()
	}
	return err
}

// updateRecord applies fn to the record of s (best effort: logged) and
// returns the record written (nil on failure).
func (rp *replicas) updateRecord(s *legacySession, what string, fn func(*cluster.SessionRecord)) *cluster.SessionRecord {
	h := rp.h
	ctx, cancel := rp.storeCtx()
	defer cancel()
	rec, err := h.opts.Sessions.Update(ctx, s.id, func(r *cluster.SessionRecord) error {
		fn(r)
		return nil
	})
	if err != nil {
		h.log.Warn("session store: update failed", "session", s.id, "what", what, "error", err)
		return nil
	}
	return &rec
}

// active writes LastActive when the stored one is older than
// ActiveInterval (touch), in the background.
func (rp *replicas) active(s *legacySession, now time.Time) {
	h := rp.h
	s.mu.Lock()
	due := s.recorded && !s.activeWriting && now.Sub(s.storedActive) >= h.opts.ActiveInterval
	if due {
		s.activeWriting = true
	}
	s.mu.Unlock()
	if !due {
		return
	}
	h.background(func() {
		rp.updateRecord(s, "lastActive", func(r *cluster.SessionRecord) {
			if now.After(r.LastActive) {
				r.LastActive = now
			}
		})
		s.mu.Lock()
		s.activeWriting = false
		s.storedActive = now
		s.mu.Unlock()
	})
}

// errStoreUnavailable is adopt's answer when the session store could not
// be read: the session may well exist, so the request is refused with 503
// (try again) rather than 404 (which would make the client start a new
// session).
var errStoreUnavailable = errors.New("session store unavailable")

// adopt builds the local copy of a session this replica does not hold from
// its record, or returns nil (unknown, another owner's, not yet answered,
// or refused by Lifecycle.Adopt): the caller answers 404; or
// errStoreUnavailable (the caller answers 503).
func (rp *replicas) adopt(r *http.Request, id string) (*legacySession, error) {
	h := rp.h
	if h.adoptConn == nil {
		return nil, nil
	}
	ctx, cancel := context.WithTimeout(r.Context(), 10*time.Second)
	rec, err := h.opts.Sessions.Get(ctx, id)
	cancel()
	if err != nil {
		if !errors.Is(err, cluster.ErrSessionNotFound) {
			h.log.Warn("session store: read failed; the request is refused with 503", "session", id, "error", err)
			return nil, errStoreUnavailable
		}
		return nil, nil
	}
	if h.opts.SessionOwner != nil && h.opts.SessionOwner(r) != rec.Owner {
		h.log.Warn("request for a session of another requestor refused as unknown", "session", id)
		return nil, nil
	}
	if rec.Revision == "" {
		return nil, nil // its initialize is not answered yet
	}
	s := newLegacySession(h)
	s.id, s.owner, s.created, s.initialized, s.recorded = rec.ID, rec.Owner, rec.Created, rec.Initialized, true
	s.storedActive = rec.LastActive
	s.base = context.WithValue(context.WithoutCancel(r.Context()), sessionKey{}, s)
	h.mu.Lock()
	if old := h.sessions[id]; old != nil {
		h.mu.Unlock()
		return old, nil // adopted meanwhile by a concurrent request
	}
	if h.closed {
		h.mu.Unlock()
		return nil, nil
	}
	var victim *legacySession
	var why string
	if len(h.sessions) >= h.opts.MaxSessions {
		if victim, why = h.victimLocked(); victim != nil {
			delete(h.sessions, victim.id)
		}
	}
	// Admitted even at the cap when nothing can give way: the session
	// exists (another replica answered its initialize) and refusing it here
	// would only send the client round the balancer.
	h.sessions[id] = s
	startJanitor := h.janitorLocked()
	h.mu.Unlock()
	if startJanitor {
		go h.runJanitor()
	}
	if victim != nil {
		h.log.Info("local session copy dropped to make room (MaxSessions reached)", "session", victim.id, "why", why)
		h.closeSession(victim, why)
	}
	conn := h.adoptConn(s.base, s, legacyState(rec))
	s.mu.Lock()
	s.conn = conn
	s.mu.Unlock()
	close(s.ready)
	if conn == nil {
		h.mu.Lock()
		if h.sessions[id] == s {
			delete(h.sessions, id)
		}
		h.mu.Unlock()
		s.Close()
		return nil, nil
	}
	conn.Start()
	h.log.Debug("session adopted from the store", "session", id, "replica", h.opts.Replica, "created by", rec.Replica)
	return s, nil
}

// cancelRequestID is the requestId a notifications/cancelled names (false
// when it names none).
func cancelRequestID(params json.RawMessage) (jsonrpc2.RequestID, bool) {
	var p struct {
		RequestID json.RawMessage `json:"requestId"`
	}
	if json.Unmarshal(params, &p) != nil || len(p.RequestID) == 0 {
		return jsonrpc2.RequestID{}, false
	}
	id, err := jsonrpc2.ParseRequestID(p.RequestID)
	return id, err == nil
}

// idKey is a request id as a map key: its JSON (1 and "1" differ).
func idKey(id jsonrpc2.RequestID) string { return string(id.RawJSON()) }

// cancelPublishTimeout bounds how long a cancel POST waits for the bus to
// accept its forwarded notification (a NATS server restarting, say) before
// it is refused with 503.
const cancelPublishTimeout = 10 * time.Second

// forwardCancel publishes a client's notifications/cancelled whose request
// does not run here, and reports whether it did (legacyPost then does not
// give it to the local Conn). An error means the bus did not accept it:
// legacyPost then refuses the POST (503) rather than answer 202 for a
// cancellation that may reach no one; the client may send it again
// (duplicates are harmless).
func (rp *replicas) forwardCancel(ctx context.Context, s *legacySession, params json.RawMessage) (bool, error) {
	h := rp.h
	if h.opts.Bus == nil {
		return false, nil
	}
	rid, ok := cancelRequestID(params)
	if !ok {
		return false, nil // malformed: the local Conn ignores and logs it
	}
	id := idKey(rid)
	rp.cmu.Lock()
	_, local := rp.live[cancelKey{s.id, id}]
	rp.cmu.Unlock()
	if local {
		return false, nil
	}
	s.mu.Lock()
	_, local = s.reqStreams[rid]
	s.mu.Unlock()
	if local {
		return false, nil // registered, not yet handed to the Conn: the Conn orders them
	}
	data, _ := json.Marshal(busMsg{Origin: h.opts.Replica, Session: s.id, Params: params})
	// The POST's own context (a client that gave up need not be served),
	// but not the handler's: Close does not strand a POST half-accepted.
	ctx, cancel := context.WithTimeout(ctx, cancelPublishTimeout)
	defer cancel()
	if err := h.opts.Bus.Publish(ctx, SubjectCancel+cluster.SubjectToken(s.id), data); err != nil {
		h.log.Warn("cluster bus: cancellation not forwarded; its POST is refused (503) so the client can send it again", "session", s.id, "requestId", id, "error", err)
		return true, err
	}
	h.log.Debug("cancellation forwarded to the other replicas: its request does not run here", "session", s.id, "requestId", id, "replica", h.opts.Replica)
	return true, nil
}

// onBusCancel receives a forwarded cancellation: applied at once when its
// request runs here, else kept for CancelWindow.
func (rp *replicas) onBusCancel(_ string, data []byte) {
	h := rp.h
	var m busMsg
	if err := json.Unmarshal(data, &m); err != nil || m.Session == "" {
		h.log.Warn("cluster bus: malformed cancellation ignored", "error", err)
		return
	}
	rid, ok := cancelRequestID(m.Params)
	if !ok {
		h.log.Warn("cluster bus: cancellation without a valid requestId ignored", "session", m.Session)
		return
	}
	id := idKey(rid)
	key := cancelKey{m.Session, id}
	now := time.Now()
	rp.cmu.Lock()
	rp.expirePendingLocked(now)
	if _, dup := rp.pending[key]; dup {
		rp.cmu.Unlock()
		h.log.Debug("cluster bus: duplicate cancellation ignored", "session", m.Session, "requestId", id)
		return
	}
	p := &pendingCancel{key: key, params: m.Params, expires: now.Add(h.opts.CancelWindow)}
	p.elem = rp.pendingOrder.PushBack(p)
	rp.pending[key] = p
	for rp.pendingOrder.Len() > maxPendingCancels {
		old := rp.pendingOrder.Remove(rp.pendingOrder.Front()).(*pendingCancel)
		delete(rp.pending, old.key)
	}
	// A live request not yet delivered is left to delivered, which
	// finds this one pending.
	var s *legacySession
	if lr := rp.live[key]; lr != nil && lr.delivered {
		s = lr.s
		p.applied = true
		delete(rp.live, key)
	}
	rp.cmu.Unlock()
	if s != nil {
		h.log.Debug("cancellation from another replica applied", "session", m.Session, "requestId", id, "from", m.Origin)
		h.background(func() { rp.applyCancel(s, m.Params) })
	}
}

// expirePendingLocked drops the cancellations kept past CancelWindow.
func (rp *replicas) expirePendingLocked(now time.Time) {
	h := rp.h
	for e := rp.pendingOrder.Front(); e != nil; e = rp.pendingOrder.Front() {
		p := e.Value.(*pendingCancel)
		if now.Before(p.expires) {
			return
		}
		rp.pendingOrder.Remove(e)
		delete(rp.pending, p.key)
		if !p.applied {
			h.log.Debug("forwarded cancellation expired: its request did not run on this replica in the window", "session", p.key.session, "requestId", p.key.id)
		}
	}
}

// arriving registers a request of s about to be handed to its Conn as
// running here (legacyRequest), so a cancel POSTed here meanwhile is not
// forwarded, and remembers a request whose success changes the record.
func (rp *replicas) arriving(s *legacySession, m *jsonrpc2.Message, cancellable bool) {
	rp.noteChange(s, m)
	if rp.h.opts.Bus == nil || !cancellable {
		return
	}
	rp.cmu.Lock()
	rp.live[cancelKey{s.id, idKey(m.ID)}] = &liveRequest{s: s}
	rp.cmu.Unlock()
}

// delivered marks a request just handed to the Conn of s, and
// cancels it at once when a forwarded cancellation for it is waiting
// (legacyRequest). A request already answered is left alone.
func (rp *replicas) delivered(s *legacySession, id jsonrpc2.RequestID) {
	h := rp.h
	if h.opts.Bus == nil {
		return
	}
	key := cancelKey{s.id, idKey(id)}
	rp.cmu.Lock()
	rp.expirePendingLocked(time.Now())
	lr := rp.live[key]
	if lr == nil {
		rp.cmu.Unlock()
		return // answered already
	}
	lr.delivered = true
	p := rp.pending[key]
	apply := p != nil && !p.applied
	if apply {
		p.applied = true
		delete(rp.live, key)
	}
	rp.cmu.Unlock()
	if apply {
		h.log.Debug("request cancelled on arrival: its cancellation came first through another replica", "session", s.id, "requestId", key.id)
		rp.applyCancel(s, p.params)
	}
}

// done forgets a request that no longer runs here (answered or
// cancelled).
func (rp *replicas) done(s *legacySession, id jsonrpc2.RequestID) {
	h := rp.h
	if h.opts.Bus == nil {
		return
	}
	rp.cmu.Lock()
	delete(rp.live, cancelKey{s.id, idKey(id)})
	rp.cmu.Unlock()
}

// forget drops what the cancellation routing holds of a
// session that ended here.
func (rp *replicas) forget(s *legacySession) {
	h := rp.h
	if h.opts.Bus == nil {
		return
	}
	rp.cmu.Lock()
	for k, v := range rp.live {
		if v.s == s {
			delete(rp.live, k)
		}
	}
	rp.cmu.Unlock()
}

// applyCancel cancels a request of s as a cancel POSTed here would: its
// stream ends, then its Conn reads the notification.
func (rp *replicas) applyCancel(s *legacySession, params json.RawMessage) {
	h := rp.h
	s.endCancelledStream(params)
	data, _ := json.Marshal(struct {
		JSONRPC string          `json:"jsonrpc"`
		Method  string          `json:"method"`
		Params  json.RawMessage `json:"params"`
	}{"2.0", "notifications/cancelled", params})
	m, derr := jsonrpc2.DecodeMessage(data)
	if derr != nil {
		h.log.Warn("cluster bus: cancellation not applied: invalid params", "session", s.id, "error", derr.Message)
		return
	}
	s.receive(h.ctx, m, data)
}

// onBusDrop ends the local copy of a session deleted on another replica.
func (rp *replicas) onBusDrop(_ string, data []byte) {
	h := rp.h
	var m busMsg
	if json.Unmarshal(data, &m) != nil || m.Origin == h.opts.Replica {
		return
	}
	if s := h.lookup(m.Session); s != nil {
		h.background(func() { h.endSession(s, "session deleted on replica "+m.Origin) })
	}
}

// legacyState is the part of a record the session layer serves from.
func legacyState(rec cluster.SessionRecord) session.LegacyState {
	return session.LegacyState{Version: rec.Revision, ClientInfo: rec.ClientInfo, ClientCapabilities: rec.ClientCapabilities,
		LogLevel: rec.LogLevel, ResourceSubscriptions: rec.ResourceSubscriptions}
}

// onBusState applies a change accepted on another replica (log level,
// resource subscriptions) to the local copy of the session.
func (rp *replicas) onBusState(_ string, data []byte) {
	h := rp.h
	var m busMsg
	if json.Unmarshal(data, &m) != nil || m.Origin == h.opts.Replica || h.refresh == nil || m.Record == nil {
		return
	}
	if s := h.lookup(m.Session); s != nil {
		if c := s.getConn(); c != nil {
			h.refresh(c, legacyState(*m.Record))
		}
	}
}

// deleted ends s, deleted by the client, here and on every replica.
func (rp *replicas) deleted(s *legacySession) {
	rp.h.endSession(s, "session deleted by the client")
	rp.drop(s.id)
}

// drop removes the record of a session the client deleted (or that
// expired) and tells the other replicas to drop their copies.
func (rp *replicas) drop(id string) {
	h := rp.h
	ctx, cancel := rp.storeCtx()
	defer cancel()
	if err := h.opts.Sessions.Delete(ctx, id); err != nil {
		h.log.Warn("session store: delete failed", "session", id, "error", err)
	}
	rp.publish(SubjectSessionDrop+cluster.SubjectToken(id), busMsg{Session: id})
}

// endIdle ends a session idle here: only the local copy when the record
// shows it active on another replica, else the record too.
func (rp *replicas) endIdle(s *legacySession, now time.Time) {
	storeIdle, _, found := rp.storeState(s, now)
	if found && !storeIdle {
		rp.h.endSession(s, "local copy idle (the session is active on another replica)")
		return
	}
	rp.h.endSession(s, "idle")
	if found {
		rp.drop(s.id)
	}
}

// endUnfinished ends a session without notifications/initialized here,
// unless the record shows it was sent to another replica.
func (rp *replicas) endUnfinished(s *legacySession, now time.Time) {
	if _, init, _ := rp.storeState(s, now); init {
		s.mu.Lock()
		s.initialized = true // sent to another replica
		s.mu.Unlock()
		return
	}
	rp.h.endHandshakeless(s)
	rp.drop(s.id)
}

// initialized records notifications/initialized of s, before its 202: the
// client's next request may reach a replica whose handshake janitor reads
// the record.
func (rp *replicas) initialized(s *legacySession) {
	s.mu.Lock()
	recorded := s.recorded
	s.mu.Unlock()
	if recorded {
		rp.updateRecord(s, "initialized", func(r *cluster.SessionRecord) { r.Initialized = true })
	}
}

// storeState reports whether the record of s also shows it idle for
// SessionIdleTimeout (or gone), and whether it completed its handshake
// (janitor).
func (rp *replicas) storeState(s *legacySession, now time.Time) (idle, initialized, found bool) {
	h := rp.h
	ctx, cancel := rp.storeCtx()
	defer cancel()
	rec, err := h.opts.Sessions.Get(ctx, s.id)
	if err != nil {
		return errors.Is(err, cluster.ErrSessionNotFound), false, false
	}
	return now.Sub(rec.LastActive) >= h.opts.SessionIdleTimeout, rec.Initialized, true
}

// response is what route does with a response of a shared session
// before it goes out: the answer to initialize creates the record (or,
// when the store refuses, becomes an error: the session would exist on
// this replica only); an accepted logging/setLevel updates the record and
// the other replicas' copies. It returns the message to write.
func (rp *replicas) response(s *legacySession, m *jsonrpc2.OutMessage) []byte {
	h, msg := rp.h, m.Data
	rp.done(s, m.ID)
	s.mu.Lock()
	isInit := !s.recorded && !s.initID.IsZero() && m.ID == s.initID
	change, changes := s.changes[m.ID]
	delete(s.changes, m.ID)
	s.mu.Unlock()
	if m.Kind != jsonrpc2.KindResponse {
		return msg
	}
	if isInit {
		if err := rp.recordSession(s, msg); err != nil {
			h.log.Error("session store: the session cannot be recorded; initialize fails", "session", s.id, "error", err)
			h.background(func() { h.endSession(s, "not recorded in the session store") })
			return errorBody(m.ID, jsonrpc2.CodeInternalError, "session store unavailable", nil)
		}
		s.mu.Lock()
		s.recorded = true
		s.mu.Unlock()
		return msg
	}
	if changes {
		rec := rp.updateRecord(s, change.method, func(r *cluster.SessionRecord) {
			switch change.method {
			case session.MethodSetLevel:
				r.LogLevel = change.value
			case "resources/subscribe":
				if !slices.Contains(r.ResourceSubscriptions, change.value) {
					r.ResourceSubscriptions = append(r.ResourceSubscriptions, change.value)
				}
			default:
				r.ResourceSubscriptions = slices.DeleteFunc(r.ResourceSubscriptions, func(u string) bool { return u == change.value })
			}
		})
		if rec != nil {
			rp.publish(SubjectSessionState+cluster.SubjectToken(s.id), busMsg{Session: s.id, Record: rec})
		}
	}
	return msg
}
