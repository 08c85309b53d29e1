package runtime

import (
	"context"
	"io"
	"sync"
)

// NewPipe returns two connected in-memory transports: what one end writes,
// the other reads, message by message, without serialisation to a byte stream.
// It is for tests and for running a client and server in one process. Closing
// either end makes the other end's Read return io.EOF once the messages
// already written have been read.
func NewPipe() (Transport, Transport) {
	ab := newPipeQueue()
	ba := newPipeQueue()
	a := &pipeEnd{in: ba, out: ab}
	b := &pipeEnd{in: ab, out: ba}
	return a, b
}

// pipeCapacity bounds the messages buffered in one direction, so a writer
// that outpaces its reader is slowed down as it would be by a real pipe.
const pipeCapacity = 4096

type pipeQueue struct {
	ch     chan []byte
	once   sync.Once
	closed chan struct{}
}

func newPipeQueue() *pipeQueue {
	return &pipeQueue{ch: make(chan []byte, pipeCapacity), closed: make(chan struct{})}
}

func (q *pipeQueue) close() { q.once.Do(func() { close(q.closed) }) }

type pipeEnd struct {
	in, out *pipeQueue
}

// Read returns the next message; after Close it returns what was already
// written, then io.EOF.
func (p *pipeEnd) Read(ctx context.Context) ([]byte, error) {
	select {
	case m := <-p.in.ch:
		return m, nil
	default:
	}
	select {
	case m := <-p.in.ch:
		return m, nil
	case <-p.in.closed:
		// Drain what was written before the close.
		select {
		case m := <-p.in.ch:
			return m, nil
		default:
		}
		return nil, io.EOF
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// Write hands msg to the peer without copying (the Conn never reuses it);
// it blocks while pipeCapacity messages are unread.
func (p *pipeEnd) Write(ctx context.Context, msg []byte) error {
	select {
	case <-p.out.closed:
		return ErrTransportClosed
	default:
	}
	select {
	case p.out.ch <- msg:
		return nil
	case <-p.out.closed:
		return ErrTransportClosed
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Close closes both directions: the peer reads io.EOF, and this end's pending
// Read returns io.EOF too.
func (p *pipeEnd) Close() error {
	p.out.close()
	p.in.close()
	return nil
}
