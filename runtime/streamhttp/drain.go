package streamhttp

import (
	"context"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mcpgen/mcpgen/runtime/jsonrpc2"
	"github.com/mcpgen/mcpgen/runtime/session"
)

// Graceful drain (Handler.Drain): what a replica does between SIGTERM and
// its exit, so that a rolling restart loses nothing. The order, and why:
//
//  1. Draining begins: the readiness probe (Handler.Probes, PathReadiness)
//     fails at once, so a balancer that probes stops routing here; every
//     response from now on carries "Connection: close", so the balancer's
//     kept-alive connections move to other replicas.
//  2. What would start new work is refused with 503 Service Unavailable,
//     Retry-After: 1 and the JSON-RPC error "server is draining": a
//     request (initialize included) of either era, a GET that opens a
//     standalone stream, and a legacy message for a session this replica
//     does not hold. Nothing of it ran, so a balancer may retry it on
//     another replica (Envoy's retry_on "retriable-status-codes" with 503,
//     nginx's proxy_next_upstream http_503 non_idempotent, the example's
//     proxy) and a client may send it again. What finishes work already
//     running is still served: a legacy notifications/cancelled (the Conn
//     or the bus applies it), a legacy response (an answer to a request a
//     running handler made), notifications/initialized of a session held
//     here, a resumption (GET with Last-Event-ID) and DELETE.
//  3. Requests already running get the grace to finish. Drain returns as
//     soon as none runs, without waiting out the grace. A modern
//     subscriptions/listen is not waited for (it never finishes by
//     itself): once the others are done it is answered with the error
//     "subscription ended: server draining; listen again", so its client
//     subscribes again, through the balancer, on another replica.
//  4. At the end of the grace, each request still running is answered
//     with a JSON-RPC error on its own stream, code -32603 and the message
//     "request cancelled: server draining: it ran past the drain grace
//     (<grace>)", so the client sees why (HTTP status 200 when the
//     response had not begun: the request did run, and a balancer must not
//     retry it), and its handler's ctx ends: a legacy one's with
//     jsonrpc2.SourceLocal and that message, a modern one's with
//     jsonrpc2.SourceClose when Close closes the dispatcher. What they
//     still answer is dropped.
//  5. Close ends the local copies of legacy sessions. With Options.Sessions
//     the record of each stays in the store untouched (only DELETE and
//     idle expiry remove it), so the client's next request, on any
//     replica, adopts the session (no new initialize). Without Sessions
//     the sessions end with the process, as before.
//
// Tasks are not requests: a task's work runs in the tasks.Manager, whose
// own Drain (runtime/tasks) lets it finish within the same grace and then
// fails what still runs, with a reason, in the shared store.

// drainState is the Handler's part in a drain (Handler.dr). The hot path
// (every POST) touches only the atomics and, for a request, the running
// map; the mutex guards the map and the idle channel.
type drainState struct {
	draining atomic.Bool
	active   atomic.Int64 // POSTs admitted and not yet returned (but listens)

	mu       sync.Mutex
	idle     chan struct{} // closed when active reaches 0 while draining
	idleDone bool
	running  map[*stream]runningRequest
}

// runningRequest is a request whose response stream is open: s is its
// legacy session (nil for a modern request).
type runningRequest struct {
	id     jsonrpc2.RequestID
	s      *legacySession
	listen bool // a subscriptions/listen: ends with the drain, not the grace
}

// Drain shuts the Handler down gracefully (see the steps above): it stops
// taking new work, waits up to grace (or until ctx ends, whichever is
// first) for running requests to finish, answers those still running
// with an error naming the drain, and then Closes the Handler with ctx.
// It returns Close's error. Call it on SIGTERM, before
// http.Server.Shutdown; Draining reports true from its first instant.
// A second call only waits in Close.
func (h *Handler) Drain(ctx context.Context, grace time.Duration) error {
	d := &h.dr
	if d.draining.Swap(true) {
		return h.Close(ctx)
	}
	idle := make(chan struct{})
	d.mu.Lock()
	d.idle = idle
	d.mu.Unlock()
	// After draining is set and idle made: a POST counted before is waited
	// for (its drainDone signals, or the count read here is 0); one counted
	// after sees draining (drainAdmit counts, then checks).
	if d.active.Load() == 0 {
		d.signalIdle()
	}
	h.log.Info("draining: readiness fails, new requests get 503", "grace", grace, "replica", h.opts.Replica)
	t := time.NewTimer(grace)
	defer t.Stop()
	select {
	case <-idle:
	case <-t.C:
	case <-ctx.Done():
	}
	d.mu.Lock()
	left := make(map[*stream]runningRequest, len(d.running))
	for st, rr := range d.running {
		left[st] = rr
	}
	d.mu.Unlock()
	if len(left) > 0 {
		h.log.Info("drain: requests still running are cancelled, subscriptions ended", "requests", len(left), "grace", grace)
		msg := "request cancelled: server draining: it ran past the drain grace (" + grace.String() + ")"
		for st, rr := range left {
			// The stream's first final message wins: the handler's own
			// answer, if it comes now, is dropped.
			why := msg
			if rr.listen {
				why = "subscription ended: server draining; listen again (another replica will take it)"
			}
			_ = st.send(errorBody(rr.id, jsonrpc2.CodeInternalError, why, map[string]string{"reason": "draining"}), true)
			// A legacy handler is cancelled now, with the reason (source
			// local), rather than by its session's end, which would give
			// it the Conn's EOF grace on top; a modern one by Close (the
			// dispatcher's close: source "connection closed").
			if rr.s != nil {
				if c := rr.s.getConn(); c != nil {
					_ = c.AbandonIncoming(rr.id, msg)
				}
			}
		}
	}
	return h.Close(ctx)
}

// signalIdle closes idle once.
func (d *drainState) signalIdle() {
	d.mu.Lock()
	if d.idle != nil && !d.idleDone {
		d.idleDone = true
		close(d.idle)
	}
	d.mu.Unlock()
}

// Draining reports whether Drain has begun.
func (h *Handler) Draining() bool { return h.dr.draining.Load() }

// refuseDraining answers 503 (Retry-After: 1) for what a draining Handler
// does not take.
func refuseDraining(w http.ResponseWriter, id jsonrpc2.RequestID) {
	w.Header().Set("Retry-After", "1")
	writeError(w, http.StatusServiceUnavailable, id, jsonrpc2.CodeInternalError, "server is draining: send the request again (another replica will take it)", nil)
}

// drainGate is ServeHTTP's hook: while draining, every response closes its
// connection, and a GET that would open a new standalone stream (no
// Last-Event-ID) is refused. It reports whether it answered.
func (h *Handler) drainGate(w http.ResponseWriter, r *http.Request) bool {
	if !h.Draining() {
		return false
	}
	w.Header().Set("Connection", "close")
	if r.Method == http.MethodGet && r.Header.Get("Last-Event-ID") == "" {
		refuseDraining(w, jsonrpc2.RequestID{})
		return true
	}
	return false
}

// drainAdmit is post's hook, once the message is decoded: it counts the
// POST as running (the caller defers drainDone), or refuses it while
// draining when it would start new work (step 2 above). It counts first
// and checks after, so that Drain, which sets draining first and reads
// the count after, never misses a POST it admitted.
func (h *Handler) drainAdmit(w http.ResponseWriter, r *http.Request, m *jsonrpc2.Message) bool {
	d := &h.dr
	counted := waitedFor(m)
	if counted {
		d.active.Add(1)
	}
	if !d.draining.Load() {
		return true
	}
	refuse := m.Kind == jsonrpc2.KindRequest
	if !refuse {
		// A legacy message for a session held elsewhere would make this
		// replica adopt it.
		if sid := r.Header.Get(HeaderSessionID); sid != "" && h.lookup(sid) == nil {
			refuse = true
		}
	}
	if !refuse {
		return true
	}
	if counted {
		h.drainDone(m)
	}
	refuseDraining(w, requestID(m))
	return false
}

// waitedFor reports whether a drain waits for m to finish: everything but
// a subscriptions/listen, which lasts until the client or the server ends
// it.
func waitedFor(m *jsonrpc2.Message) bool {
	return m.Method != session.MethodSubscriptionsListen
}

// drainDone ends what drainAdmit counted for m.
func (h *Handler) drainDone(m *jsonrpc2.Message) {
	if waitedFor(m) && h.dr.active.Add(-1) == 0 && h.dr.draining.Load() {
		h.dr.signalIdle()
	}
}

// drainTrack registers st as the response stream of running request m
// (of legacy session s; nil for a modern request), so that the end of a
// drain's grace can answer it; the caller defers drainUntrack (modernPost
// and legacyRequest).
func (h *Handler) drainTrack(st *stream, m *jsonrpc2.Message, s *legacySession) {
	d := &h.dr
	d.mu.Lock()
	if d.running == nil {
		d.running = map[*stream]runningRequest{}
	}
	d.running[st] = runningRequest{id: m.ID, s: s, listen: !waitedFor(m)}
	d.mu.Unlock()
}

// drainUntrack forgets what drainTrack registered.
func (h *Handler) drainUntrack(st *stream) {
	d := &h.dr
	d.mu.Lock()
	delete(d.running, st)
	d.mu.Unlock()
}
