package jsonrpc2

import (
	"context"
	"log/slog"
	"runtime/debug"
	"time"
)

// What the runtime logs about handlers that misbehave: a panic, with the
// stack it happened on, and a handler that keeps running after its request
// was cancelled (it ignores its ctx), which is what keeps a shutdown from
// finishing and is otherwise invisible.

// DefaultCancelGrace is how long a handler may keep running after its
// request was cancelled (by the peer, a disconnect, the EOF grace running
// out, or the Conn shutting down) before the Conn logs, once, at Warn, that
// it ignores its context, naming its method and id. One second is far more
// than a handler that selects on ctx.Done() needs to return, and shorter
// than the shutdown bounds built on Close (session.DefaultShutdownGrace), so
// the line is written before a shutdown gives up on the handler.
const DefaultCancelGrace = time.Second

// WithCancelGrace sets how long a cancelled handler may keep running before
// the Conn logs that it ignores its context (see DefaultCancelGrace). Zero
// means DefaultCancelGrace; a negative d turns the warning off.
func WithCancelGrace(d time.Duration) Option { return func(c *config) { c.cancelGrace = d } }

// Panics are logged at most panicLogBurst at once and panicLogPerSec a second
// after that, each with its stack; the next line says how many were
// suppressed. The panics themselves are all answered (-32603) and counted
// in the suppressed number.
const (
	panicLogBurst  = 10
	panicLogPerSec = 1
)

// logPanic logs a recovered panic at Error with the stack of the goroutine
// that panicked (so it must be called from the deferred function that
// recovered), rate-limited.
func (c *Conn) logPanic(msg string, r any, attrs ...slog.Attr) {
	if !c.log.Enabled(context.Background(), slog.LevelError) {
		return
	}
	ok, suppressed := c.panicLimit.allow()
	if !ok {
		return
	}
	attrs = append(attrs, slog.Any("panic", r), slog.String("stack", string(debug.Stack())))
	if suppressed > 0 {
		attrs = append(attrs, slog.Uint64("suppressed", suppressed))
	}
	c.log.LogAttrs(context.Background(), slog.LevelError, msg, attrs...)
}

// cancelled is called after a cancellation was applied to f's context: if
// its handler is still running after the cancel grace, stuckHandler logs it.
// The timer costs nothing unless a request is cancelled, and is stopped when
// the handler exits.
func (c *Conn) cancelled(f *inflight) {
	if c.cfg.cancelGrace < 0 {
		return
	}
	c.mu.Lock()
	if !f.exited && f.stuck == nil {
		f.stuck = time.AfterFunc(c.cfg.cancelGrace, func() { c.stuckHandler(f) })
	}
	c.mu.Unlock()
}

// stuckHandler logs, once per request, that f's handler still runs a grace
// after its cancellation.
func (c *Conn) stuckHandler(f *inflight) {
	c.mu.Lock()
	exited := f.exited
	c.mu.Unlock()
	if exited {
		return
	}
	attrs := []slog.Attr{slog.String("id", f.req.ID.String()), slog.String("method", f.req.Method),
		slog.Duration("grace", c.cfg.cancelGrace)}
	if cause := context.Cause(f.ctx); cause != nil {
		attrs = append(attrs, slog.String("cause", cause.Error()))
	}
	c.warn("handler ignores its cancelled context: still running after the cancel grace", attrs...)
}
