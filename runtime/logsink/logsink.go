// Package logsink is a slog.Handler that never blocks its caller: records
// go through a bounded queue to a goroutine that writes them to the wrapped
// handler, and when the queue is full (the sink is stuck, say a host that
// does not drain stderr) records are dropped and counted instead.
//
// It exists for the runtime's read loop: a log line written synchronously to
// a pipe nobody reads would stop all routing, cancellations included.
package logsink

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"sync"
	"sync/atomic"
)

// DefaultQueue is the number of records a Handler holds when NewHandler is
// given a size of zero or less: enough to absorb bursts, about a megabyte
// at worst.
const DefaultQueue = 1024

// Handler is an asynchronous, dropping slog.Handler. Create it with
// NewHandler; derived handlers (WithAttrs, WithGroup) share its queue.
type Handler struct {
	next slog.Handler
	q    *queue
}

type entry struct {
	h slog.Handler
	r slog.Record
}

type queue struct {
	ch        chan entry
	dropped   atomic.Uint64
	reported  uint64 // written by the drain goroutine only
	closeOnce sync.Once
	closed    chan struct{}
	exited    chan struct{}
}

// NewHandler returns a Handler writing to next through a queue of size
// records, and starts its goroutine; Close stops it.
func NewHandler(next slog.Handler, size int) *Handler {
	if size <= 0 {
		size = DefaultQueue
	}
	q := &queue{ch: make(chan entry, size), closed: make(chan struct{}), exited: make(chan struct{})}
	go q.drain()
	return &Handler{next: next, q: q}
}

// Enabled reports whether the wrapped handler wants records at level.
func (h *Handler) Enabled(ctx context.Context, level slog.Level) bool {
	return h.next.Enabled(ctx, level)
}

// Handle queues r, or drops and counts it when the queue is full or closed.
// It never blocks.
func (h *Handler) Handle(_ context.Context, r slog.Record) error {
	select {
	case <-h.q.closed:
		h.q.dropped.Add(1)
		return nil
	default:
	}
	select {
	case h.q.ch <- entry{h.next, r.Clone()}:
	default:
		h.q.dropped.Add(1)
	}
	return nil
}

// WithAttrs returns a handler with attrs that shares h's queue.
func (h *Handler) WithAttrs(attrs []slog.Attr) slog.Handler {
	return &Handler{next: h.next.WithAttrs(attrs), q: h.q}
}

// WithGroup returns a handler with a group that shares h's queue.
func (h *Handler) WithGroup(name string) slog.Handler {
	return &Handler{next: h.next.WithGroup(name), q: h.q}
}

// Dropped returns how many records were dropped so far.
func (h *Handler) Dropped() uint64 { return h.q.dropped.Load() }

// Close stops accepting records and writes those queued, waiting at most
// until ctx ends (a stuck sink must not hold up an exit).
func (h *Handler) Close(ctx context.Context) error {
	h.q.closeOnce.Do(func() { close(h.q.closed) })
	select {
	case <-h.q.exited:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (q *queue) drain() {
	defer close(q.exited)
	for {
		select {
		case e := <-q.ch:
			q.write(e)
		case <-q.closed:
			for {
				select {
				case e := <-q.ch:
					q.write(e)
				default:
					return
				}
			}
		}
	}
}

// write hands one record on, first saying how many were dropped since the
// last report, so a reader of the log knows it has gaps.
func (q *queue) write(e entry) {
	if d := q.dropped.Load(); d > q.reported {
		r := slog.NewRecord(e.r.Time, slog.LevelWarn, "log records dropped", 0)
		r.AddAttrs(slog.Uint64("dropped", d-q.reported))
		q.reported = d
		_ = e.h.Handle(context.Background(), r)
	}
	_ = e.h.Handle(context.Background(), e.r)
}

// NewFormatHandler returns a Handler over a slog text or JSON handler writing to w,
// for a --log-format flag: format is "text" or "json" (one JSON record per
// line). opts may be nil.
func NewFormatHandler(w io.Writer, format string, opts *slog.HandlerOptions) (*Handler, error) {
	switch format {
	case "text", "":
		return NewHandler(slog.NewTextHandler(w, opts), 0), nil
	case "json":
		return NewHandler(slog.NewJSONHandler(w, opts), 0), nil
	}
	return nil, fmt.Errorf("log format %q: want text or json", format)
}

// AtLeast returns h restricted to records at level or above: for giving the
// runtime's own logger only its warnings while LogCancellations reports
// every cancellation once.
func AtLeast(h slog.Handler, level slog.Level) slog.Handler { return atLeast{h, level} }

type atLeast struct {
	slog.Handler
	min slog.Level
}

func (h atLeast) Enabled(ctx context.Context, l slog.Level) bool {
	return l >= h.min && h.Handler.Enabled(ctx, l)
}

func (h atLeast) WithAttrs(attrs []slog.Attr) slog.Handler {
	return atLeast{h.Handler.WithAttrs(attrs), h.min}
}

func (h atLeast) WithGroup(name string) slog.Handler {
	return atLeast{h.Handler.WithGroup(name), h.min}
}
