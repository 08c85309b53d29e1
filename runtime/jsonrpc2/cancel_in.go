package jsonrpc2

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
)

// onCancelled applies a notifications/cancelled from the peer, or ignores it
// with a logged reason. It runs on the read loop and never blocks: applying a
// cancellation is a table lookup and a context cancel.
//
// The params are decoded by the Policy's Cancelled decoder, generated from the
// revision's schema: what it rejects is ignored as malformed with its error
// (JSON pointer and problem) as the detail, and the runtime has no parser of
// its own that could disagree with the schema.
func (c *Conn) onCancelled(params []byte) {
	id, reason, why, detail := c.decodeCancelled(params)
	if why != IgnoreNone {
		c.event(Event{Kind: EventReceived, Direction: Incoming, ID: id, Source: SourcePeer})
		c.ignored(Event{Direction: Incoming, ID: id, Reason: reason, Source: SourcePeer, Why: why, Detail: detail})
		return
	}
	c.event(Event{Kind: EventReceived, Direction: Incoming, ID: id, Reason: reason, Source: SourcePeer})

	c.mu.Lock()
	f := c.incoming[id]
	cl := c.outgoing[id]
	switch {
	case f != nil && c.pol.never[f.req.Method]:
		why = IgnoreNotCancellable
	case f != nil && f.task:
		why = IgnoreTaskAugmented
	case f != nil && c.pol.peer.OwnRequests.Has(f.req.Method):
		// The peer cancels a request it issued: the classic direction.
		f.cancelled.Store(true)
		delete(c.incoming, id)
		c.mu.Unlock()
		ce := &CancelError{ID: id, Method: f.req.Method, Reason: reason, Source: SourcePeer}
		f.cancel(ce)
		c.cancelled(f)
		// The handler runs once the read loop parks, so nothing is built
		// for a log line nobody reads.
		if c.log.Enabled(context.Background(), slog.LevelInfo) {
			c.info("request cancelled by peer", slog.String("id", id.String()),
				slog.String("method", f.req.Method), slog.String("reason", reason))
		}
		c.event(Event{Kind: EventApplied, Direction: Incoming, ID: id, Method: f.req.Method, Reason: reason, Source: SourcePeer})
		return
	case cl != nil && c.pol.never[cl.method]:
		why = IgnoreNotCancellable
	case cl != nil && cl.task:
		why = IgnoreTaskAugmented
	case cl != nil && c.pol.peer.PeerRequests.Has(cl.method):
		// The peer ends a request we issued (2026-07-28: the server tears
		// down our subscriptions/listen). Our call ends with its reason.
		delete(c.outgoing, id)
		if cl.prog != nil {
			delete(c.progress, cl.prog.token)
		}
		c.mu.Unlock()
		cl.err = &CancelError{ID: id, Method: cl.method, Reason: reason, Source: SourcePeer}
		close(cl.done)
		c.info("call ended by peer", slog.String("id", id.String()),
			slog.String("method", cl.method), slog.String("reason", reason))
		c.event(Event{Kind: EventApplied, Direction: Outgoing, ID: id, Method: cl.method, Reason: reason, Source: SourcePeer})
		return
	case f != nil || cl != nil:
		why = IgnoreNotPermitted
	default:
		why = IgnoreUnknownID
	}
	c.mu.Unlock()
	method := ""
	dir := Incoming
	if f != nil {
		method = f.req.Method
	} else if cl != nil {
		method, dir = cl.method, Outgoing
	}
	c.ignored(Event{Direction: dir, ID: id, Method: method, Reason: reason, Source: SourcePeer, Why: why})
}

// ignored logs and reports a cancellation that was not applied. The spec says
// such notifications SHOULD be ignored; logging them is how a user finds out
// why a cancel did nothing.
func (c *Conn) ignored(e Event) {
	e.Kind = EventIgnored
	// A peer can send ignored cancellations as fast as it can write, so
	// the runtime's own line about them is rate-limited; the observer
	// still sees every event.
	if ok, suppressed := c.allowIgnoredLog(); ok {
		attrs := []slog.Attr{slog.String("direction", e.Direction.String()), slog.String("why", e.Why.String())}
		if !e.ID.IsZero() {
			attrs = append(attrs, slog.String("id", e.ID.String()))
		}
		if e.Method != "" {
			attrs = append(attrs, slog.String("method", e.Method))
		}
		if e.Reason != "" {
			attrs = append(attrs, slog.String("reason", e.Reason))
		}
		if e.Detail != "" {
			attrs = append(attrs, slog.String("detail", e.Detail))
		}
		if suppressed > 0 {
			attrs = append(attrs, slog.Uint64("suppressed", suppressed))
		}
		c.log.LogAttrs(context.Background(), slog.LevelInfo, "cancellation ignored", attrs...)
	}
	c.event(e)
}

// decodeCancelled runs the Policy's decoder on notifications/cancelled
// params and says whether (and why) the notification is ignored before any
// request is looked up.
func (c *Conn) decodeCancelled(params []byte) (id RequestID, reason string, why IgnoreReason, detail string) {
	if c.pol.Cancelled == nil {
		return id, "", IgnoreNoDecoder, "the Policy has no Cancelled decoder; use a generated package's Policy"
	}
	p, err := c.pol.Cancelled.Decode(params)
	if errors.Is(err, ErrIDOutOfRange) {
		return id, "", IgnoreUnknownID, err.Error()
	}
	if err != nil {
		return id, "", IgnoreMalformed, err.Error()
	}
	if p.RequestID.IsZero() {
		return id, p.Reason, IgnoreNoRequestID, "requestId absent (optional in this revision; nothing to cancel)"
	}
	return p.RequestID, p.Reason, IgnoreNone, ""
}

// StreamClosed reports that the peer dropped the stream that carried
// incoming request id: a transport with one stream per request (a legacy
// Streamable HTTP session's POST) calls it on the Conn it serves. Whether
// that is a cancellation is the Policy's call: under
// DisconnectIsCancellation the handler's ctx ends with SourceStreamClosed;
// otherwise the disconnect is only logged and the handler runs on. A
// request handed to the Conn with Deliver is reported on its Delivery.
func (c *Conn) StreamClosed(id RequestID) {
	if !c.pol.DisconnectIsCancellation {
		c.debug("request stream disconnected; not a cancellation under this policy", slog.String("id", id.String()))
		return
	}
	c.mu.Lock()
	f := c.incoming[id]
	if f == nil {
		c.mu.Unlock()
		c.ignored(Event{Direction: Incoming, ID: id, Source: SourceStreamClosed, Why: IgnoreUnknownID})
		return
	}
	f.cancelled.Store(true)
	delete(c.incoming, id)
	c.mu.Unlock()
	c.applyStreamClosed(f)
}

// ErrNotPermitted is wrapped by CancelIncoming's error when the Policy does
// not let this side end that request.
var ErrNotPermitted = errors.New("jsonrpc2: not permitted by the cancellation policy")

// CancelIncoming ends a request the peer issued and tells the peer so with
// notifications/cancelled. Only requests whose method is in this side's
// CancelScope.PeerRequests qualify: in 2026-07-28 that is how a server tears
// down a client's subscriptions/listen ("A server MUST send
// notifications/cancelled referencing a subscriptions/listen request ID when
// it tears down that subscription stream"). The handler's context is
// cancelled with SourceLocal and its response suppressed.
//
// (The subscriptions page of the same revision says the server SHOULD instead
// answer the listen request with a success result for a graceful end; a
// handler does that simply by returning. Both ends are supported; the MUST on
// the cancellation page is why this method exists.)
func (c *Conn) CancelIncoming(id RequestID, reason string) error {
	c.mu.Lock()
	f := c.incoming[id]
	if f == nil {
		c.mu.Unlock()
		return fmt.Errorf("jsonrpc2: no incoming request %s in flight", id)
	}
	if !c.pol.own.PeerRequests.Has(f.req.Method) {
		c.mu.Unlock()
		return fmt.Errorf("jsonrpc2: ending a %s request: %w", f.req.Method, ErrNotPermitted)
	}
	f.cancelled.Store(true)
	delete(c.incoming, id)
	c.mu.Unlock()
	f.cancel(&CancelError{ID: id, Method: f.req.Method, Reason: reason, Source: SourceLocal})
	c.cancelled(f)
	c.sendCancelled(context.Background(), id, f.req.Method, reason, Incoming, SourceLocal)
	return nil
}

// allowIgnoredLog applies the ignored-cancellation log rate limit and says
// how many lines it suppressed since the last one written.
func (c *Conn) allowIgnoredLog() (bool, uint64) {
	if !c.log.Enabled(context.Background(), slog.LevelInfo) {
		return false, 0
	}
	return c.ignoredLimit.allow()
}

// AbandonIncoming ends a request the peer issued whose answer can no longer
// reach it, without telling the peer: a transport uses it for a legacy HTTP
// request whose client connection is gone (not a cancellation in that era)
// once it has waited long enough for the client to come back. The handler's
// context is cancelled with SourceLocal and reason, and its response is
// suppressed. Unlike CancelIncoming it applies to any method, since nothing
// goes on the wire.
func (c *Conn) AbandonIncoming(id RequestID, reason string) error {
	c.mu.Lock()
	f := c.incoming[id]
	if f == nil {
		c.mu.Unlock()
		return fmt.Errorf("jsonrpc2: no incoming request %s in flight", id)
	}
	if c.pol.never[f.req.Method] {
		c.mu.Unlock()
		return fmt.Errorf("jsonrpc2: %s is never cancelled: %w", f.req.Method, ErrNotPermitted)
	}
	f.cancelled.Store(true)
	delete(c.incoming, id)
	c.mu.Unlock()
	f.cancel(&CancelError{ID: id, Method: f.req.Method, Reason: reason, Source: SourceLocal})
	c.cancelled(f)
	c.info("request abandoned: its client is gone", slog.String("id", id.String()), slog.String("method", f.req.Method), slog.String("reason", reason))
	c.event(Event{Kind: EventApplied, Direction: Incoming, ID: id, Method: f.req.Method, Reason: reason, Source: SourceLocal})
	return nil
}
