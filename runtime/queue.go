package runtime

import (
	"context"
	"sync"
)

// serialQueue runs functions one at a time, in order, on its own goroutine,
// with an unbounded queue. The Conn uses one to write messages the read loop
// produces (error replies, cancellation notifications), so the read loop never
// blocks on a write, and one to run notification handlers in arrival order
// without holding up routing.
type serialQueue struct {
	mu      sync.Mutex
	q       []func(context.Context)
	stopped bool
	wake    chan struct{}
	stopCh  chan struct{}
	exited  chan struct{}
	ctx     context.Context // cancelled by stop, so a blocked write gives up
	cancel  context.CancelFunc
}

func newSerialQueue() *serialQueue {
	ctx, cancel := context.WithCancel(context.Background())
	return &serialQueue{
		wake:   make(chan struct{}, 1),
		stopCh: make(chan struct{}),
		exited: make(chan struct{}),
		ctx:    ctx,
		cancel: cancel,
	}
}

// push queues f; it reports false (and drops f) after stop.
func (s *serialQueue) push(f func(context.Context)) bool {
	s.mu.Lock()
	if s.stopped {
		s.mu.Unlock()
		return false
	}
	s.q = append(s.q, f)
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
		for _, f := range batch {
			select {
			case <-s.stopCh:
				return
			default:
			}
			f(s.ctx)
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
