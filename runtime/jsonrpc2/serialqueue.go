package jsonrpc2

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
)

// serialQueue runs functions one at a time, in order, on its own goroutine,
// started by the first entry after start.
// What the read loop queues (replies to bad input, busy errors,
// notifications) is bounded by a byte budget: pushBounded blocks while the
// budget is spent, so a peer that does not read stops being read instead of
// growing the queue. What local code queues (our own cancellations) uses push,
// which never blocks: it is bounded by our own calls. The Conn uses one to write messages the read loop
// produces (error replies, cancellation notifications), so the read loop never
// blocks on a write, and one to run notification handlers in arrival order
// without holding up routing.
type serialQueue struct {
	mu      sync.Mutex
	q       []queued
	bytes   int       // budget in use by queued and running entries
	limit   int       // pushBounded waits while bytes >= limit
	space   sync.Cond // on mu: bytes went down, or stopped (L set by newSerialQueue)
	stopped bool
	lazy    lazyStart
	wake    chan struct{}
	stopCh  chan struct{}
	exited  chan struct{}
	ctx     context.Context // cancelled by stop, so a blocked write gives up
	cancel  context.CancelFunc

	// write writes one queued message; writeBatch, when set, writes
	// several as one write (a burst of 1,000 cancellations is then a few
	// writes, not 1,000) and returns errNotBatchable, having written
	// nothing, when it cannot.
	write      func(context.Context, []byte) error
	writeBatch func(context.Context, [][]byte) error
	msgs       [][]byte // the batch being written; the goroutine's

	// pendingMsgs counts the messages queued and not yet written, so that
	// a write that must not overtake them (awaitMessages) costs one atomic
	// load when there are none.
	pendingMsgs atomic.Int64
}

type queued struct {
	f func(context.Context) // what to run, unless msg is set
	// msg is a message to write. Consecutive messages are written together
	// (see writeBatch), and after is told the outcome.
	msg   []byte
	after func(error)
	n     int // bytes charged to the budget
}

// Batches of queued messages are bounded so that one write stays a
// reasonable size and the callbacks of the first messages are not held up
// for long.
const (
	maxBatchMessages = 256
	maxBatchBytes    = 64 << 10
)

func newSerialQueue(limit int) *serialQueue {
	ctx, cancel := context.WithCancel(context.Background())
	s := &serialQueue{
		limit:  limit,
		wake:   make(chan struct{}, 1),
		stopCh: make(chan struct{}),
		exited: make(chan struct{}),
		ctx:    ctx,
		cancel: cancel,
	}
	s.space.L = &s.mu // a Cond of its own would be one more allocation per queue
	return s
}

// push queues f without waiting; it reports false (and drops f) after stop.
func (s *serialQueue) push(f func(context.Context)) bool { return s.add(f, 0, false) }

// pushBounded queues f, charging n bytes to the budget, after waiting while
// the budget is spent. It reports false (and drops f) after stop.
func (s *serialQueue) pushBounded(f func(context.Context), n int) bool { return s.add(f, n, true) }

// pushMessage queues msg for writing, charging n bytes to the budget; with
// wait set it first waits while the budget is spent, as pushBounded. after
// is called on the queue's goroutine with the write's outcome. It reports
// false (and drops msg, without calling after) after stop.
func (s *serialQueue) pushMessage(msg []byte, after func(error), n int, wait bool) bool {
	s.pendingMsgs.Add(1) // before it can be written, so never below zero
	if !s.addEntry(queued{msg: msg, after: after, n: n}, wait) {
		s.pendingMsgs.Add(-1)
		return false
	}
	return true
}

// awaitMessages waits until the messages queued before the call are
// written, or ctx ends; at once when none are queued. A Call's request
// waits here so that it does not overtake a cancellation its caller's
// previous Call queued: a load test's worker whose call was cancelled
// sends the next one at once, and if the new request reached the peer
// before the cancellation, the peer would see one more request running
// than the caller has, and refuse the next ones as busy at its bound
// (issue 32, TestDefaultAdmissionTakesThousandInFlight).
func (s *serialQueue) awaitMessages(ctx context.Context) error {
	if s.pendingMsgs.Load() == 0 {
		return nil
	}
	return s.flush(ctx)
}

func (s *serialQueue) add(f func(context.Context), n int, wait bool) bool {
	return s.addEntry(queued{f: f, n: n}, wait)
}

func (s *serialQueue) addEntry(e queued, wait bool) bool {
	n := e.n
	s.mu.Lock()
	for wait && s.bytes >= s.limit && !s.stopped {
		s.space.Wait()
	}
	if s.stopped {
		s.mu.Unlock()
		return false
	}
	s.q = append(s.q, e)
	s.bytes += n
	spawn := s.lazy.queued()
	s.mu.Unlock()
	if spawn {
		go s.run()
	} else {
		signal(s.wake)
	}
	return true
}

// start lets the queue run: its goroutine starts with the first entry (at
// once if entries are waiting). Most Conns never queue anything (a modern
// HTTP request's Conn serves one request and writes its answer on the
// handler's goroutine), so an idle queue costs no goroutine.
func (s *serialQueue) start() {
	s.mu.Lock()
	spawn := !s.stopped && s.lazy.arm(len(s.q) > 0)
	s.mu.Unlock()
	if spawn {
		go s.run()
	}
}

// lazyStart decides when a queue's goroutine starts: with the first entry
// after start, or at start if entries are waiting, and once. Its owner calls
// it under the owner's lock and starts the goroutine when told to.
type lazyStart struct {
	armed   bool // start was called
	running bool // the goroutine was started
}

// arm records start, with pending saying whether entries are waiting, and
// reports whether to start the goroutine now.
func (l *lazyStart) arm(pending bool) bool {
	if l.armed {
		return false
	}
	l.armed = true
	return l.spawn(pending)
}

// queued reports, after an entry was queued, whether to start the goroutine.
func (l *lazyStart) queued() bool { return l.spawn(true) }

func (l *lazyStart) spawn(pending bool) bool {
	if !l.armed || l.running || !pending {
		return false
	}
	l.running = true
	return true
}

// flush waits until everything queued before the call has run, or ctx ends.
func (s *serialQueue) flush(ctx context.Context) error {
	done := make(chan struct{})
	if !s.push(func(context.Context) { close(done) }) {
		return nil
	}
	select {
	case <-done:
		return nil
	case <-s.exited:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// stop discards what is queued, cancels the running function's context and
// lets the goroutine exit.
func (s *serialQueue) stop() {
	s.mu.Lock()
	if !s.stopped {
		s.stopped = true
		s.q = nil
		s.space.Broadcast()
		close(s.stopCh)
		s.cancel()
		if !s.lazy.running {
			close(s.exited) // no goroutine, and none will start now
		}
	}
	s.mu.Unlock()
}

// writeMessages writes the run of messages starting at batch[i], within
// the batch bounds, and returns the index after it.
func (s *serialQueue) writeMessages(batch []queued, i int) int {
	j, size := i+1, len(batch[i].msg)
	for j < len(batch) && batch[j].msg != nil && j-i < maxBatchMessages && size+len(batch[j].msg) <= maxBatchBytes {
		size += len(batch[j].msg)
		j++
	}
	if j-i > 1 && s.writeBatch != nil {
		s.msgs = s.msgs[:0]
		for k := i; k < j; k++ {
			s.msgs = append(s.msgs, batch[k].msg)
		}
		err := s.writeBatch(s.ctx, s.msgs)
		clear(s.msgs)
		if !errors.Is(err, errNotBatchable) {
			for k := i; k < j; k++ {
				if batch[k].after != nil {
					batch[k].after(err)
				}
			}
			return j
		}
	}
	for k := i; k < j; k++ {
		err := s.write(s.ctx, batch[k].msg)
		if batch[k].after != nil {
			batch[k].after(err)
		}
	}
	return j
}

// errNotBatchable is what a writeBatch returns, having written nothing, for
// messages it cannot write as one (one needs compacting, say); they are then
// written one by one.
var errNotBatchable = errors.New("jsonrpc2: messages not batchable")

func (s *serialQueue) run() {
	defer close(s.exited)
	for {
		s.mu.Lock()
		batch := s.q
		s.q = nil
		s.mu.Unlock()
		for i := 0; i < len(batch); {
			if isClosed(s.stopCh) {
				return
			}
			j := i + 1
			if batch[i].msg == nil {
				batch[i].f(s.ctx)
			} else {
				j = s.writeMessages(batch, i)
				s.pendingMsgs.Add(int64(i - j))
			}
			n := 0
			for k := i; k < j; k++ {
				n += batch[k].n
				batch[k] = queued{} // let the message go now, not with the batch
			}
			if n > 0 {
				s.mu.Lock()
				s.bytes -= n
				s.space.Broadcast()
				s.mu.Unlock()
			}
			i = j
		}
		if len(batch) > 0 {
			continue
		}
		select {
		case <-s.wake:
		case <-s.stopCh:
			return
		}
	}
}
