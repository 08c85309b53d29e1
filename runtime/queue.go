package runtime

import (
	"context"
	"sync"
)

// serialQueue runs functions one at a time, in order, on its own goroutine.
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
	bytes   int        // budget in use by queued and running entries
	limit   int        // pushBounded waits while bytes >= limit
	space   *sync.Cond // on mu: bytes went down, or stopped
	stopped bool
	wake    chan struct{}
	stopCh  chan struct{}
	exited  chan struct{}
	ctx     context.Context // cancelled by stop, so a blocked write gives up
	cancel  context.CancelFunc
}

type queued struct {
	f func(context.Context)
	n int // bytes charged to the budget
}

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
	s.space = sync.NewCond(&s.mu)
	return s
}

// push queues f without waiting; it reports false (and drops f) after stop.
func (s *serialQueue) push(f func(context.Context)) bool { return s.add(f, 0, false) }

// pushBounded queues f, charging n bytes to the budget, after waiting while
// the budget is spent. It reports false (and drops f) after stop.
func (s *serialQueue) pushBounded(f func(context.Context), n int) bool { return s.add(f, n, true) }

func (s *serialQueue) add(f func(context.Context), n int, wait bool) bool {
	s.mu.Lock()
	for wait && s.bytes >= s.limit && !s.stopped {
		s.space.Wait()
	}
	if s.stopped {
		s.mu.Unlock()
		return false
	}
	s.q = append(s.q, queued{f, n})
	s.bytes += n
	s.mu.Unlock()
	select {
	case s.wake <- struct{}{}:
	default:
	}
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
	}
	s.mu.Unlock()
}

func (s *serialQueue) run() {
	defer close(s.exited)
	for {
		s.mu.Lock()
		batch := s.q
		s.q = nil
		s.mu.Unlock()
		for i, e := range batch {
			select {
			case <-s.stopCh:
				return
			default:
			}
			e.f(s.ctx)
			batch[i].f = nil // let the message go now, not with the batch
			if e.n > 0 {
				s.mu.Lock()
				s.bytes -= e.n
				s.space.Broadcast()
				s.mu.Unlock()
			}
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
