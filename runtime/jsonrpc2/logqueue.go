package jsonrpc2

import (
	"context"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"
)

// Observer events and log records leave the Conn through a dispatcher: a
// bounded queue drained by one goroutine per Conn, which calls the Observer
// and the logger's handler. The read loop only appends to the queue, so
// whatever the user gives as logger or observer (a handler writing to a
// stderr nobody drains, an observer that takes a lock held elsewhere) the
// routing of requests, cancellations and pings never waits for it. When the
// queue is full the newest item is dropped and counted; a Warn record on the
// logger says how many were lost, and Conn.DispatchStats gives the exact
// counts.
//
// One queue for both kinds, drained by one goroutine, keeps the order in
// which the Conn produced them: an observer sees a request's "received"
// before its "applied", and a log record and an event about the same
// request come out in the order they happened.
//
// A per-Conn goroutine (rather than one shared by all Conns) keeps one
// stuck sink from starving the other Conns of a process, and lets the
// goroutine end with its Conn.

const (
	// DefaultDispatchQueue bounds the items waiting for the observer or the
	// logger: enough for a burst of a few hundred cancellations.
	DefaultDispatchQueue = 1024
	// DefaultDispatchBytes bounds what those items hold, strings included, so
	// a peer sending long cancellation reasons to a stuck sink cannot grow
	// the queue to a gigabyte. With the double buffer, the queue costs at
	// most about twice this.
	DefaultDispatchBytes = 1 << 20
)

// dispatched is one queued item: a log record when h is set, else an event.
type dispatched struct {
	h    slog.Handler
	rec  slog.Record
	ev   Event
	size int
}

// dispatchedSize is what a queued item costs besides its strings: about
// the size of the struct (a slog.Record with its inline attributes, and an
// Event), rounded up.
const dispatchedSize = 512

// DispatchStats counts what the Conn handed to its Observer and its logger
// and how much of it was dropped, because the queue in front of them was full
// (the sink was slow or stuck) or the Conn had already finished. Events
// counts every event produced while an Observer is set, Records every log
// record the logger's handler was enabled for; delivered = produced -
// dropped once the Conn is closed. The Warn records that report drops are
// not counted.
type DispatchStats struct {
	Events, EventsDropped   uint64
	Records, RecordsDropped uint64
}

type dispatcher struct {
	obs  Observer
	base slog.Handler // the user's handler, for the drop report

	maxItems, maxBytes int // WithDispatchQueue

	mu       sync.Mutex
	q        []dispatched
	spare    []dispatched // the batch being delivered, reused for the next
	bytes    int
	finished bool // the goroutine ended or will end, or was never needed: later items are dropped
	lazy     lazyStart
	done     <-chan struct{} // given to start, for the goroutine
	idle     <-chan struct{}

	wake      chan struct{}
	abandoned atomic.Bool // Close gave up waiting: deliver nothing more
	exited    chan struct{}

	events, eventsDropped   atomic.Uint64
	records, recordsDropped atomic.Uint64
	reported                uint64 // drops already reported; drain goroutine only
}

func newDispatcher(obs Observer, base slog.Handler, maxItems, maxBytes int) *dispatcher {
	if maxItems <= 0 {
		maxItems = DefaultDispatchQueue
	}
	if maxBytes <= 0 {
		maxBytes = DefaultDispatchBytes
	}
	return &dispatcher{obs: obs, base: base, maxItems: maxItems, maxBytes: maxBytes, wake: make(chan struct{}, 1), exited: make(chan struct{})}
}

// handler returns the slog.Handler the Conn logs through.
func (d *dispatcher) handler() slog.Handler { return dispatchHandler{d.base, d} }

func (d *dispatcher) stats() DispatchStats {
	return DispatchStats{
		Events: d.events.Load(), EventsDropped: d.eventsDropped.Load(),
		Records: d.records.Load(), RecordsDropped: d.recordsDropped.Load(),
	}
}

func (d *dispatcher) pushEvent(e Event) {
	d.events.Add(1)
	if !d.push(dispatched{ev: e, size: dispatchedSize + len(e.Method) + len(e.Reason) + len(e.Detail) + e.ID.textLen()}) {
		d.eventsDropped.Add(1)
	}
}

func (d *dispatcher) pushRecord(h slog.Handler, r slog.Record) {
	d.records.Add(1)
	size := dispatchedSize + len(r.Message)
	r.Attrs(func(a slog.Attr) bool {
		size += len(a.Key)
		if a.Value.Kind() == slog.KindString {
			size += len(a.Value.String())
		}
		return true
	})
	if !d.push(dispatched{h: h, rec: r, size: size}) {
		d.recordsDropped.Add(1)
	}
}

// push queues it, or reports false when the queue is full or finished. It
// never blocks: it is called from the read loop.
func (d *dispatcher) push(it dispatched) bool {
	d.mu.Lock()
	if d.finished || len(d.q) >= d.maxItems || (d.bytes+it.size > d.maxBytes && len(d.q) > 0) {
		d.mu.Unlock()
		return false
	}
	d.q = append(d.q, it)
	d.bytes += it.size
	spawn := d.lazy.queued()
	done, idle := d.done, d.idle
	d.mu.Unlock()
	if spawn {
		go d.run(done, idle)
	} else {
		signal(d.wake)
	}
	return true
}

// start lets the drain goroutine run; it starts with the first item (at once
// if items are waiting), since a Conn with no observer and a quiet logger
// never queues one. It ends when the Conn is done (read loop ended) and idle
// (every handler returned) and the queue is empty, or after abandon once the
// call in progress returns.
func (d *dispatcher) start(done, idle <-chan struct{}) {
	d.mu.Lock()
	if d.lazy.armed {
		d.mu.Unlock()
		return
	}
	d.done, d.idle = done, idle
	spawn := d.lazy.arm(len(d.q) > 0)
	d.mu.Unlock()
	if spawn {
		go d.run(done, idle)
	}
}

// settle is where waiting for the drain goroutine begins (after start). If
// it never started and the Conn is done and idle, nothing was queued and
// nothing more will be: the queue is finished, exited closed, and settle
// reports true. Otherwise the goroutine runs (started now if it had not
// been, to end as it would have) and settle reports false.
func (d *dispatcher) settle() bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	switch {
	case d.lazy.running:
		return false
	case d.finished: // settled before: only settle finishes a queue with no goroutine
		return true
	case isClosed(d.done) && isClosed(d.idle):
		d.finished = true
		close(d.exited)
		return true
	}
	d.lazy.running = true
	go d.run(d.done, d.idle)
	return false
}

func (d *dispatcher) run(done, idle <-chan struct{}) {
	defer close(d.exited)
	for {
		d.mu.Lock()
		if d.abandoned.Load() {
			// Close's grace ran out: the sink is presumably stuck, so do
			// not risk another call into it (not even the drop report).
			d.finished = true
			d.dropBatch(d.q)
			d.q = nil
			d.mu.Unlock()
			return
		}
		batch := d.q
		d.q, d.spare = d.spare[:0], nil
		d.bytes = 0
		if len(batch) == 0 && done == nil && idle == nil {
			// The Conn is finished and nothing is left: later items (from
			// a straggler, say) are dropped and counted.
			d.finished = true
			d.mu.Unlock()
			d.reportDrops()
			return
		}
		d.mu.Unlock()
		for i := range batch {
			if d.abandoned.Load() {
				d.dropBatch(batch[i:])
				break
			}
			d.deliver(&batch[i])
			batch[i] = dispatched{} // let its strings go now
		}
		clear(batch)
		d.mu.Lock()
		d.spare = batch[:0]
		d.mu.Unlock()
		if len(batch) > 0 {
			continue
		}
		select {
		case <-d.wake:
		case <-done:
			done = nil
		case <-idle:
			idle = nil
		}
	}
}

func (d *dispatcher) dropBatch(items []dispatched) {
	for i := range items {
		if items[i].h != nil {
			d.recordsDropped.Add(1)
		} else {
			d.eventsDropped.Add(1)
		}
	}
}

func (d *dispatcher) deliver(it *dispatched) {
	if it.h == nil {
		d.obs(it.ev)
		return
	}
	d.reportDrops()
	_ = it.h.Handle(context.Background(), it.rec)
}

// reportDrops writes a Warn record saying how many items were dropped since
// the last report, so a reader of the log knows it has gaps. It runs before
// each delivered record and once at the end.
func (d *dispatcher) reportDrops() {
	n := d.eventsDropped.Load() + d.recordsDropped.Load()
	if n == d.reported || d.base == nil {
		return
	}
	lost := n - d.reported
	d.reported = n
	ctx := context.Background()
	if !d.base.Enabled(ctx, slog.LevelWarn) {
		return
	}
	r := slog.NewRecord(time.Now(), slog.LevelWarn, "runtime dropped observer events or log records: the sink is too slow", 0)
	r.AddAttrs(slog.Uint64("dropped", lost))
	_ = d.base.Handle(ctx, r)
}

// abandon makes the goroutine deliver nothing more once the call in progress
// returns (Close's context ended); what is queued counts as dropped.
func (d *dispatcher) abandon() {
	d.abandoned.Store(true)
	d.mu.Lock()
	d.finished = true
	d.mu.Unlock()
	signal(d.wake)
}

// dispatchHandler is the slog.Handler the Conn's logger writes to: Enabled
// asks the user's handler directly (a level check, which must not block),
// Handle only queues.
type dispatchHandler struct {
	next slog.Handler
	d    *dispatcher
}

func (h dispatchHandler) Enabled(ctx context.Context, l slog.Level) bool {
	return h.next.Enabled(ctx, l)
}

func (h dispatchHandler) Handle(_ context.Context, r slog.Record) error {
	h.d.pushRecord(h.next, r)
	return nil
}

func (h dispatchHandler) WithAttrs(attrs []slog.Attr) slog.Handler {
	return dispatchHandler{h.next.WithAttrs(attrs), h.d}
}

func (h dispatchHandler) WithGroup(name string) slog.Handler {
	return dispatchHandler{h.next.WithGroup(name), h.d}
}

// DispatchStats returns how many observer events and log records the Conn
// produced and how many it dropped because its observer or logger could not
// keep up. After Close has returned nil, every item not dropped was
// delivered.
func (c *Conn) DispatchStats() DispatchStats { return c.disp.stats() }

// waitDispatch waits until the observer and logger have been handed
// everything queued, or ctx ends; then the dispatcher gives up on the rest,
// so a stuck sink never holds Close beyond its context.
func (c *Conn) waitDispatch(ctx context.Context) error {
	if c.disp.settle() {
		return nil
	}
	select {
	case <-c.disp.exited: // already done: success even if ctx has ended too
		return nil
	default:
	}
	select {
	case <-c.disp.exited:
		return nil
	case <-ctx.Done():
		c.disp.abandon()
		return ctx.Err()
	}
}

// QueuedLogger returns a logger that writes to l's handler the way the
// Conn's own logger does: through the Conn's dispatch queue, in order with
// its events and records, never blocking the caller, dropped and counted
// (DispatchStats) when the sink cannot keep up. Layers over the runtime
// (session) use it for what they log on the Conn's behalf, so a stuck sink
// stalls neither the read loop nor handler goroutines. Records logged after
// the Conn has finished are dropped.
func (c *Conn) QueuedLogger(l *slog.Logger) *slog.Logger {
	return slog.New(dispatchHandler{l.Handler(), c.disp})
}
