package jsonrpc2

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"runtime"
)

// requestCtx is the parent of a request's handler context, held inside the
// request's inflight record so that it costs no allocation of its own on
// every request: it carries the request (RequestFromContext) and, for a
// delivered request (Deliver), the values of whoever delivered it (an HTTP
// request's: the verified identity, for one). Done and Err are the
// parent's, so context.WithCancelCause still finds the parent's cancelCtx
// (through Value) and links to it without a goroutine.
type requestCtx struct {
	context.Context
	f      *inflight
	values context.Context // Deliver's values or Message.Values; nil otherwise
}

// Value returns the request for requestKey, else the delivered values',
// else the parent's value.
func (c *requestCtx) Value(key any) any {
	if _, ok := key.(requestKey); ok {
		return c.f
	}
	if c.values != nil {
		if v := c.values.Value(key); v != nil {
			return v
		}
	}
	return c.Context.Value(key)
}

// onRequest registers an incoming request in the in-flight table before its
// handler runs, then starts it on its own goroutine. Registering at read time
// is what lets a cancellation reach work that is queued behind
// WithMaxConcurrentHandlers or has not been scheduled yet.
func (c *Conn) onRequest(m *Message) { c.admit(m, m.Values, nil) }

// admit is onRequest for a request read by the Conn (w nil) or delivered
// to it (Deliver: w receives its response and what its handler sends,
// values are the deliverer's). It returns the record of an admitted
// request, nil when the request was refused (and answered) or dropped.
func (c *Conn) admit(m *Message, values context.Context, w MessageWriter) *inflight {
	var f *inflight
	if w != nil {
		d := &deliveredRecord{}
		d.f.rec = d
		f = &d.f
	} else {
		f = &inflight{}
	}
	f.req = Request{ID: m.ID, Method: m.Method, Params: m.Params, Version: m.Version}
	f.conn, f.out = c, w
	f.task = c.pol.isTask(m.Params) && c.acceptsTasks(m.Method)
	f.reqCtx = requestCtx{Context: c.connCtx, f: f, values: values}
	ctx, cancel := context.WithCancelCause(&f.reqCtx)
	f.ctx, f.cancel = ctx, cancel
	c.mu.Lock()
	if c.closing {
		cause := c.cause
		c.mu.Unlock()
		cancel(cause)
		c.debug("dropping request received during shutdown", slog.String("id", m.ID.String()), slog.String("method", m.Method))
		if w != nil {
			// Its deliverer waits for an answer that nothing else gives.
			c.writeDelivered(f, appendError(nil, m.ID, &Error{Code: CodeInternalError, Message: "internal error: connection closed"}), KindErrorResponse, CodeInternalError)
		}
		return nil
	}
	if w == nil {
		if _, dup := c.incoming[m.ID]; dup {
			c.mu.Unlock()
			cancel(nil)
			// Answering would look like the answer to the first request with
			// this id; the peer broke JSON-RPC's uniqueness rule, so log and drop.
			c.warnDuplicate(m.ID, m.Method)
			return nil
		}
	}
	// Admission counts handlers that have not returned: a request whose
	// response only waits for the transport costs no handler, and is
	// bounded by the read loop waiting for the output instead (waitOutput),
	// so a peer that reads slowly is slowed down, never refused.
	limit := c.cfg.maxInFlight
	live := c.isLiveness(m.Method)
	if live {
		limit += pingHeadroom
	}
	size := len(m.Params) + len(m.Method) + inflightOverhead
	over := func() bool {
		return c.running >= limit || (c.runBytes+size > c.cfg.maxInFlightBytes && c.running > 0 && !live)
	}
	for yields := 0; yields < admitYields && over(); yields++ {
		// The handlers counted may only be waiting for a CPU: the read
		// loop can route a pipelined burst of cheap requests faster than
		// their goroutines get scheduled, and on a loaded machine (a CI
		// run, other processes) one yield is not always enough for them
		// to finish. Let them run, a bounded number of times, before
		// refusing, so busy means handlers that are really running.
		c.mu.Unlock()
		runtime.Gosched()
		c.mu.Lock()
		if c.closing {
			cause := c.cause
			c.mu.Unlock()
			cancel(cause)
			if w != nil {
				c.writeDelivered(f, appendError(nil, m.ID, &Error{Code: CodeInternalError, Message: "internal error: connection closed"}), KindErrorResponse, CodeInternalError)
			}
			return nil
		}
	}
	if over() {
		msg := appendError(nil, m.ID, &Error{Code: CodeServerBusy, Message: fmt.Sprintf("server busy: %d handlers running (%d bytes of params); retry later", c.running, c.runBytes)})
		c.mu.Unlock()
		cancel(nil)
		c.event(Event{Kind: EventBusy, Direction: Incoming, ID: m.ID, Method: m.Method})
		if w != nil {
			// The deliverer's goroutine (one HTTP request's) pays for its
			// own refusal.
			c.writeDelivered(f, msg, KindErrorResponse, CodeServerBusy)
			return nil
		}
		// Admission happens here, before any goroutine or queue slot is
		// spent on the request, so a flood costs one error reply each, and
		// those are bounded by the sender's byte budget.
		c.sendAsync(msg, m.ID, CodeServerBusy)
		return nil
	}
	if w == nil {
		c.incoming[m.ID] = f
	} else {
		if c.delivered == nil {
			c.delivered = map[*inflight]struct{}{}
		}
		c.delivered[f] = struct{}{}
	}
	c.active++
	c.running++
	if c.pol.never[m.Method] {
		f.never = true
		c.neverActive++
	}
	f.size = size
	c.runBytes += size
	c.markOutputLocked()
	spawn := c.dispatchLocked(f)
	c.mu.Unlock()
	if spawn {
		go c.worker(f)
	}
	return f
}

// admitYields bounds how often admission yields the processor to running
// handlers before it refuses a request as busy: enough for a burst of
// cheap handlers to be scheduled on a loaded machine, cheap (microseconds)
// for each refused request when the handlers really are all busy.
const admitYields = 64

// forgetLocked removes f from the table it was registered in: the
// in-flight table by id for a request the Conn read, the delivered set for
// one handed to Deliver (whose ids are the deliverers' business: two HTTP
// clients may both send id 1). Called with mu held.
func (c *Conn) forgetLocked(f *inflight) {
	if f.out != nil {
		delete(c.delivered, f)
		return
	}
	if c.incoming[f.req.ID] == f {
		delete(c.incoming, f.req.ID)
	}
}

// isLiveness reports whether method is the Policy's LivenessMethod, which
// admission lets past a full house.
func (c *Conn) isLiveness(method string) bool {
	return c.pol.LivenessMethod != "" && method == c.pol.LivenessMethod
}

// requestKey is the context key of the Request a handler serves.
type requestKey struct{}

// RequestFromContext returns the incoming request whose handler ctx belongs
// to (its id, method and raw params), so typed handlers, which receive only
// the decoded params, can log or correlate by request id.
func RequestFromContext(ctx context.Context) (*Request, bool) {
	f, ok := ctx.Value(requestKey{}).(*inflight)
	if !ok {
		return nil, false
	}
	return &f.req, true
}

// inflightOf returns the record of the request whose handler ctx belongs
// to, or nil.
func inflightOf(ctx context.Context) *inflight {
	f, _ := ctx.Value(requestKey{}).(*inflight)
	return f
}

// serve runs one request's handler and answers it, unless it was cancelled.
func (c *Conn) serve(f *inflight) {
	defer c.handlerExited(f)
	if c.sem != nil && !c.isLiveness(f.req.Method) {
		select {
		case c.sem <- struct{}{}:
			defer func() { <-c.sem }()
		case <-f.ctx.Done():
			c.dropCancelled(f, "cancelled while queued; handler never started")
			return
		}
	}
	if f.ctx.Err() != nil {
		c.dropCancelled(f, "cancelled before its handler started")
		return
	}
	h := c.reqChain
	if h == nil {
		c.hmu.RLock()
		h = c.handlers[f.req.Method]
		c.hmu.RUnlock()
	}
	var result any
	var err error
	if h == nil {
		err = NewMethodNotFoundError(f.req.Method)
	} else {
		result, err = c.invoke(h, f)
	}
	c.respond(f, result, err)
}

// invoke calls h, turning a panic into a -32603 error so one bad handler does
// not take the process down. The panic is logged at Error with the
// goroutine's stack (rate-limited: a handler that panics on every request
// must not flood the log), since without the stack the log says only that
// something, somewhere, went wrong.
func (c *Conn) invoke(h Handler, f *inflight) (result any, err error) {
	defer func() {
		if r := recover(); r != nil {
			c.logPanic("request handler panicked", r, slog.String("id", f.req.ID.String()), slog.String("method", f.req.Method))
			result, err = nil, &Error{Code: CodeInternalError, Message: "internal error: handler panicked"}
		}
	}()
	return h(f.ctx, &f.req)
}

// respond writes the handler's answer unless a cancellation was applied
// first. The in-flight entry is removed under the lock in the same step that
// checks for cancellation, so each request has exactly one outcome: either a
// cancellation was applied and nothing is written, or the response is
// written and later cancellations find no entry and are ignored.
func (c *Conn) respond(f *inflight, result any, herr error) {
	// A cancellation once applied is final, so a handler that returns after
	// one (usually with ctx.Err()) is spared encoding an answer nobody gets.
	// Only the check under the lock below decides.
	var msg []byte
	var code int
	if !f.cancelled.Load() {
		msg, code = encodeOutcome(f.req.ID, result, herr)
	}
	c.mu.Lock()
	if f.cancelled.Load() {
		c.mu.Unlock()
		c.dropCancelled(f, "handler returned after cancellation; response dropped")
		return
	}
	c.forgetLocked(f)
	// The handler has returned: it no longer counts against admission.
	// Its response is held until the transport has taken it, which for a
	// peer that does not read is as long as the peer likes: it counts
	// against the output bound instead, which stops the read loop (not
	// admission) until the peer has read enough.
	// The request's params stay charged with the response: the message
	// buffer they alias lives as long as this goroutine holds f.
	c.releaseLocked(f)
	f.outSize, f.writing = len(msg)+f.size, true
	c.unwritten++
	c.unwrBytes += f.outSize
	c.markOutputLocked()
	c.mu.Unlock()
	c.awaitQueuedCancels(f)
	kind := KindResponse
	if code != 0 {
		kind = KindErrorResponse
	}
	if f.out != nil {
		c.writeDelivered(f, msg, kind, code)
		f.cancel(errRequestDone)
		return
	}
	if err := c.writeOut(c.connCtx, OutMessage{Kind: kind, ID: f.req.ID, Code: code, Data: msg}); err != nil {
		if errors.Is(err, ErrMessageTooLarge) {
			msg = appendError(nil, f.req.ID, &Error{Code: CodeInternalError, Message: "internal error: " + err.Error()})
			err = c.t.Write(c.connCtx, msg)
		}
		if err != nil {
			c.warn("writing response failed", slog.String("id", f.req.ID.String()), slog.String("error", err.Error()))
		}
	}
	f.cancel(errRequestDone)
}

func (c *Conn) dropCancelled(f *inflight, what string) {
	if c.log.Enabled(context.Background(), slog.LevelDebug) {
		c.debug(what, slog.String("id", f.req.ID.String()), slog.String("method", f.req.Method),
			slog.Any("cause", context.Cause(f.ctx)))
	}
	f.cancel(errRequestDone)
}

// releaseLocked stops charging f's handler to admission, once. Called with
// mu held, on f's worker goroutine.
func (c *Conn) releaseLocked(f *inflight) {
	if f.released {
		return
	}
	f.released = true
	c.running--
	c.runBytes -= f.size
}

func (c *Conn) handlerExited(f *inflight) {
	c.mu.Lock()
	c.active--
	if f.never {
		c.neverActive--
	}
	c.releaseLocked(f)
	if f.writing {
		f.writing = false
		c.unwritten--
		c.unwrBytes -= f.outSize
	}
	c.wakeOutputIfDrainedLocked()
	f.exited = true
	if f.stuck != nil {
		f.stuck.Stop()
		f.stuck = nil
	}
	c.wakeDrainLocked() // after EOF, the drain re-checks what still runs
	c.checkIdleLocked()
	c.mu.Unlock()
}

// responseEnvelope is what appendResult adds to the result and the id's text:
// the members around them, a string id's quotes, and {} for a nil result.
const responseEnvelope = len(`{"jsonrpc":"2.0","id":"","result":{}}`)

// encodeResponse builds the response message for a handler's outcome.
func encodeResponse(id RequestID, result any, herr error) []byte {
	msg, _ := encodeOutcome(id, result, herr)
	return msg
}

// encodeOutcome is encodeResponse that also returns the error code of an
// error response (0 for a result), for OutMessage.
func encodeOutcome(id RequestID, result any, herr error) ([]byte, int) {
	if herr != nil {
		var rpcErr *Error
		if !errors.As(herr, &rpcErr) {
			rpcErr = &Error{Code: CodeInternalError, Message: "internal error: " + herr.Error()}
		}
		return appendError(nil, id, rpcErr), rpcErr.Code
	}
	return encodeResultCode(id, result)
}

// The output bound: responses whose handlers returned and that wait for the
// transport (a peer reading slower than we answer, or not at all). While
// such responses exist and, with the running handlers, reach the in-flight
// limits (WithMaxInFlight handlers and responses, WithMaxInFlightBytes
// bytes of params and responses), the read loop stops reading until the
// output has drained: to nothing, or to half the limits. The peer's writes
// then back up instead of its requests being refused, so a reader is slowed
// to its own pace, and a peer that never reads stops being read, holding at
// most the in-flight budget of our memory, as before.
//
// Running handlers alone never stop the read loop: a cancellation for one
// of them must still be read. Over the limits they make the Conn refuse new
// requests as busy instead (onRequest).

// outputFullLocked reports whether the read loop must wait for the output.
// Called with mu held.
func (c *Conn) outputFullLocked() bool {
	return c.unwritten > 0 && (c.running+c.unwritten >= c.cfg.maxInFlight || c.runBytes+c.unwrBytes >= c.cfg.maxInFlightBytes)
}

// markOutputLocked sets outFull once the bound is reached. Called with mu
// held after a request was admitted or a response charged.
func (c *Conn) markOutputLocked() {
	if !c.outFull.Load() && c.outputFullLocked() {
		c.outFull.Store(true)
	}
}

// wakeOutputIfDrainedLocked lets the read loop go on once the output has
// drained: nothing left unwritten, or half the limits (not at once below
// them, which would wake it for every single write). Called with mu held.
func (c *Conn) wakeOutputIfDrainedLocked() {
	if c.outFull.Load() && (c.unwritten == 0 ||
		(c.running+c.unwritten <= c.cfg.maxInFlight/2 && c.runBytes+c.unwrBytes <= c.cfg.maxInFlightBytes/2)) {
		c.wakeOutputLocked()
	}
}

// wakeOutputLocked ends waitOutput's wait (drained, or shutting down).
// Called with mu held.
func (c *Conn) wakeOutputLocked() {
	c.outFull.Store(false)
	if c.outWait != nil {
		close(c.outWait)
		c.outWait = nil
	}
}

// waitOutput is called by the read loop before it reads a message: while
// the output bound is reached it waits for the responses to drain (or for
// the shutdown). It costs one atomic load when the output is not full.
func (c *Conn) waitOutput() {
	for c.outFull.Load() {
		c.mu.Lock()
		if c.closing || !c.outFull.Load() {
			c.mu.Unlock()
			return
		}
		if c.outWait == nil {
			c.outWait = make(chan struct{})
		}
		ch := c.outWait
		c.mu.Unlock()
		if c.outputWaitHook != nil {
			c.outputWaitHook()
		}
		<-ch
	}
}
