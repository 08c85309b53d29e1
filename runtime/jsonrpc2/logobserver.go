package jsonrpc2

import (
	"context"
	"log/slog"
	"sync"
	"time"
)

// LogCancellations returns an Observer that writes every cancellation event
// as one record with msg "cancellation" and the attributes event (requested,
// sent, received, applied, ignored), direction, id (the id as the peer sent
// it: a string or a number in JSON output, quoted or bare in text), source,
// reason and method, plus why and detail for ignored events. Tools can watch
// a server's cancellations from outside by filtering on msg.
//
// Ignored cancellations are what a hostile or buggy peer can produce without
// limit, so they are rate-limited (a burst of 20, then 10 a second); the
// next record written says how many were suppressed. Like every Observer it
// runs on the Conn's dispatch goroutine, never on the read loop, so a logger
// that blocks delays (and past the queue's bound, drops) cancellation
// records, not traffic.
func LogCancellations(log *slog.Logger) Observer {
	lim := newLogLimiter(20, 10)
	return func(e Event) {
		ctx := context.Background()
		if e.Kind == EventBusy || !log.Enabled(ctx, slog.LevelInfo) {
			return
		}
		var suppressed uint64
		if e.Kind == EventIgnored {
			ok, n := lim.allow()
			if !ok {
				return
			}
			suppressed = n
		}
		attrs := make([]slog.Attr, 0, 9)
		attrs = append(attrs,
			slog.String("event", e.Kind.String()),
			slog.String("direction", e.Direction.String()),
			slog.Any("id", e.ID), // RequestID marshals as the exact JSON id; zero is null
			slog.String("source", e.Source.String()),
			slog.String("reason", e.Reason),
			slog.String("method", e.Method))
		if e.Kind == EventIgnored {
			attrs = append(attrs, slog.String("why", e.Why.String()))
			if e.Detail != "" {
				attrs = append(attrs, slog.String("detail", e.Detail))
			}
			if suppressed > 0 {
				attrs = append(attrs, slog.Uint64("suppressed", suppressed))
			}
		}
		log.LogAttrs(ctx, slog.LevelInfo, "cancellation", attrs...)
	}
}

// logLimiter is a token bucket for log lines a peer can trigger at will.
type logLimiter struct {
	mu         sync.Mutex
	tokens     float64
	burst      float64
	perSec     float64
	last       time.Time
	suppressed uint64
}

func newLogLimiter(burst, perSec float64) *logLimiter {
	return &logLimiter{tokens: burst, burst: burst, perSec: perSec}
}

// allow reports whether a line may be written now and, if so, how many were
// suppressed since the last one.
func (l *logLimiter) allow() (bool, uint64) {
	l.mu.Lock()
	defer l.mu.Unlock()
	now := time.Now()
	if !l.last.IsZero() {
		l.tokens += now.Sub(l.last).Seconds() * l.perSec
		if l.tokens > l.burst {
			l.tokens = l.burst
		}
	}
	l.last = now
	if l.tokens < 1 {
		l.suppressed++
		return false, 0
	}
	l.tokens--
	n := l.suppressed
	l.suppressed = 0
	return true, n
}
