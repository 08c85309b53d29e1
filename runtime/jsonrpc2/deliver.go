package jsonrpc2

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"sync"
)

// OutMessage is one message a Conn writes to a MessageWriter, described by
// what a transport needs to route it (its kind, the id it carries, its
// method, the code of an error response) so that no transport decodes what
// the Conn has just encoded.
type OutMessage struct {
	// Kind is the message's shape.
	Kind MessageKind
	// ID is the id of the request a response answers, of a request, or,
	// on a cancellation (the Policy's CancelledMethod), of the request it
	// cancels.
	ID RequestID
	// Method is a request's or a notification's method.
	Method string
	// Code is an error response's error code (0 otherwise).
	Code int
	// Data is the whole encoded message. It is the writer's: it may keep
	// it or edit it in place; the Conn never reads or modifies it again.
	Data []byte
	// Params is a request's params within Data, as the Conn encoded them
	// (nil for other messages and for a request without params): a writer
	// that rewrites requests (the session client's, which adds or strips
	// _meta) edits them without decoding Data.
	Params []byte
	// CloseStream is set on the cancellation of one of our requests under
	// a Policy with DisconnectIsCancellation (2026-07-28): ID is then the
	// cancelled request's, and a writer with one stream per request
	// (Streamable HTTP) closes that request's stream and sends nothing,
	// because closing it is the cancellation. Data is the
	// notifications/cancelled that a writer without such streams sends
	// instead.
	CloseStream bool
}

// MessageWriter takes messages described. A Transport that implements it
// (the one optional writing interface, beside MessageReader for reading)
// gets the Conn's responses, notifications and requests through
// WriteMessage instead of Write; the writer of a request handed to a Conn
// with Deliver gets that request's messages: its response (or, when it is
// refused, its error response), and whatever its handler sends while it
// runs (progress, log messages, a subscription's notifications; requests
// when the writer allows them). The response, or notifications/cancelled
// for the request itself, is the last message. WriteMessage may be called
// from several goroutines at once, as Transport.Write may; it must not
// block for long (a stalled client is the writer's to bound), an error
// means the message was not delivered, and m is not the writer's to keep
// after it returns (m.Data is).
type MessageWriter interface {
	WriteMessage(ctx context.Context, m *OutMessage) error
}

// writeOut writes one message the Conn produced on its transport:
// described when the transport is a MessageWriter (a legacy Streamable
// HTTP session routes it by kind and id without decoding it), else as
// bytes. m is a value on the caller's stack: only a MessageWriter gets it,
// in a pooled OutMessage, so no Conn allocates for the description.
func (c *Conn) writeOut(ctx context.Context, m OutMessage) error {
	if c.mw != nil {
		return c.describedWrite(ctx, m)
	}
	return c.t.Write(ctx, m.Data)
}

// describedWrite hands m to the MessageWriter in a pooled OutMessage: the
// writer may not keep it after WriteMessage returns (MessageWriter), and a
// description on the heap for every message would cost an allocation on
// every call of a session client, whose transport is a MessageWriter.
func (c *Conn) describedWrite(ctx context.Context, m OutMessage) error {
	o := outMessages.Get().(*OutMessage)
	*o = m
	err := c.mw.WriteMessage(ctx, o)
	*o = OutMessage{}
	outMessages.Put(o)
	return err
}

var outMessages = sync.Pool{New: func() any { return new(OutMessage) }}

// Delivery is a request handed to a Conn with Deliver, while it is served.
type Delivery struct {
	c *Conn
	f *inflight
}

// Deliver hands c one decoded request that someone else read: a Streamable
// HTTP server, which reads every request of the modern era in a POST of its
// own, serves all of them with one long-lived Conn instead of a Conn per
// request. The request is admitted, dispatched, intercepted and answered
// as one the Conn read itself, except that its response and whatever its
// handler sends go to w (never to the Conn's transport), and that it is
// known by its record, not its id: two deliverers may use the same id.
// values supplies the handler context's values (those of the HTTP
// request: the verified identity, for one) but not its cancellation,
// which is the Conn's and the Delivery's. m must be a request; Deliver
// returns nil, having answered on w, when the request is refused (server
// busy, the Conn shutting down).
func (c *Conn) Deliver(values context.Context, m *Message, w MessageWriter) *Delivery {
	if m == nil || m.Kind != KindRequest {
		panic("jsonrpc2: Deliver needs a request")
	}
	if values != nil {
		// Values only: the handler's ctx must find the Conn's cancelCtx
		// as its parent, not the HTTP request's, or context.WithCancelCause
		// would watch the parent from a goroutine of its own, one per
		// request (context.propagateCancel). The value layer on top is
		// for speed: a lookup through it walks the chain in place, where
		// withoutCancelCtx's own Value method copies itself to the heap on
		// every lookup (two per request).
		values = context.WithValue(context.WithoutCancel(values), valuesOnlyKey{}, nil)
	}
	c.delivering.Store(true)
	f := c.admit(m, values, w)
	if f == nil {
		return nil
	}
	f.rec.delivery = Delivery{c: c, f: f}
	return &f.rec.delivery
}

// valuesOnlyKey marks the value layer Deliver puts over a deliverer's
// values; it is never looked up.
type valuesOnlyKey struct{}

// StreamClosed reports that the stream the request's answer was to go on
// is gone. Under a Policy with DisconnectIsCancellation (2026-07-28, where
// closing the response stream is the client's cancellation) the handler's
// ctx ends with SourceStreamClosed and nothing more is written; otherwise
// it is only logged. Once the request is answered it has no effect.
func (d *Delivery) StreamClosed() { d.c.streamClosed(d.f) }

// writeDelivered writes one message of f's to its writer.
func (c *Conn) writeDelivered(f *inflight, msg []byte, kind MessageKind, code int) {
	o := &f.rec.final // written once per record: the response or its refusal
	*o = OutMessage{Kind: kind, ID: f.req.ID, Code: code, Data: msg}
	if err := f.out.WriteMessage(c.connCtx, o); err != nil {
		c.debug("writing response failed", slog.String("id", f.req.ID.String()), slog.String("error", err.Error()))
	}
}

// errRequestEnded refuses what a delivered request's handler sends after
// its request was answered or cancelled: its stream is over, and a late
// message must not follow the runtime's own last one.
var errRequestEnded = errors.New("jsonrpc2: the request this handler serves has ended")

// deliveredOf returns the record of the delivered request of c that ctx is
// the handler context of, or nil: what its handler sends goes to its
// writer.
func (c *Conn) deliveredOf(ctx context.Context) *inflight {
	if !c.delivering.Load() {
		return nil
	}
	f := inflightOf(ctx)
	if f == nil || f.out == nil || f.conn != c {
		return nil
	}
	return f
}

// writeFromHandler sends a message a delivered request's handler produced
// (a notification, or a request where the writer allows one) on its writer,
// unless the request has ended.
func (c *Conn) writeFromHandler(ctx context.Context, f *inflight, o *OutMessage) error {
	if f.cancelled.Load() || f.ctx.Err() != nil {
		return errRequestEnded
	}
	return f.out.WriteMessage(ctx, o)
}

// streamClosed is onDisconnect for a delivered request.
func (c *Conn) streamClosed(f *inflight) {
	if !c.pol.DisconnectIsCancellation {
		c.debug("request stream disconnected; not a cancellation under this policy", slog.String("id", f.req.ID.String()))
		return
	}
	c.mu.Lock()
	if _, ok := c.delivered[f]; !ok {
		c.mu.Unlock()
		c.ignored(Event{Direction: Incoming, ID: f.req.ID, Method: f.req.Method, Source: SourceStreamClosed, Why: IgnoreUnknownID})
		return
	}
	f.cancelled.Store(true)
	delete(c.delivered, f)
	c.mu.Unlock()
	c.applyStreamClosed(f)
}

// applyStreamClosed cancels f's handler for its closed stream.
func (c *Conn) applyStreamClosed(f *inflight) {
	reason := "the peer closed the request's stream"
	f.cancel(&CancelError{ID: f.req.ID, Method: f.req.Method, Reason: reason, Source: SourceStreamClosed})
	c.cancelled(f)
	c.info("request cancelled: the peer closed its stream", slog.String("id", f.req.ID.String()), slog.String("method", f.req.Method))
	c.event(Event{Kind: EventApplied, Direction: Incoming, ID: f.req.ID, Method: f.req.Method, Reason: reason, Source: SourceStreamClosed})
}

// CancelRequest ends, from this side, the incoming request whose handler
// context (or a context derived from it, values kept) is ctx, and tells the
// peer with notifications/cancelled: CancelIncoming for a handler that
// holds its own ctx rather than an id, which is the only way to name a
// delivered request (Deliver), whose id may be shared with another
// deliverer's.
func (c *Conn) CancelRequest(ctx context.Context, reason string) error {
	f := inflightOf(ctx)
	if f == nil || f.conn != c {
		return fmt.Errorf("jsonrpc2: CancelRequest: ctx is not the context of a handler of this Conn")
	}
	if f.out == nil {
		return c.CancelIncoming(f.req.ID, reason)
	}
	c.mu.Lock()
	if _, ok := c.delivered[f]; !ok {
		c.mu.Unlock()
		return fmt.Errorf("jsonrpc2: no incoming request %s in flight", f.req.ID)
	}
	if !c.pol.own.PeerRequests.Has(f.req.Method) {
		c.mu.Unlock()
		return fmt.Errorf("jsonrpc2: ending a %s request: %w", f.req.Method, ErrNotPermitted)
	}
	f.cancelled.Store(true)
	delete(c.delivered, f)
	c.mu.Unlock()
	f.cancel(&CancelError{ID: f.req.ID, Method: f.req.Method, Reason: reason, Source: SourceLocal})
	c.cancelled(f)
	if c.pol.CancelledMethod == "" {
		c.cancelIgnored(Incoming, f.req.ID, f.req.Method, reason, SourceLocal, IgnoreNotPermitted, "policy has no cancellation method")
		return nil
	}
	msg := appendCancelled(nil, c.pol.CancelledMethod, f.req.ID, reason)
	err := f.out.WriteMessage(c.connCtx, &OutMessage{Kind: KindNotification, ID: f.req.ID, Method: c.pol.CancelledMethod, Data: msg})
	c.cancelSent(f.req.ID, f.req.Method, reason, Incoming, SourceLocal, err)
	return nil
}

// NoTransport returns a Transport that carries nothing: Read waits until
// Close, Write fails. It is the transport of a Conn that only serves
// delivered requests (Deliver), such as the one Conn of a Streamable HTTP
// server's modern era.
func NoTransport() Transport { return &noTransport{closed: make(chan struct{})} }

type noTransport struct {
	closed chan struct{}
	once   sync.Once
}

func (t *noTransport) Read(ctx context.Context) ([]byte, error) {
	select {
	case <-t.closed:
		return nil, io.EOF
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

func (t *noTransport) Write(context.Context, []byte) error {
	return errors.New("jsonrpc2: this Conn has no transport of its own: it answers on each delivered request's writer")
}

func (t *noTransport) Close() error {
	t.once.Do(func() { close(t.closed) })
	return nil
}
