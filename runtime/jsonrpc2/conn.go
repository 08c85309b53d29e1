package jsonrpc2

import (
	"context"
	"encoding/json"
	"errors"
	"github.com/mcpgen/mcpgen/runtime/logsink"
	"io"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"
)

// Request is an incoming request as a Handler sees it.
type Request struct {
	ID     RequestID
	Method string
	// Params is the raw params member (nil when absent). It aliases the
	// message buffer, which is never reused, so a handler may keep it.
	Params json.RawMessage
	// Version is the protocol version the transport decided the request
	// is of (Message.Version), empty when it decided none.
	Version string
}

// Handler answers one request. Its ctx ends when the request is cancelled (by
// the peer, by a disconnect, or because the Conn shuts down); context.Cause(ctx)
// is then a *CancelError saying why, and whatever the handler returns is
// dropped rather than sent. A returned *Error (or an error wrapping one) is
// sent as that JSON-RPC error; any other error becomes -32603. A nil result
// is sent as {} (every MCP result is an object).
type Handler func(ctx context.Context, req *Request) (result any, err error)

// Notification is an incoming notification.
type Notification struct {
	Method string
	Params json.RawMessage
}

// NotificationHandler handles one notification. Notification handlers run one
// at a time, in arrival order, on a goroutine of their own: a slow one delays
// later notifications but never the routing of requests and cancellations.
type NotificationHandler func(ctx context.Context, n *Notification)

// Conn is one JSON-RPC session over a Transport, usable as an MCP client or
// server (or both). Its read loop only routes: each incoming request is put in
// the in-flight table as soon as it is read and runs on its own goroutine, so
// cancellations are never stuck behind a running handler.
type Conn struct {
	t    Transport
	mw   MessageWriter // t, when it takes messages described (WriteMessage)
	pol  *compiledPolicy
	log  *slog.Logger // logs through disp
	obs  Observer     // called through disp
	disp *dispatcher
	cfg  config

	// abandoning counts cancellations being queued: by a caller that took
	// back its abandoned call, and by the shutdown for the calls Close
	// abandons. Close waits for them before it flushes, so a cancel racing
	// Close (or a second Close) is written, not dropped with the queue.
	// Every Add happens under mu before shutdown has finished with the
	// tables, and every Wait after a shutdown: Wait never races an Add.
	abandoning sync.WaitGroup

	hmu      sync.RWMutex
	handlers map[string]Handler
	tasks    map[string]bool // methods whose task-augmented requests this side runs as tasks
	notes    map[string]NotificationHandler

	// The interceptor chains (intercept.go), nil without interceptors;
	// composed before Start and only read afterwards.
	reqChain    Handler
	noteChain   NotificationHandler
	callChain   Caller
	notifyChain Notifier

	mu             sync.Mutex
	incoming       map[RequestID]*inflight // requests the peer issued, not yet answered or cancelled
	delivered      map[*inflight]struct{}  // requests handed to Deliver, likewise
	delivering     atomic.Bool             // Deliver was called: handlers' writes may go to their request's writer
	outgoing       map[RequestID]*call     // our calls awaiting a response
	progress       map[ProgressToken]*call // our calls by progress token
	started        bool
	closing        bool
	cause          *CancelError  // why the Conn shut down; set with closing
	active         int           // handlers not yet finished (running, or writing their response)
	neverActive    int           // of those, never-cancellable ones (initialize), response written or not
	running        int           // admitted handlers that have not returned (queued or running): admission counts these
	runBytes       int           // their params (plus inflightOverhead each), for admission
	unwritten      int           // responses encoded and not yet taken by the transport
	unwrBytes      int           // their bytes
	outFull        atomic.Bool   // the unwritten responses reached the output bound; set and cleared under mu
	outputWaitHook func()        // tests: called when the read loop starts waiting for the output
	outWait        chan struct{} // closed when the unwritten responses drain below the low mark, or at shutdown
	workersLive    int           // worker goroutines alive (running or parked)
	idle           chan struct{}
	idleDone       bool
	drained        chan struct{} // after EOF: closed when no handler runs, or at shutdown

	nextID atomic.Int64

	ignoredLimit *logLimiter // the "cancellation ignored" log line's rate limit
	dupLimit     *logLimiter // the duplicate-id line's (duplicate.go)
	panicLimit   *logLimiter // handler panics' (handlerlog.go)

	connCtx    context.Context // parent of handler contexts; cancelled at shutdown
	connCancel context.CancelCauseFunc

	sender   *serialQueue // writes replies produced by the read loop, and cancellations
	notifier *serialQueue // runs notification handlers in order
	sem      chan struct{}
	workers  *workerPool
	done     chan struct{}
	doneOnce sync.Once
}

// inflight is one incoming request between being read and being answered.
type inflight struct {
	req       Request
	reqCtx    requestCtx // the handler context's parent: carries the record (see requestCtx)
	conn      *Conn
	out       MessageWriter // Deliver's: where its response and its handler's messages go; nil for a request the Conn read
	ctx       context.Context
	cancel    context.CancelCauseFunc
	task      bool
	size      int         // charged to Conn.runBytes until its handler returns: params and overhead
	outSize   int         // charged to Conn.unwrBytes while its response waits for the transport
	released  bool        // size is no longer charged (the handler returned); the worker's only
	writing   bool        // outSize is charged to Conn.unwritten; under Conn.mu
	exited    bool        // the handler's goroutine is done with it; under Conn.mu
	stuck     *time.Timer // fires WithCancelGrace after the cancellation; under Conn.mu
	never     bool        // the policy never cancels its method; counted in Conn.neverActive
	cancelled atomic.Bool // set under Conn.mu: a cancellation was applied, so no response
	// cancelsQueued: a call made under this request's context was
	// cancelled and its notifications/cancelled went to the sender queue;
	// the response waits for it (cancelorder.go).
	cancelsQueued atomic.Bool
	// rec holds what only a delivered request needs, allocated with it
	// (deliveredRecord); nil for a request the Conn read.
	rec *deliveredRecord
}

// deliveredRecord is a delivered request's record together with its final
// message's description and its Delivery: one allocation, where a request
// the Conn read (every stdio request) keeps the smaller inflight alone.
type deliveredRecord struct {
	f        inflight
	final    OutMessage
	delivery Delivery
}

// errRequestDone is the cause a handler's context gets after its response
// was written: the handler is finished, so any goroutine it left behind
// should stop.
var errRequestDone = errors.New("jsonrpc2: request completed")

// NewConn returns a Conn over t. Register handlers, then call Start or Run.
func NewConn(t Transport, opts ...Option) *Conn {
	var cfg config
	for _, o := range opts {
		o(&cfg)
	}
	if !cfg.policySet {
		// Only now: building the default costs allocations that a Conn
		// given its policy (every session's, one per modern HTTP request)
		// would throw away.
		cfg.policy = DefaultPolicy()
	}
	if cfg.logger == nil {
		// Quiet by default: a library that logs every cancellation at Info
		// fills its users' logs. Warnings (protocol errors from the peer)
		// still show; WithLogger or LogCancellations opt in to the rest.
		cfg.logger = slog.New(logsink.AtLeast(slog.Default().Handler(), slog.LevelWarn))
	}
	if cfg.baseCtx == nil {
		cfg.baseCtx = context.Background()
	}
	if cfg.maxInFlight <= 0 {
		cfg.maxInFlight = DefaultMaxInFlight
	}
	if cfg.maxInFlightBytes <= 0 {
		cfg.maxInFlightBytes = DefaultMaxInFlightBytes
	}
	if cfg.maxQueuedBytes <= 0 {
		cfg.maxQueuedBytes = DefaultMaxQueuedBytes
	}
	if cfg.eofGrace == 0 {
		cfg.eofGrace = DefaultEOFGrace
	}
	if cfg.cancelGrace == 0 {
		cfg.cancelGrace = DefaultCancelGrace
	}
	c := &Conn{
		t:        t,
		pol:      compilePolicy(cfg.policy),
		obs:      cfg.observer,
		disp:     newDispatcher(cfg.observer, cfg.logger.Handler(), cfg.dispatchItems, cfg.dispatchBytes),
		cfg:      cfg,
		handlers: map[string]Handler{},
		notes:    map[string]NotificationHandler{},
		incoming: map[RequestID]*inflight{},
		outgoing: map[RequestID]*call{},
		progress: map[ProgressToken]*call{},
		idle:     make(chan struct{}),
		sender:   newSerialQueue(cfg.maxQueuedBytes),
		notifier: newSerialQueue(cfg.maxQueuedBytes),
		workers:  newWorkerPool(),
		done:     make(chan struct{}),

		ignoredLimit: newLogLimiter(20, 10),
		dupLimit:     newLogLimiter(20, 10),
		panicLimit:   newLogLimiter(panicLogBurst, panicLogPerSec),
	}
	c.log = slog.New(c.disp.handler())
	c.composeLocked()
	c.connCtx, c.connCancel = context.WithCancelCause(context.WithoutCancel(cfg.baseCtx))
	if cfg.maxHandlers > 0 {
		c.sem = make(chan struct{}, cfg.maxHandlers)
	}
	if t != nil { // some tests build a Conn without one
		c.sender.write = t.Write
	}
	if mw, ok := t.(MessageWriter); ok {
		c.mw = mw
	}
	if bw, ok := t.(batchWriter); ok {
		c.sender.writeBatch = bw.writeBatch
	}
	return c
}

// Policy returns the policy the Conn was built with.
func (c *Conn) Policy() Policy { return c.pol.Policy }

// Handle registers h for requests of method, replacing any earlier handler.
// It may be called at any time; requests for methods with no handler are
// answered with -32601.
func (c *Conn) Handle(method string, h Handler) {
	c.hmu.Lock()
	c.handlers[method] = h
	c.hmu.Unlock()
}

// AcceptTasks declares that this side runs task-augmented requests of
// method as tasks (2025-11-25 tasks.mdx): such a request is then cancelled
// only with the Policy's TaskCancelMethod, and notifications/cancelled for
// it is ignored. A request that carries the task member for a method not
// declared here is an ordinary request, cancellable as any other, because
// "receivers that do not declare the task capability for a request type
// MUST process requests of that type normally". The generated Register
// functions call it for the methods whose implementation has a task
// handler.
func (c *Conn) AcceptTasks(method string) {
	c.hmu.Lock()
	if c.tasks == nil {
		c.tasks = map[string]bool{}
	}
	c.tasks[method] = true
	c.hmu.Unlock()
}

func (c *Conn) acceptsTasks(method string) bool {
	c.hmu.RLock()
	defer c.hmu.RUnlock()
	return c.tasks[method]
}

// HandleNotification registers h for notifications of method. The
// cancellation notification is handled by the runtime and never reaches a
// handler; progress notifications reach one after the runtime has used them.
func (c *Conn) HandleNotification(method string, h NotificationHandler) {
	c.hmu.Lock()
	c.notes[method] = h
	c.hmu.Unlock()
}

// Start starts the read loop in the background. It is idempotent.
func (c *Conn) Start() {
	c.mu.Lock()
	if c.started {
		c.mu.Unlock()
		return
	}
	c.started = true
	c.mu.Unlock()
	c.sender.start()
	c.notifier.start()
	c.disp.start(c.done, c.idle)
	go c.readLoop()
}

// Run starts the Conn (if needed) and waits until it shuts down or ctx ends.
// When ctx ends it shuts the Conn down (cancelling handlers with SourceClose)
// and returns ctx.Err() without waiting for handlers; use Close for that. It
// returns nil after a clean end (peer EOF or Close) and the transport error
// otherwise.
func (c *Conn) Run(ctx context.Context) error {
	c.Start()
	select {
	case <-c.done:
	case <-ctx.Done():
		c.shutdown(&CancelError{Source: SourceClose, Reason: "run context ended", Err: context.Cause(ctx)})
		c.t.Close()
		<-c.done
		return ctx.Err()
	}
	c.mu.Lock()
	cause := c.cause
	c.mu.Unlock()
	if cause == nil || cause.Source == SourceTransportClosed || cause.Source == SourceClose {
		return nil
	}
	return cause
}

// Done is closed when the Conn has shut down: the read loop has ended, every
// in-flight handler has been cancelled and every pending call failed.
// Handlers that ignore their context may still be running; Close waits for
// them.
func (c *Conn) Done() <-chan struct{} { return c.done }

// Err returns why the Conn shut down (a *CancelError), or nil while it runs.
func (c *Conn) Err() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.cause == nil {
		return nil
	}
	return c.cause
}

// Close shuts the Conn down: it cancels every in-flight handler (cause
// SourceClose) and fails every pending call, then writes the cancellation
// notifications already queued (so a cancel just before Close is not lost),
// closes the transport, waits for handlers to return and for the observer
// and logger to be handed the events and records queued for them. If ctx
// ends first (a handler ignores its context, or the observer or log sink is
// stuck), Close returns ctx.Err() and leaves the stragglers behind; queued
// events then count as dropped (DispatchStats). Close is
// idempotent; a later call waits again. Called from inside a handler or a
// notification handler, Close cannot wait for that very handler, so give it
// a context with a deadline there (or call it on a new goroutine).
func (c *Conn) Close(ctx context.Context) error {
	c.shutdown(&CancelError{Source: SourceClose, Reason: "connection closed"})
	c.mu.Lock()
	started := c.started
	c.started = true // a Conn closed before Start never starts
	c.mu.Unlock()
	if !started {
		c.sender.stop()
		c.notifier.stop()
		c.t.Close()
		c.closeDone()
		c.disp.start(c.done, c.idle) // delivers what the shutdown logged
		return c.waitDispatch(ctx)
	}
	c.abandoning.Wait()
	flushErr := c.sender.flush(ctx)
	c.t.Close()
	c.sender.stop()
	select {
	case <-c.done:
	case <-ctx.Done():
		return ctx.Err()
	}
	select {
	case <-c.idle:
	case <-ctx.Done():
		return ctx.Err()
	}
	if err := c.waitDispatch(ctx); err != nil {
		return err
	}
	return flushErr
}

// closeDone closes the Done channel once.
func (c *Conn) closeDone() { c.doneOnce.Do(func() { close(c.done) }) }

// shutdown moves the Conn to closing with cause: every in-flight handler is
// cancelled (and will not respond), every pending call fails. Only the first
// call has an effect.
func (c *Conn) shutdown(cause *CancelError) {
	c.mu.Lock()
	if c.closing {
		c.mu.Unlock()
		return
	}
	c.closing = true
	c.cause = cause
	c.wakeDrainLocked()
	c.wakeOutputLocked()
	ins, outs := c.incoming, c.outgoing
	c.incoming, c.outgoing, c.progress = nil, nil, nil
	for _, f := range ins {
		f.cancelled.Store(true)
	}
	dels := c.delivered
	c.delivered = nil
	for f := range dels {
		f.cancelled.Store(true)
	}
	wire := cause.Source == SourceClose && len(outs) > 0
	if wire {
		c.abandoning.Add(1) // a concurrent Close must not flush before these are queued
	}
	c.checkIdleLocked()
	c.mu.Unlock()

	for _, f := range ins {
		c.applyShutdown(f, cause)
	}
	for f := range dels {
		c.applyShutdown(f, cause)
	}
	c.connCancel(cause)
	close(c.workers.stop)
	if wire {
		// The transport still works and Close flushes the sender next, so
		// tell the peer about every call we abandon. A caller whose ctx
		// ended just before Close, and whose Call had not yet taken the
		// call back, is covered here too, with its own reason: the cancel
		// is not lost to the race.
		for _, cl := range outs {
			reason, src := cause.Reason, SourceClose
			if cl.ctx.Err() != nil {
				reason, src = reasonOf(cl.ctx), SourceCaller
			}
			c.cancelOnWire(cl, reason, src)
		}
		c.abandoning.Done()
	}
	for _, cl := range outs {
		cl.err = cause.forRequest(cl.id, cl.method)
		close(cl.done)
	}
	if c.log.Enabled(context.Background(), slog.LevelInfo) {
		c.log.LogAttrs(context.Background(), slog.LevelInfo, "mcp connection shutting down",
			slog.String("source", cause.Source.String()), slog.String("reason", cause.Reason),
			slog.Int("cancelled_handlers", len(ins)+len(dels)), slog.Int("failed_calls", len(outs)))
	}
}

// applyShutdown cancels one in-flight request for the shutdown's cause.
func (c *Conn) applyShutdown(f *inflight, cause *CancelError) {
	fc := cause.forRequest(f.req.ID, f.req.Method)
	f.cancel(fc)
	c.cancelled(f)
	c.event(Event{Kind: EventApplied, Direction: Incoming, ID: f.req.ID, Method: f.req.Method, Reason: fc.Reason, Source: fc.Source})
}

func (c *Conn) checkIdleLocked() {
	if c.closing && c.active == 0 && c.workersLive == 0 && !c.idleDone {
		c.idleDone = true
		close(c.idle)
	}
}

// eofFlushTimeout bounds how long the read loop, having met EOF, waits to
// write the replies it already queued.
const eofFlushTimeout = 2 * time.Second

// readLoop reads and routes messages until the transport fails or closes.
func (c *Conn) readLoop() {
	var cause *CancelError
	// Reads are ended by closing the transport, not by a context: Close
	// must be able to flush queued cancellations after the shutdown began
	// and before the read loop stops the sender.
	readCtx := context.WithoutCancel(c.connCtx)
	for {
		err := c.readMessages(readCtx) // returns only the transport's error
		if errors.Is(err, ErrMessageTooLarge) {
			c.warn("refused oversized message", slog.String("error", err.Error()))
			c.sendAsync(appendError(nil, RequestID{}, &Error{Code: CodeInvalidRequest, Message: "invalid request: " + err.Error()}), RequestID{}, CodeInvalidRequest)
			continue
		}
		if errors.Is(err, io.EOF) {
			cause = &CancelError{Source: SourceTransportClosed, Reason: "input ended (EOF)", Err: err}
			if !c.drainAfterEOF() {
				cause.Reason = "input ended (EOF) and the grace period passed"
			}
		} else {
			cause = &CancelError{Source: SourceTransportError, Reason: "reading the transport failed: " + err.Error(), Err: err}
		}
		break
	}
	c.shutdown(cause) // no effect if Close got there first
	if cause.Source == SourceTransportClosed {
		// EOF only says the peer stopped writing; on stdio it still reads
		// our stdout until we exit, so error replies already queued are
		// delivered (bounded, in case it does not read).
		ctx, cancel := context.WithTimeout(context.Background(), eofFlushTimeout)
		c.sender.flush(ctx)
		cancel()
	}
	c.t.Close()
	c.sender.stop()
	c.notifier.stop()
	<-c.sender.exited
	<-c.notifier.exited
	c.closeDone()
}

// drainAfterEOF lets the requests already read finish after the peer's end
// of input, for at most the EOF grace period. On stdio EOF is how a client
// starts shutdown (lifecycle.mdx: close stdin, wait for the server to exit,
// then SIGTERM), while it still reads our stdout: cancelling at once would
// throw away answers the client is waiting for, initialize's included.
//
// It reports false if handlers were still running when the grace ran out.
func (c *Conn) drainAfterEOF() bool {
	grace := c.cfg.eofGrace
	if grace < 0 {
		return true
	}
	t := time.NewTimer(grace)
	defer t.Stop()
	expired := false
	for {
		c.mu.Lock()
		if c.closing || c.active == 0 {
			c.mu.Unlock()
			return true
		}
		if expired && !c.neverCancellableInFlightLocked() {
			c.mu.Unlock()
			return false
		}
		// Woken by every handler exit, and by shutdown.
		ch := make(chan struct{})
		c.drained = ch
		c.mu.Unlock()
		if expired {
			<-ch
			continue
		}
		select {
		case <-ch:
		case <-t.C:
			expired = true
			c.cancelAfterGrace()
		}
	}
}

// cancelAfterGrace cancels, when the EOF grace runs out, every request still
// in flight except those the policy never cancels (initialize), which keep
// running and are still answered.
func (c *Conn) cancelAfterGrace() {
	cause := &CancelError{Source: SourceTransportClosed, Reason: "input ended (EOF) and the grace period passed", Err: io.EOF}
	var victims []*inflight
	c.mu.Lock()
	if c.closing {
		c.mu.Unlock()
		return
	}
	for id, f := range c.incoming {
		if !c.pol.never[f.req.Method] {
			f.cancelled.Store(true)
			delete(c.incoming, id)
			victims = append(victims, f)
		}
	}
	c.mu.Unlock()
	for _, f := range victims {
		fc := cause.forRequest(f.req.ID, f.req.Method)
		f.cancel(fc)
		c.cancelled(f)
		c.event(Event{Kind: EventApplied, Direction: Incoming, ID: f.req.ID, Method: f.req.Method, Reason: fc.Reason, Source: fc.Source})
	}
}

// neverCancellableInFlightLocked reports whether a request the policy says
// is never cancelled (initialize) is still running: the EOF grace does not
// end it; only Close or Run's context (bounded, see shutdownGrace in the
// example) do. It counts handlers until they have exited, not entries of
// the in-flight table: respond removes the entry before writing the
// response, and a drain that stopped waiting then would close the
// transport under that write. Called with mu held.
func (c *Conn) neverCancellableInFlightLocked() bool { return c.neverActive > 0 }

// wakeDrainLocked ends drainAfterEOF's wait. Called with mu held.
func (c *Conn) wakeDrainLocked() {
	if c.drained != nil {
		close(c.drained)
		c.drained = nil
	}
}

// route dispatches one message without blocking on handlers or writes.
func (c *Conn) route(data []byte) {
	m, perr := DecodeMessage(data)
	c.routeMessage(m, perr)
}

// routeMessage is route for a message already decoded: m and perr are what
// DecodeMessage returned for it.
func (c *Conn) routeMessage(m *Message, perr *Error) {
	if perr != nil {
		switch {
		case m == nil || m.Kind == KindRequest || m.Kind == KindInvalid:
			// JSON-RPC: answer unparseable input and invalid requests, with
			// id null when the id itself could not be read.
			var id RequestID
			if m != nil {
				id = m.ID
			}
			c.debug("answering invalid message", slog.Int("code", perr.Code), slog.String("error", perr.Message))
			c.sendAsync(appendError(nil, id, perr), id, perr.Code)
		case m.Kind == KindNotification && m.Method != "" && m.Method == c.pol.CancelledMethod:
			c.event(Event{Kind: EventReceived, Direction: Incoming, Source: SourcePeer})
			c.ignored(Event{Direction: Incoming, Source: SourcePeer, Why: IgnoreMalformed, Detail: perr.Message})
		default:
			// Never answer a notification or a response.
			c.warn("dropping invalid "+m.Kind.String(), slog.String("error", perr.Message))
		}
		return
	}
	switch m.Kind {
	case KindRequest:
		c.onRequest(m)
	case KindNotification:
		c.onNotification(m)
	default:
		c.onResponse(m)
	}
}

// sendAsync queues msg, an error response to id with code, for the sender
// goroutine. It is called from the read loop and waits while the sender's
// byte budget is spent: when the peer does not read what we write, we stop
// reading what it writes. A MessageWriter gets it described, as every
// message the Conn writes.
func (c *Conn) sendAsync(msg []byte, id RequestID, code int) {
	if c.mw != nil {
		c.sender.pushBounded(func(ctx context.Context) {
			c.asyncWritten(c.mw.WriteMessage(ctx, &OutMessage{Kind: KindErrorResponse, ID: id, Code: code, Data: msg}))
		}, len(msg)+queuedOverhead)
		return
	}
	c.sender.pushMessage(msg, c.asyncWritten, len(msg)+queuedOverhead, true)
}

func (c *Conn) asyncWritten(err error) {
	if err != nil {
		c.debug("async write failed", slog.String("error", err.Error()))
	}
}

// queuedOverhead is what a queued entry costs besides its message (closure,
// slice slot), so that a flood of tiny replies is bounded too.
const queuedOverhead = 128

func (c *Conn) onNotification(m *Message) {
	switch {
	case c.pol.CancelledMethod != "" && m.Method == c.pol.CancelledMethod:
		c.onCancelled(m.Params)
		return
	case c.pol.ProgressMethod != "" && m.Method == c.pol.ProgressMethod:
		c.onProgress(m.Params)
	}
	h := c.noteChain
	if h == nil {
		c.hmu.RLock()
		h = c.notes[m.Method]
		c.hmu.RUnlock()
		if h == nil {
			c.debug("no handler for notification", slog.String("method", m.Method))
			return
		}
	}
	n := &Notification{Method: m.Method, Params: m.Params}
	c.notifier.pushBounded(func(context.Context) {
		defer func() {
			if r := recover(); r != nil {
				c.logPanic("notification handler panicked", r, slog.String("method", n.Method))
			}
		}()
		h(c.connCtx, n)
	}, len(n.Params)+len(n.Method)+queuedOverhead)
}

func (c *Conn) onResponse(m *Message) {
	if m.ID.IsZero() {
		c.warn("peer reported an error for a message it could not read",
			slog.Int("code", m.Error.Code), slog.String("message", m.Error.Message))
		return
	}
	c.mu.Lock()
	cl := c.outgoing[m.ID]
	if cl != nil {
		delete(c.outgoing, m.ID)
		if cl.prog != nil {
			delete(c.progress, cl.prog.token)
		}
	}
	c.mu.Unlock()
	if cl == nil {
		// The spec: the sender SHOULD ignore a response to a cancelled
		// request. Also covers a peer answering an id we never used.
		c.debug("dropping response to unknown or abandoned request", slog.String("id", m.ID.String()))
		return
	}
	cl.result, cl.rpcErr = m.Result, m.Error
	close(cl.done)
}

// event queues e for the observer, if any; see logqueue.go.
func (c *Conn) event(e Event) {
	if c.obs != nil {
		c.disp.pushEvent(e)
	}
}

func (c *Conn) debug(msg string, attrs ...slog.Attr) { c.logAt(slog.LevelDebug, msg, attrs) }
func (c *Conn) info(msg string, attrs ...slog.Attr)  { c.logAt(slog.LevelInfo, msg, attrs) }
func (c *Conn) warn(msg string, attrs ...slog.Attr)  { c.logAt(slog.LevelWarn, msg, attrs) }

func (c *Conn) logAt(level slog.Level, msg string, attrs []slog.Attr) {
	if c.log.Enabled(context.Background(), level) {
		c.log.LogAttrs(context.Background(), level, msg, attrs...)
	}
}

// Receive routes m, a decoded message that something other than c's
// reader read, as if the reader had read it: a request is admitted and
// dispatched (its answer goes to the transport, by id), a notification
// applied, a response matched to its call. It is how a legacy Streamable
// HTTP session hands the Conn the message of a POST on the POST's own
// goroutine, instead of through the transport's Read and the read loop's
// wake-up, and how a layer between a Conn and its transport answers a
// call itself (an error for a retry it gave up on). It is safe from any
// goroutine; like a read, it waits while the Conn's output is over its
// budget (the peer is not reading what the Conn writes). The Conn keeps
// m's Params and Values, not m.
func (c *Conn) Receive(m *Message) {
	if m == nil || m.Kind == KindInvalid {
		c.warn("Receive: dropping a message that is not a request, notification or response")
		return
	}
	c.waitOutput()
	c.routeMessage(m, nil)
}
