package runtime

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
	maxHandlers      int
	defaultTimeout   time.Duration
	defaultMax       time.Duration
	baseCtx          context.Context
	eofGrace         time.Duration
	maxInFlight      int
	maxInFlightBytes int
	maxQueuedBytes   int
}

// Admission and buffering defaults. Together with StdioOptions.MaxMessageSize
// they bound what a peer can make the runtime hold, whatever it sends or fails
// to read.
const (
	// DefaultMaxInFlight bounds the incoming requests admitted and not yet
	// answered (running, waiting for a handler slot, or writing their
	// response): far more concurrency than one MCP client uses, and at a
	// few KB of bookkeeping each, a few MB at most.
	DefaultMaxInFlight = 1024
	// DefaultMaxInFlightBytes bounds the total size of those requests'
	// params. A handler typically holds its request, a decoded copy and an
	// encoded response, so 32 MiB of requests is about 100 MB of heap at
	// worst. One request is always admitted, whatever its size (up to the
	// transport's message limit), so big requests are slow, never refused
	// for good.
	DefaultMaxInFlightBytes = 32 << 20
	// inflightOverhead is charged per admitted request besides its params.
	inflightOverhead = 512
	// DefaultMaxQueuedBytes bounds the replies the read loop queues for
	// writing (errors for bad input, busy errors) and, separately, the
	// notifications waiting for their handler. 1 MiB is thousands of error
	// replies: enough to absorb bursts, small next to any limit above.
	DefaultMaxQueuedBytes = 1 << 20
	// pingHeadroom admits this many pings beyond the in-flight limit, so a
	// server whose every slot is busy still answers liveness checks.
	pingHeadroom = 16
)

// WithMaxInFlight bounds the incoming requests admitted and not yet answered.
// A request over the bound is not queued: it is answered at once with
// CodeServerBusy. Zero means DefaultMaxInFlight.
func WithMaxInFlight(n int) Option { return func(c *config) { c.maxInFlight = n } }

// WithMaxInFlightBytes bounds the total params size of the incoming requests
// admitted and not yet answered; over it, requests get CodeServerBusy (but one
// request is always admitted). Zero means DefaultMaxInFlightBytes.
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
func WithLogger(l *slog.Logger) Option { return func(c *config) { c.logger = l } }

// WithObserver installs a hook that sees every cancellation event.
func WithObserver(o Observer) Option { return func(c *config) { c.observer = o } }

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
