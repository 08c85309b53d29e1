package jsonrpc2

import (
	"context"
	"errors"
	"fmt"
)

// Transport moves whole JSON-RPC messages. It is message-oriented (not a byte
// stream) so the Conn never deals with framing, and so a transport with one
// stream per request (Streamable HTTP) can fit behind the same interface.
//
// Read and Write may be called concurrently with each other; Write may be
// called from many goroutines at once and must not interleave messages.
// Close must unblock a pending Read (it then returns an error), which is how
// Conn.Close ends the read loop.
type Transport interface {
	// Read returns the next message. The returned slice belongs to the caller.
	// io.EOF means the peer closed the stream cleanly. An error wrapping
	// ErrMessageTooLarge means one message was refused and skipped; the
	// transport is still usable. Any other error is fatal.
	Read(ctx context.Context) ([]byte, error)
	// Write sends one message. msg is a complete JSON value; the transport may
	// keep it after Write returns (the Conn never modifies it again). A Write
	// that returns an error has not delivered the message.
	Write(ctx context.Context, msg []byte) error
	// Close releases the transport and unblocks Read.
	Close() error
}

// batchWriter is implemented by the runtime's own transports that can write
// several messages as one write. The Conn's sender uses it for what queues
// up behind a write: a burst of cancellations or of error replies costs a
// few writes instead of one per message. It returns errNotBatchable, having
// written nothing, when the messages cannot go as one.
type batchWriter interface {
	writeBatch(ctx context.Context, msgs [][]byte) error
}

// tryWriter is implemented by the runtime's own transports that can write a
// small message on the caller's goroutine when that cannot block. tryWrite
// reports false, having written nothing, when it cannot; the message then
// goes the ordinary way.
type tryWriter interface {
	tryWrite(msg []byte) bool
}

// ErrMessageTooLarge is wrapped by the error a transport returns for a message
// over its size limit, on Read (the message is skipped) and on Write (nothing
// is written).
var ErrMessageTooLarge = errors.New("jsonrpc2: message too large")

// MessageTooLargeError reports a refused message and the limit it broke.
type MessageTooLargeError struct {
	Size  int // bytes seen (on Read, at least this many)
	Limit int
	Write bool // true when refusing an outgoing message
}

// Error describes the refused message.
func (e *MessageTooLargeError) Error() string {
	dir := "incoming"
	if e.Write {
		dir = "outgoing"
	}
	return fmt.Sprintf("%s message of %d bytes or more exceeds the %d-byte limit", dir, e.Size, e.Limit)
}

// Unwrap makes errors.Is(err, ErrMessageTooLarge) true.
func (e *MessageTooLargeError) Unwrap() error { return ErrMessageTooLarge }

// ErrTransportClosed is returned by transports used after Close.
var ErrTransportClosed = errors.New("jsonrpc2: transport closed")
