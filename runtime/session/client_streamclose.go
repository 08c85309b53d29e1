package session

import "github.com/mcpgen/mcpgen/runtime/jsonrpc2"

// streamClosing is the session's client transport over a transport that
// cancels a request by closing its response stream (Streamable HTTP,
// 2026-07-28: "closing the stream is the cancellation"). The Conn closes a
// cancelled call's stream only when its own transport implements
// jsonrpc2.RequestStreamCanceller; without this wrapper the session's
// transport hid the HTTP transport's method, the Conn sent
// notifications/cancelled instead, and the server's handler was never
// cancelled. Over stdio and pipes the session's transport stays a plain
// *clientTransport, so the Conn keeps sending the notification there.
type streamClosing struct {
	*clientTransport
	sc jsonrpc2.RequestStreamCanceller
}

// sessionTransport is ct as the Conn should see it: with
// CloseRequestStream exactly when the transport under it has one.
func sessionTransport(ct *clientTransport) jsonrpc2.Transport {
	if sc, ok := ct.inner.(jsonrpc2.RequestStreamCanceller); ok {
		return streamClosing{clientTransport: ct, sc: sc}
	}
	return ct
}

// CloseRequestStream implements jsonrpc2.RequestStreamCanceller. id is the
// Conn's; on the wire the request may be an input round's retry by now, so
// the stream closed is the current one, and the round trip's local work
// (input handlers) ends with it, as Write does for a notification.
func (t streamClosing) CloseRequestStream(id jsonrpc2.RequestID) error {
	t.mu.Lock()
	rt := t.calls[id]
	delete(t.calls, id)
	t.mu.Unlock()
	wire := id
	if rt != nil {
		rt.cancel()
		wire = rt.current
	}
	return t.sc.CloseRequestStream(wire)
}
