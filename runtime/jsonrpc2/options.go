package jsonrpc2

import (
	"context"
	"log/slog"
	"time"
)

// Option configures a Conn at NewConn.
type Option func(*config)

type config struct {
	policy           Policy
	policySet        bool
	logger           *slog.Logger
	observer         Observer
	dispatchItems    int
	dispatchBytes    int
	maxHandlers      int
	defaultTimeout   time.Duration
	defaultMax       time.Duration
	baseCtx          context.Context
	eofGrace         time.Duration
	cancelGrace      time.Duration
	maxInFlight      int
	maxInFlightBytes int
	maxQueuedBytes   int
	received         []Received // WithReceived: routed before the first read
	interceptors     []Interceptor
}

// Admission and buffering defaults. Together with StdioOptions.MaxMessageSize
// they bound what a peer can make the runtime hold, whatever it sends or fails
// to read.
const (
	// DefaultMaxInFlight bounds the incoming requests whose handlers have
	// not returned (running, or waiting for a handler slot): over it a new
	// request is answered at once with CodeServerBusy ("server busy",
	// -31429), which therefore means "this many handlers are running: retry
	// later", never "you read too slowly". 1,024 is far more concurrency
	// than one MCP client uses, and at a few KB of bookkeeping each, a few
	// MB at most. ping (Policy.LivenessMethod) has headroom past it.
	//
	// A request whose handler has returned and whose response waits for the
	// transport does not count here: responses waiting to be written are
	// bounded by stopping the read loop instead (backpressure). While any
	// response waits and the running handlers and waiting responses together
	// reach this number (or DefaultMaxInFlightBytes), the Conn reads nothing
	// more until the output has drained, so a peer that reads slower than
	// the server answers is slowed down to its own pace, not refused, and a
	// peer that does not read at all stops being read.
	DefaultMaxInFlight = 1024
	// DefaultMaxInFlightBytes bounds the bytes charged to incoming requests:
	// each request's params as read (plus inflightOverhead) from admission
	// until its handler has returned, and then those and its encoded
	// response until Transport.Write has returned (for stdio, until the
	// peer's pipe took it), since a response a peer does not read is memory
	// held as surely as a request. Running handlers over the budget make new
	// requests busy (one request is always admitted, whatever its size, up
	// to the transport's message limit, so big requests are slow, never
	// refused for good); responses waiting for the transport over it stop
	// the read loop, as DefaultMaxInFlight says.
	//
	// The budget is not the process's memory, and neither is a fixed
	// multiple of it. On top of the charge come what running handlers hold
	// of their own (decoded params, results not yet encoded, the copies a
	// session or generated layer makes), which is bounded only by how many
	// run at once (WithMaxConcurrentHandlers); the responses of requests
	// admitted before the budget was reached, which are charged only once
	// encoded and so may take the charge past the budget (by at most
	// WithMaxInFlight responses); and the garbage collector's headroom:
	// with GOGC=100 the heap may grow to twice what is live before a
	// collection. Measured on examples/stdio-server with a client that
	// pipelines 2,000 echo calls of 64 KB and does not read (each charged
	// about 190 KB: 64 KB of params, a 128 KB response carrying the text
	// twice), the server stops reading after about 170 requests and peaks
	// at about 80 MB RSS; once the client reads, all 2,000 get their
	// results (e2e TestHostileNonReadingClientMemory).
	DefaultMaxInFlightBytes = 32 << 20
	// inflightOverhead is charged per admitted request besides its params.
	inflightOverhead = 512
	// DefaultMaxQueuedBytes bounds the replies the read loop queues for
	// writing (errors for bad input, busy errors) and, separately, the
	// notifications waiting for their handler. 1 MiB is thousands of error
	// replies: enough to absorb bursts, small next to any limit above.
	DefaultMaxQueuedBytes = 1 << 20
	// pingHeadroom admits this many requests of the Policy's
	// LivenessMethod (ping) beyond the in-flight limit, so a server whose
	// every slot is busy still answers liveness checks.
	pingHeadroom = 16
)

// WithMaxInFlight bounds the incoming requests whose handlers have not
// returned: a request over the bound is not queued, it is answered at once
// with CodeServerBusy. It also bounds, with them, the responses waiting for
// the transport, by making the read loop wait (see DefaultMaxInFlight).
// Zero means DefaultMaxInFlight.
func WithMaxInFlight(n int) Option { return func(c *config) { c.maxInFlight = n } }

// WithMaxInFlightBytes bounds the bytes charged to incoming requests: their
// params while their handlers run, and their params and encoded responses
// until the transport has written them (see DefaultMaxInFlightBytes for
// what that does and does not bound). Running handlers over it make new
// requests get CodeServerBusy, but one request is always admitted;
// responses waiting for the transport over it make the read loop wait.
// Zero means DefaultMaxInFlightBytes.
func WithMaxInFlightBytes(n int) Option { return func(c *config) { c.maxInFlightBytes = n } }

// WithMaxQueuedBytes bounds the bytes the read loop may queue for the sender
// and for notification handlers. When the bound is reached the read loop
// stops reading until the queue drains, which is how a peer that does not
// read our output is made to stop sending. Zero means DefaultMaxQueuedBytes.
func WithMaxQueuedBytes(n int) Option { return func(c *config) { c.maxQueuedBytes = n } }

// DefaultEOFGrace is how long requests already read may keep running after
// the peer's input ends, unless WithEOFGrace says otherwise. Five seconds lets
// ordinary tool calls finish and still exits well before a client that
// follows the lifecycle page (close stdin, wait, then SIGTERM) loses patience.
const DefaultEOFGrace = 5 * time.Second

// WithEOFGrace sets how long, after the transport reports EOF (the peer will
// send nothing more), the Conn keeps running the requests it already read and
// writes their responses before cancelling what still runs with a cause
// saying the input ended. Zero means DefaultEOFGrace; a negative d cancels
// at once, as before. Close and Run's context end the wait early.
func WithEOFGrace(d time.Duration) Option { return func(c *config) { c.eofGrace = d } }

// WithPolicy sets the revision's cancellation rules. Without it the Conn uses
// DefaultPolicy().
func WithPolicy(p Policy) Option { return func(c *config) { c.policy, c.policySet = p, true } }

// WithLogger sets the logger for cancellations, dropped responses and
// protocol errors. The default is slog.Default() at Warn and above, so the
// runtime logs nothing at Info unless asked: cancellation reasons (which the
// spec says both parties SHOULD log) are logged at Info through the logger
// given here, or one record each by LogCancellations as an Observer.
//
// The Conn hands records to l's handler on its dispatch goroutine (see
// Observer), never on the read loop, so a handler writing to a pipe nobody
// drains cannot stall routing; past the queue's bound records are dropped
// and counted, and a Warn record says how many. Only the handler's Enabled
// is called on the Conn's own goroutines: it must be a cheap level check.
func WithLogger(l *slog.Logger) Option { return func(c *config) { c.logger = l } }

// WithObserver installs a hook that sees every cancellation event and every
// busy refusal (EventBusy), on the Conn's dispatch goroutine (see Observer).
// A Conn has one: a later WithObserver replaces an earlier one.
func WithObserver(o Observer) Option { return func(c *config) { c.observer = o } }

// WithDispatchQueue bounds the queue in front of the Observer and the
// logger: at most items events and records, holding at most bytes
// (defaults DefaultDispatchQueue and DefaultDispatchBytes; zero keeps a
// default). The queue never blocks the Conn: beyond it items are dropped
// and counted (Conn.DispatchStats). An Observer that must see every event
// of a burst (an audit, a test that counts outcomes) sizes it for the
// burst; the memory it may hold grows with it.
func WithDispatchQueue(items, bytes int) Option {
	return func(c *config) { c.dispatchItems, c.dispatchBytes = items, bytes }
}

// WithMaxConcurrentHandlers bounds how many handlers run at once. Requests
// over the bound wait, already registered in the in-flight table, so a
// cancellation still reaches them and they never start. Zero means no bound
// (WithMaxInFlight still bounds the requests admitted). ping never waits for
// a slot: it is how the peer checks we are alive.
func WithMaxConcurrentHandlers(n int) Option { return func(c *config) { c.maxHandlers = n } }

// WithDefaultTimeout applies WithTimeout(d) to every Call that sets no timeout
// itself; the spec says senders SHOULD time out every request.
func WithDefaultTimeout(d time.Duration) Option { return func(c *config) { c.defaultTimeout = d } }

// WithDefaultMaxTimeout applies WithMaxTimeout(d) to every Call that sets no
// maximum itself.
func WithDefaultMaxTimeout(d time.Duration) Option { return func(c *config) { c.defaultMax = d } }

// WithBaseContext sets the context handler contexts derive from, so values
// (trace ids, loggers) reach every handler. Its cancellation is not inherited:
// use Run's context or Close to end the Conn.
func WithBaseContext(ctx context.Context) Option { return func(c *config) { c.baseCtx = ctx } }

// CallOption configures one Call.
type CallOption func(*callConfig)

type callConfig struct {
	timeout       time.Duration
	maxTimeout    time.Duration
	resetProgress bool
	onProgress    func(ProgressParams)
}

// WithTimeout cancels the call (notification included) when no response has
// arrived within d. With WithProgressReset, d is instead the longest silence
// allowed between progress notifications.
func WithTimeout(d time.Duration) CallOption { return func(c *callConfig) { c.timeout = d } }

// WithMaxTimeout cancels the call after d whatever progress arrives: the hard
// maximum the spec says senders SHOULD always enforce.
func WithMaxTimeout(d time.Duration) CallOption { return func(c *callConfig) { c.maxTimeout = d } }

// WithProgressReset makes every notifications/progress for this call restart
// the WithTimeout clock. The runtime injects params._meta.progressToken so the
// peer can send progress at all (forgetting that is the classic reason reset
// "does not work").
func WithProgressReset() CallOption { return func(c *callConfig) { c.resetProgress = true } }

// ResetOnProgress is WithProgressReset under the name research/§6 uses.
var ResetOnProgress = WithProgressReset

// WithProgress calls f for every notifications/progress for this call, on the
// calling goroutine while Call waits, in arrival order. It also makes the
// runtime inject a progress token.
func WithProgress(f func(ProgressParams)) CallOption { return func(c *callConfig) { c.onProgress = f } }
