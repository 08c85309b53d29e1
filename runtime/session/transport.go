package session

import (
	"context"
	"github.com/mcpgen/mcpgen/runtime/logsink"
	"log/slog"

	"github.com/mcpgen/mcpgen/runtime/jsonrpc2"
)

// replayTransport hands the Conn the messages Accept read while deciding
// the era, then reads on.
type replayTransport struct {
	jsonrpc2.Transport
	pending [][]byte // only the Conn's read loop touches it after Accept
}

// replaying wraps t for the Conn, keeping the optional interfaces t has
// (a Streamable HTTP transport's disconnect seams), which the Conn finds
// by type assertion.
func replaying(t jsonrpc2.Transport, pending [][]byte) jsonrpc2.Transport {
	r := &replayTransport{Transport: t, pending: pending}
	dn, isDN := t.(jsonrpc2.DisconnectNotifier)
	rc, isRC := t.(jsonrpc2.RequestStreamCanceller)
	switch {
	case isDN && isRC:
		return struct {
			*replayTransport
			jsonrpc2.DisconnectNotifier
			jsonrpc2.RequestStreamCanceller
		}{r, dn, rc}
	case isDN:
		return struct {
			*replayTransport
			jsonrpc2.DisconnectNotifier
		}{r, dn}
	case isRC:
		return struct {
			*replayTransport
			jsonrpc2.RequestStreamCanceller
		}{r, rc}
	}
	return r
}

func (r *replayTransport) Read(ctx context.Context) ([]byte, error) {
	if len(r.pending) > 0 {
		msg := r.pending[0]
		r.pending = r.pending[1:]
		return msg, nil
	}
	return r.Transport.Read(ctx)
}

// atLeast returns l restricted to records at min or above, so the
// runtime's Info lines (cancellations) stay quiet unless asked for.
func atLeast(l *slog.Logger, min slog.Level) *slog.Logger {
	return slog.New(logsink.AtLeast(l.Handler(), min))
}
