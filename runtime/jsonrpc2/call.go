package jsonrpc2

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"sync"

	"github.com/mcpgen/mcpgen/runtime/internal/jsonscan"
)

// call is one outgoing request awaiting its response.
type call struct {
	ctx    context.Context // the caller's: its cause is the reason when Close abandons the call
	id     RequestID
	method string
	task   bool // task-augmented: never cancelled by notification

	done   chan struct{} // closed by whoever removes the call from Conn.outgoing
	result json.RawMessage
	rpcErr *Error
	err    error

	// prog is nil unless the call asked for progress: most calls do not,
	// and a call record without it fits a smaller size class.
	prog *callProgress
}

// callProgress is what a call that asked for progress keeps: its token
// and the progress notifications queued for its callback.
type callProgress struct {
	token ProgressToken
	mu    sync.Mutex
	q     []ProgressParams
	sig   chan struct{} // cap 1
}

// progressSignal is the channel progress for cl is signalled on; nil (never
// ready) when cl asked for none.
func (cl *call) progressSignal() chan struct{} {
	if cl.prog == nil {
		return nil
	}
	return cl.prog.sig
}

// ErrClosed is wrapped by errors from Call and Notify on a Conn that has shut
// down before the request could be written.
var ErrClosed = errors.New("jsonrpc2: connection closed")

// Call sends a request and waits for its response, decoding the result into
// result (if non-nil; a *json.RawMessage receives it verbatim). params is
// encoded with encoding/json unless it is a json.RawMessage.
//
// If ctx ends first, Call returns ctx.Err() at once; the runtime sends
// notifications/cancelled {requestId, reason: context.Cause(ctx).Error()}
// exactly once, unless the Policy forbids it (initialize, task-augmented
// requests, methods this side may not cancel), and drops any late response.
// Over a pipe with room (and in memory) the notification is written before
// Call returns; otherwise it is queued and written in the background, so
// Call never blocks on it. A timeout from the CallOptions does the same and
// returns a *CancelError saying which limit fired. An error response is
// returned as an *Error. If the Conn shuts down, Call returns the shutdown's
// *CancelError.
func (c *Conn) Call(ctx context.Context, method string, params any, result any, opts ...CallOption) error {
	if c.callChain != nil {
		return c.callChain(ctx, method, params, result, opts...)
	}
	return c.call(ctx, method, params, result, opts...)
}

// call is Call without the call interceptors.
func (c *Conn) call(ctx context.Context, method string, params any, result any, opts ...CallOption) error {
	cc := callConfig{timeout: c.cfg.defaultTimeout, maxTimeout: c.cfg.defaultMax}
	if len(opts) > 0 {
		cc = withCallOptions(cc, opts)
	}
	if err := ctx.Err(); err != nil {
		return err // nothing written, so nothing to cancel
	}
	// The request is encoded and written in frames of its own, gone by the
	// time the caller waits: a cancellation runs on top of what the
	// waiting goroutine has on its stack, and a stack that has to grow
	// (a copy of it) then delays the notification by microseconds.
	cl, err := c.issue(ctx, method, params, &cc)
	if err != nil {
		return err
	}
	return c.wait(ctx, cl, &cc, result)
}

// withCallOptions is cc with opts applied. Passing &cc to an option makes
// it escape, so call does it here, only when there are options: a call
// without any keeps its config on the stack.
func withCallOptions(cc callConfig, opts []CallOption) callConfig {
	for _, o := range opts {
		o(&cc)
	}
	return cc
}

// issue encodes, registers and writes a request for Call.
func (c *Conn) issue(ctx context.Context, method string, params any, cc *callConfig) (*call, error) {
	cl := &call{ctx: ctx, method: method, done: make(chan struct{})}
	cl.id = Int64ID(c.nextID.Add(1))
	var msg, paramsIn []byte // paramsIn: the params within msg
	if a, ok := asAppender(params); ok && !cc.resetProgress && cc.onProgress == nil {
		// The params write themselves into the message (encode.go).
		var pre [128]byte
		m, start, end, err := appendedMessage(appendRequestPrefix(pre[:0], cl.id, method), a, '}')
		if err != nil {
			return nil, fmt.Errorf("jsonrpc2: encoding %s params: %w", method, err)
		}
		cl.task = c.pol.isTask(m[start:end])
		msg, paramsIn = m, m[start:end:end]
	} else {
		raw, err := marshalValue(params)
		if err != nil {
			return nil, fmt.Errorf("jsonrpc2: encoding %s params: %w", method, err)
		}
		if cc.resetProgress || cc.onProgress != nil {
			cl.prog = &callProgress{sig: make(chan struct{}, 1)}
			raw, cl.prog.token, err = injectProgressToken(raw, cl.id)
			if err != nil {
				return nil, fmt.Errorf("jsonrpc2: %s: %w", method, err)
			}
		}
		cl.task = c.pol.isTask(raw)
		msg = appendRequest(make([]byte, 0, len(raw)+len(method)+48), cl.id, method, raw)
		if len(raw) > 0 {
			end := len(msg) - 1 // before the closing brace appendParams wrote
			paramsIn = msg[end-len(raw) : end : end]
		}
	}

	c.mu.Lock()
	if c.closing {
		cause := c.cause
		c.mu.Unlock()
		return nil, fmt.Errorf("jsonrpc2: %s: %w: %w", method, ErrClosed, cause)
	}
	if cl.prog != nil {
		if _, busy := c.progress[cl.prog.token]; busy {
			c.mu.Unlock()
			return nil, fmt.Errorf("jsonrpc2: %s: progress token %s is already in use", method, cl.prog.token)
		}
		c.progress[cl.prog.token] = cl
	}
	c.outgoing[cl.id] = cl
	c.mu.Unlock()

	var werr error
	if f := c.deliveredOf(ctx); f != nil {
		werr = c.writeFromHandler(ctx, f, &OutMessage{Kind: KindRequest, ID: cl.id, Method: method, Data: msg, Params: paramsIn})
	} else if werr = c.sender.awaitMessages(ctx); werr == nil { // after the cancellations queued before it
		werr = c.writeOut(ctx, OutMessage{Kind: KindRequest, ID: cl.id, Method: method, Data: msg, Params: paramsIn})
	}
	if err := werr; err != nil {
		// Not written: remove it, and send no cancellation for it.
		if c.forget(cl) && ctx.Err() != nil {
			c.event(Event{Kind: EventRequested, Direction: Outgoing, ID: cl.id, Method: method, Reason: reasonOf(ctx), Source: SourceCaller})
			c.ignored(Event{Direction: Outgoing, ID: cl.id, Method: method, Reason: reasonOf(ctx), Source: SourceCaller, Why: IgnoreNotWritten})
			return nil, ctx.Err()
		}
		if ce := c.Err(); ce != nil {
			return nil, fmt.Errorf("jsonrpc2: %s: %w: %w", method, ErrClosed, ce)
		}
		return nil, fmt.Errorf("jsonrpc2: writing %s request: %w", method, err)
	}
	return cl, nil
}

// finish decodes a resolved call's outcome.
func (cl *call) finish(result any) error {
	if cl.err != nil {
		return cl.err
	}
	if cl.rpcErr != nil {
		return cl.rpcErr
	}
	if result == nil {
		return nil
	}
	if rm, ok := result.(*json.RawMessage); ok {
		*rm = cl.result
		return nil
	}
	// The message was validated when it was read, so a result type with its
	// own decoder (every generated one) is spared encoding/json's second
	// validation scan and reflection.
	var err error
	if u, ok := result.(json.Unmarshaler); ok {
		err = u.UnmarshalJSON(cl.result)
	} else {
		err = json.Unmarshal(cl.result, result)
	}
	if err != nil {
		return fmt.Errorf("jsonrpc2: decoding %s result: %w", cl.method, err)
	}
	return nil
}

// forget removes cl from the tables. It reports whether cl was still there,
// i.e. whether the caller now owns its outcome (no response, no shutdown).
func (c *Conn) forget(cl *call) bool { return c.take(cl, false) }

// take is forget; with cancelling set it also registers, in the same step,
// a cancellation about to be queued, which Close waits for before flushing
// (see Conn.abandoning).
func (c *Conn) take(cl *call, cancelling bool) bool {
	c.mu.Lock()
	owned := c.outgoing[cl.id] == cl
	if owned {
		if cancelling {
			c.abandoning.Add(1)
		}
		delete(c.outgoing, cl.id)
		if cl.prog != nil {
			delete(c.progress, cl.prog.token)
		}
	}
	c.mu.Unlock()
	return owned
}

// abandon gives up on a written call and cancels it on the wire, unless its
// response (or the shutdown) got there first, in which case there is nothing
// left to cancel.
//
// It reports whether the caller owned the call's outcome; false means the
// response or the shutdown resolved it first.
func (c *Conn) abandon(cl *call, reason string, src CancelSource) bool {
	if !c.take(cl, true) {
		return false
	}
	defer c.abandoning.Done()
	c.cancelOnWire(cl, reason, src)
	return true
}

// cancelOnWire tells the peer that a written call is abandoned, as the
// Policy allows: notifications/cancelled, or closing the request's stream
// where that is the cancellation. The caller has already removed cl from
// the outgoing table, so this happens at most once per call.
//
// It and sendCancelled run on the cancelled caller's goroutine, before the
// notification is written, so they keep their frames small: events and log
// lines are built in helpers that are not inlined (see cancelEvent).
func (c *Conn) cancelOnWire(cl *call, reason string, src CancelSource) {
	c.cancelEvent(EventRequested, Outgoing, cl.id, cl.method, reason, src)
	var why IgnoreReason
	switch {
	case c.pol.never[cl.method]:
		why = IgnoreNotCancellable
	case cl.task:
		why = IgnoreTaskAugmented
	case !c.pol.own.OwnRequests.Has(cl.method):
		why = IgnoreNotPermitted
	}
	if why != IgnoreNone {
		c.cancelIgnored(Outgoing, cl.id, cl.method, reason, src, why, "")
		return
	}
	if c.mw != nil && c.pol.DisconnectIsCancellation {
		c.closeRequestStream(cl, reason, src)
		return
	}
	c.sendCancelled(cl.ctx, cl.id, cl.method, reason, Outgoing, src)
}

// closeRequestStream cancels cl where closing its stream is the
// cancellation (2026-07-28 over Streamable HTTP): the transport's writer is
// asked to close it (OutMessage.CloseStream).
func (c *Conn) closeRequestStream(cl *call, reason string, src CancelSource) {
	msg := appendCancelled(nil, c.pol.CancelledMethod, cl.id, reason)
	err := c.mw.WriteMessage(context.WithoutCancel(cl.ctx), &OutMessage{Kind: KindNotification, ID: cl.id, Method: c.pol.CancelledMethod, Data: msg, CloseStream: true})
	c.info("cancelled call by closing its stream", slog.String("id", cl.id.String()),
		slog.String("method", cl.method), slog.String("reason", reason), slog.Any("error", err))
	c.cancelEvent(EventSent, Outgoing, cl.id, cl.method, reason, src)
}

// sendCancelled writes notifications/cancelled if the transport can do so
// without blocking, and otherwise queues it on the sender goroutine, so the
// caller never blocks on it and Close can flush it. ctx is the cancelled
// call's (context.Background() for none): when it is a handler's, the handler's response
// waits for a queued notification (see noteQueuedCancel).
func (c *Conn) sendCancelled(ctx context.Context, id RequestID, method, reason string, dir Direction, src CancelSource) {
	if c.pol.CancelledMethod == "" {
		c.cancelIgnored(dir, id, method, reason, src, IgnoreNotPermitted, "policy has no cancellation method")
		return
	}
	msg := appendCancelled(nil, c.pol.CancelledMethod, id, reason)
	// Written here when that cannot block (see tryWriter); the peer's
	// handler is then cancelled without waiting on two goroutine hand-offs.
	if tw, ok := c.t.(tryWriter); ok && tw.tryWrite(msg) {
		c.cancelSent(id, method, reason, dir, src, nil)
		return
	}
	c.noteQueuedCancel(ctx)
	c.queueCancelled(msg, id, method, reason, dir, src)
}

// appendCancelled appends the notification method (the Policy's
// CancelledMethod) that cancels request id for reason.
func appendCancelled(dst []byte, method string, id RequestID, reason string) []byte {
	if dst == nil {
		dst = make([]byte, 0, len(`{"jsonrpc":"2.0","method":"","params":{"requestId":,"reason":""}}`)+len(method)+id.textLen()+2+len(reason))
	}
	dst = appendNotificationPrefix(dst, method)
	dst = append(dst, `{"requestId":`...)
	dst = id.appendJSON(dst)
	if reason != "" {
		dst = append(dst, `,"reason":`...)
		dst = appendJSONString(dst, reason)
	}
	return append(dst, "}}"...)
}

// queueCancelled queues a cancellation on the sender goroutine; a
// MessageWriter gets it described, its ID the cancelled request's.
func (c *Conn) queueCancelled(msg []byte, id RequestID, method, reason string, dir Direction, src CancelSource) {
	var ok bool
	if c.mw != nil {
		ok = c.sender.push(func(ctx context.Context) {
			err := c.mw.WriteMessage(ctx, &OutMessage{Kind: KindNotification, ID: id, Method: c.pol.CancelledMethod, Data: msg})
			c.cancelSent(id, method, reason, dir, src, err)
		})
	} else {
		ok = c.sender.pushMessage(msg, func(err error) { c.cancelSent(id, method, reason, dir, src, err) }, 0, false)
	}
	if !ok {
		c.cancelIgnored(dir, id, method, reason, src, IgnoreClosed, "")
	}
}

// cancelSent logs and reports the outcome of writing a cancellation.
func (c *Conn) cancelSent(id RequestID, method, reason string, dir Direction, src CancelSource, err error) {
	if err != nil {
		c.cancelIgnored(dir, id, method, reason, src, IgnoreClosed, err.Error())
		return
	}
	if c.log.Enabled(context.Background(), slog.LevelInfo) {
		c.info("sent cancellation", slog.String("id", id.String()), slog.String("method", method),
			slog.String("reason", reason), slog.String("source", src.String()))
	}
	c.cancelEvent(EventSent, dir, id, method, reason, src)
}

// cancelEvent reports an event to the Observer, if there is one. It is not
// inlined so that its Event (a hundred-odd bytes) is not reserved in the
// frames of the cancellation path.
//
//go:noinline
func (c *Conn) cancelEvent(kind EventKind, dir Direction, id RequestID, method, reason string, src CancelSource) {
	c.event(Event{Kind: kind, Direction: dir, ID: id, Method: method, Reason: reason, Source: src})
}

// cancelIgnored reports and logs a cancellation that was not sent (see
// ignored); not inlined, for the reason cancelEvent is not.
//
//go:noinline
func (c *Conn) cancelIgnored(dir Direction, id RequestID, method, reason string, src CancelSource, why IgnoreReason, detail string) {
	c.ignored(Event{Direction: dir, ID: id, Method: method, Reason: reason, Source: src, Why: why, Detail: detail})
}

// reasonOf is the reason sent for a caller's cancellation: the context's
// cause, which is context.Canceled's text unless the caller set one.
func reasonOf(ctx context.Context) string {
	if cause := context.Cause(ctx); cause != nil {
		return cause.Error()
	}
	return "context canceled"
}

// Notify sends a notification. It fails if the Conn has shut down.
func (c *Conn) Notify(ctx context.Context, method string, params any) error {
	if c.notifyChain != nil {
		return c.notifyChain(ctx, method, params)
	}
	return c.notify(ctx, method, params)
}

// notify is Notify without the notify interceptors.
func (c *Conn) notify(ctx context.Context, method string, params any) error {
	var msg []byte
	if a, ok := asAppender(params); ok {
		var pre [128]byte
		m, _, _, err := appendedMessage(appendNotificationPrefix(pre[:0], method), a, '}')
		if err != nil {
			return fmt.Errorf("jsonrpc2: encoding %s params: %w", method, err)
		}
		msg = m
	} else {
		raw, err := marshalValue(params)
		if err != nil {
			return fmt.Errorf("jsonrpc2: encoding %s params: %w", method, err)
		}
		msg = appendNotification(nil, method, raw)
	}
	if ce := c.Err(); ce != nil {
		return fmt.Errorf("jsonrpc2: %s: %w: %w", method, ErrClosed, ce)
	}
	if f := c.deliveredOf(ctx); f != nil {
		return c.writeFromHandler(ctx, f, &OutMessage{Kind: KindNotification, Method: method, Data: msg})
	}
	return c.writeOut(ctx, OutMessage{Kind: KindNotification, Method: method, Data: msg})
}

// NotifyProgress sends the Policy's progress notification; handlers use it
// with the token from Request.ProgressToken.
func (c *Conn) NotifyProgress(ctx context.Context, p ProgressParams) error {
	return c.Notify(ctx, c.pol.ProgressMethod, p)
}

// onProgress hands a progress notification to the call that owns its token.
// The callback and the timeout reset run on the caller's goroutine, so the
// read loop only appends to a queue.
func (c *Conn) onProgress(params []byte) {
	tok, ok, err := progressTokenOfNotification(params)
	if !ok || err != nil {
		return
	}
	c.mu.Lock()
	cl := c.progress[tok]
	c.mu.Unlock()
	if cl == nil {
		return
	}
	var p ProgressParams
	if err := json.Unmarshal(params, &p); err != nil {
		c.debug("malformed progress notification", slog.String("error", err.Error()))
		return
	}
	cl.prog.mu.Lock()
	cl.prog.q = append(cl.prog.q, p)
	cl.prog.mu.Unlock()
	signal(cl.prog.sig)
}

func progressTokenOfNotification(params []byte) (ProgressToken, bool, error) {
	if len(params) == 0 || params[0] != '{' {
		return ProgressToken{}, false, nil
	}
	raw := jsonscan.Member(params, "progressToken")
	if raw == nil {
		return ProgressToken{}, false, nil
	}
	tok, err := ParseRequestID(raw)
	return tok, err == nil, err
}
