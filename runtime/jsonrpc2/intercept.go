package jsonrpc2

import (
	"context"
)

// Interceptors are the Conn's one seam for cross-cutting behaviour (the
// session's lifecycle, tasks, logging, auth, tracing): functions around the
// handling of incoming requests and notifications and around outgoing calls
// and notifications, modelled on grpc's UnaryServerInterceptor and
// UnaryClientInterceptor and on go-sdk's AddReceivingMiddleware.
//
// Order: interceptors compose in the order they are given, the first being
// the outermost (as grpc.ChainUnaryInterceptor): with WithInterceptors(a, b)
// a request runs a, which calls next to run b, which calls next to run the
// handler registered for the method. Interceptors given to NewConn come
// before (outside) those added later with Conn.Intercept. The chains are
// composed before the Conn starts, so a Conn without interceptors pays
// nothing per message and one with them allocates nothing for the chain.

// RequestInterceptor runs around the handling of every incoming request,
// whether or not a handler is registered for its method (next then answers
// -32601), in the request's ctx (cancelled as the handler's is). It may
// answer itself without calling next, change ctx or req before calling it,
// or change what next returned. A panic in it is answered with -32603, as a
// handler's.
type RequestInterceptor func(ctx context.Context, req *Request, next Handler) (any, error)

// NotificationInterceptor runs around the handling of every incoming
// notification (next does nothing when no handler is registered for the
// method), on the Conn's notification goroutine, in arrival order. The
// cancellation notification is the runtime's and never reaches it; a
// progress notification reaches it after the runtime has used it.
type NotificationInterceptor func(ctx context.Context, n *Notification, next NotificationHandler)

// Caller sends one outgoing request, as Conn.Call does.
type Caller func(ctx context.Context, method string, params, result any, opts ...CallOption) error

// CallInterceptor runs around every outgoing request made with Conn.Call,
// on the caller's goroutine. next sends the request and waits for the
// answer; ending ctx cancels it, as for Call.
type CallInterceptor func(ctx context.Context, method string, params, result any, next Caller, opts ...CallOption) error

// Notifier sends one outgoing notification, as Conn.Notify does.
type Notifier func(ctx context.Context, method string, params any) error

// NotifyInterceptor runs around every outgoing notification sent with
// Conn.Notify (and NotifyProgress). The runtime's own cancellation
// notifications do not pass through it: their timing is the Policy's.
type NotifyInterceptor func(ctx context.Context, method string, params any, next Notifier) error

// Interceptor groups the interceptors of one concern; any field may be
// nil. One value can thus trace requests, notifications and calls alike.
type Interceptor struct {
	Request      RequestInterceptor
	Notification NotificationInterceptor
	Call         CallInterceptor
	Notify       NotifyInterceptor
}

// WithInterceptors adds interceptors to the Conn, after (inside) those
// already given; see Interceptor for the order.
func WithInterceptors(ics ...Interceptor) Option {
	return func(c *config) { c.interceptors = append(c.interceptors, ics...) }
}

// Intercept adds interceptors inside those the Conn already has. It is for
// a layer that is handed a Conn its creator built (the task manager): call
// it before Start; once the Conn has started it panics, as a chain changed
// under running requests would run some requests with it and some without.
func (c *Conn) Intercept(ics ...Interceptor) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.started {
		panic("jsonrpc2: Conn.Intercept after Start")
	}
	c.cfg.interceptors = append(c.cfg.interceptors, ics...)
	c.composeLocked()
}

// composeLocked builds the chains from c.cfg.interceptors. Called at
// NewConn and by Intercept, before Start: afterwards the chains are only
// read, so the hot path reads them without a lock.
func (c *Conn) composeLocked() {
	c.reqChain, c.noteChain, c.callChain, c.notifyChain = nil, nil, nil, nil
	ics := c.cfg.interceptors
	for i := len(ics) - 1; i >= 0; i-- {
		if ic := ics[i].Request; ic != nil {
			next := c.reqChain
			if next == nil {
				next = c.handleRequest
			}
			c.reqChain = func(ctx context.Context, req *Request) (any, error) { return ic(ctx, req, next) }
		}
		if ic := ics[i].Notification; ic != nil {
			next := c.noteChain
			if next == nil {
				next = c.handleNotification
			}
			c.noteChain = func(ctx context.Context, n *Notification) { ic(ctx, n, next) }
		}
		if ic := ics[i].Call; ic != nil {
			next := c.callChain
			if next == nil {
				next = c.call
			}
			c.callChain = func(ctx context.Context, method string, params, result any, opts ...CallOption) error {
				return ic(ctx, method, params, result, next, opts...)
			}
		}
		if ic := ics[i].Notify; ic != nil {
			next := c.notifyChain
			if next == nil {
				next = c.notify
			}
			c.notifyChain = func(ctx context.Context, method string, params any) error {
				return ic(ctx, method, params, next)
			}
		}
	}
}

// handleRequest is the innermost request handler: the one registered for
// the method, or -32601.
func (c *Conn) handleRequest(ctx context.Context, req *Request) (any, error) {
	c.hmu.RLock()
	h := c.handlers[req.Method]
	c.hmu.RUnlock()
	if h == nil {
		return nil, NewMethodNotFoundError(req.Method)
	}
	return h(ctx, req)
}

// handleNotification is the innermost notification handler.
func (c *Conn) handleNotification(ctx context.Context, n *Notification) {
	c.hmu.RLock()
	h := c.notes[n.Method]
	c.hmu.RUnlock()
	if h != nil {
		h(ctx, n)
	}
}

// HandleEmbedded answers req as an incoming request would be answered,
// through the request interceptors and the handler registered for its
// method, and returns the answer instead of writing it. It is for requests
// that reach this side inside another message rather than on their own:
// the input requests a modern server embeds in an InputRequiredResult
// (MRTR), which the client answers with the same handlers as a legacy
// server's ordinary requests. req.ID is zero, as such requests have none.
func (c *Conn) HandleEmbedded(ctx context.Context, req *Request) (any, error) {
	if c.reqChain != nil {
		return c.reqChain(ctx, req)
	}
	return c.handleRequest(ctx, req)
}
