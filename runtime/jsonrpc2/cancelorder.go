package jsonrpc2

import "context"

// The order of a handler's own cancellations and its response.
//
// A handler that calls the peer (a server's elicitation/create, say) and
// gives up on that call, because the call timed out or because the
// handler's own request was cancelled, sends notifications/cancelled for
// it. Where the transport cannot take that notification at once (tryWrite
// declines: a stdio pipe that is busy or full, any io.Writer that is not a
// pipe, every Streamable HTTP session) it goes to the sender queue, while
// the handler's response is written on the handler's goroutine: the
// response could overtake it. The peer would then see the answer of the
// tools/call before the cancellation of the request that answer gave up on,
// and over Streamable HTTP the request's stream would end with the answer,
// leaving the cancellation no stream to go on.
//
// So a call made under a handler's context marks the handler's in-flight
// record when its cancellation is queued, and the response of a marked
// request is written only once the sender has written (or failed to
// write) everything queued before it. Unmarked responses, nearly all of
// them, pay one atomic load.

// noteQueuedCancel marks the request whose handler's context ctx is (or
// derives from), if it is one of c's, as owing its response to a
// cancellation about to be queued. Called before the queueing, on the
// goroutine of the cancelled call.
func (c *Conn) noteQueuedCancel(ctx context.Context) {
	if f := inflightOf(ctx); f != nil && f.conn == c {
		f.cancelsQueued.Store(true)
	}
}

// awaitQueuedCancels waits, before f's response is written, until the
// cancellations queued by f's handler's calls are written: the sender
// writes in order, so flushing it is enough. It returns at once when none
// were queued, and when the Conn is shutting down (the sender then stops
// and flush returns).
func (c *Conn) awaitQueuedCancels(f *inflight) {
	if !f.cancelsQueued.Load() {
		return
	}
	_ = c.sender.flush(c.connCtx)
}
