package jsonrpc2

import (
	"context"
	"io"
	"sync"
)

// NewPipe returns the two ends of one in-memory pipe, each a Transport (as
// net.Pipe returns two net.Conns; there is no Pipe type): what one end
// writes, the other reads, message by message, without serialisation to a
// byte stream.
// It is for tests and for running a client and server in one process. Closing
// either end makes the other end's Read return io.EOF once the messages
// already written have been read.
func NewPipe() (Transport, Transport) {
	ab := newPipeQueue()
	ba := newPipeQueue()
	a := &pipeTransport{in: ba, out: ab}
	b := &pipeTransport{in: ab, out: ba}
	return a, b
}

// pipeCapacity bounds the messages buffered in one direction, so a writer
// that outpaces its reader is slowed down as it would be by a real pipe.
const pipeCapacity = 4096

// pipeQueue is one direction of a pipe: a queue that grows as messages
// wait (a channel of pipeCapacity slots would cost every pipe 96 KiB up
// front, most of a connection's setup, for a burst few sessions see).
// Any number of writers, one reader.
type pipeQueue struct {
	mu      sync.Mutex
	q       [][]byte // q[head:] are unread
	head    int
	waiters int           // writers waiting for space
	ready   chan struct{} // cap 1: a message was queued
	space   chan struct{} // cap 1: a slot was freed while writers waited
	once    sync.Once
	closed  chan struct{}
}

func newPipeQueue() *pipeQueue {
	return &pipeQueue{ready: make(chan struct{}, 1), space: make(chan struct{}, 1), closed: make(chan struct{})}
}

func (q *pipeQueue) close() { q.once.Do(func() { close(q.closed) }) }

// signal wakes whoever waits on ch, a channel of capacity 1, unless a
// wake-up is already pending.
func signal(ch chan struct{}) {
	select {
	case ch <- struct{}{}:
	default:
	}
}

// isClosed reports whether ch, a channel that is only ever closed, is.
func isClosed(ch <-chan struct{}) bool {
	select {
	case <-ch:
		return true
	default:
		return false
	}
}

// tryPush queues msg unless pipeCapacity messages are unread; if it does
// not and wait is set, the caller is counted as waiting for space (in the
// same step, so the read that frees a slot cannot miss it).
func (q *pipeQueue) tryPush(msg []byte, wait bool) bool {
	q.mu.Lock()
	n := len(q.q) - q.head
	if n >= pipeCapacity {
		if wait {
			q.waiters++
		}
		q.mu.Unlock()
		return false
	}
	if len(q.q) == cap(q.q) && q.head > 0 {
		// Reuse the read prefix rather than grow.
		copy(q.q, q.q[q.head:])
		clear(q.q[n:])
		q.q, q.head = q.q[:n], 0
	}
	q.q = append(q.q, msg)
	// Another writer may be waiting for the slot the one that woke us
	// freed too: pass the wake-up on.
	pass := q.waiters > 0 && n+1 < pipeCapacity
	q.mu.Unlock()
	signal(q.ready)
	if pass {
		signal(q.space)
	}
	return true
}

// pop returns the oldest unread message, if any.
func (q *pipeQueue) pop() ([]byte, bool) {
	q.mu.Lock()
	if q.head == len(q.q) {
		q.mu.Unlock()
		return nil, false
	}
	m := q.q[q.head]
	q.q[q.head] = nil
	q.head++
	if q.head == len(q.q) {
		if cap(q.q) > 256 {
			q.q = nil // a burst is over: do not keep its slots
		} else {
			q.q = q.q[:0]
		}
		q.head = 0
	}
	wake := q.waiters > 0
	q.mu.Unlock()
	if wake {
		signal(q.space)
	}
	return m, true
}

type pipeTransport struct {
	in, out *pipeQueue
}

// Read returns the next message; after Close it returns what was already
// written, then io.EOF.
func (p *pipeTransport) Read(ctx context.Context) ([]byte, error) {
	for {
		if m, ok := p.in.pop(); ok {
			return m, nil
		}
		select {
		case <-p.in.ready:
		case <-p.in.closed:
			// Drain what was written before the close.
			if m, ok := p.in.pop(); ok {
				return m, nil
			}
			return nil, io.EOF
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
}

// Write hands msg to the peer without copying (the Conn never reuses it);
// it blocks while pipeCapacity messages are unread.
func (p *pipeTransport) Write(ctx context.Context, msg []byte) error {
	q := p.out
	for {
		if isClosed(q.closed) {
			return ErrTransportClosed
		}
		if q.tryPush(msg, true) {
			return nil
		}
		var err error
		select {
		case <-q.space:
		case <-q.closed:
			err = ErrTransportClosed
		case <-ctx.Done():
			err = ctx.Err()
		}
		q.mu.Lock()
		q.waiters--
		q.mu.Unlock()
		if err != nil {
			return err
		}
	}
}

// tryWrite is Write when there is room, and declines, having queued
// nothing, when the peer has pipeCapacity messages unread (see tryWriter).
func (p *pipeTransport) tryWrite(msg []byte) bool {
	return !isClosed(p.out.closed) && p.out.tryPush(msg, false)
}

// Close closes both directions: the peer reads io.EOF, and this end's pending
// Read returns io.EOF too.
func (p *pipeTransport) Close() error {
	p.out.close()
	p.in.close()
	return nil
}
