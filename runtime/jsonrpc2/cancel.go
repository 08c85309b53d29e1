package jsonrpc2

import (
	"context"
	"strconv"
)

// CancelSource says what ended a request. It is part of every CancelError so
// handlers, callers and logs can tell a user's cancel from a timeout or a
// dropped connection.
type CancelSource uint8

const (
	// SourceUnknown is the zero value; the runtime never produces it.
	SourceUnknown CancelSource = iota
	// SourcePeer: the peer sent notifications/cancelled.
	SourcePeer
	// SourceCaller: the caller's context ended (Call's ctx).
	SourceCaller
	// SourceTimeout: the per-call timeout (WithTimeout) fired with no response.
	SourceTimeout
	// SourceProgressTimeout: with WithProgressReset, no progress notification
	// arrived within the timeout.
	SourceProgressTimeout
	// SourceMaxTimeout: the hard maximum (WithMaxTimeout) fired, whatever the
	// progress.
	SourceMaxTimeout
	// SourceTransportClosed: the transport reached EOF (the peer went away).
	SourceTransportClosed
	// SourceTransportError: reading the transport failed.
	SourceTransportError
	// SourceClose: Conn.Close was called (or Run's context ended).
	SourceClose
	// SourceStreamClosed: the peer closed the response stream of this
	// request, which the Policy (DisconnectIsCancellation: Streamable HTTP,
	// 2026-07-28) defines as its cancellation. Its name is "stream closed".
	SourceStreamClosed
	// SourceLocal: this side ended a request the peer issued (CancelIncoming).
	SourceLocal
	// SourceTaskCancel: the requestor sent tasks/cancel for the task this
	// work runs under (2025-11-25 tasks.mdx); the CancelError's Reason names
	// the task.
	SourceTaskCancel
)

var sourceNames = [...]string{
	"unknown", "peer notification", "caller context", "timeout",
	"progress timeout", "maximum timeout", "transport closed",
	"transport error", "connection closed", "stream closed", "local",
	"tasks/cancel",
}

// String names the source for logs and reasons.
func (s CancelSource) String() string {
	if int(s) < len(sourceNames) {
		return sourceNames[s]
	}
	return "source(" + strconv.Itoa(int(s)) + ")"
}

// IsTimeout reports whether the source is one of the timeouts, which also
// satisfy errors.Is(err, context.DeadlineExceeded).
func (s CancelSource) IsTimeout() bool {
	return s == SourceTimeout || s == SourceProgressTimeout || s == SourceMaxTimeout
}

// CancelError is why a request was cancelled. Handlers find it as
// context.Cause(ctx); Call returns it when a runtime timeout fires or the
// connection goes away. errors.Is(err, context.Canceled) is always true, so
// code that only checks for cancellation keeps working; timeouts also match
// context.DeadlineExceeded.
type CancelError struct {
	// ID and Method name the request; ID is zero only if it is unknown.
	ID     RequestID
	Method string
	// Reason is the human-readable reason: the peer's reason string, or one
	// the runtime wrote saying which limit fired.
	Reason string
	// Source says what cancelled the request.
	Source CancelSource
	// Err is the underlying error, if any (the transport's read error, the
	// caller's context cause).
	Err error
}

// Error describes the cancellation.
func (e *CancelError) Error() string {
	s := "request"
	if !e.ID.IsZero() {
		s += " " + e.ID.String()
	}
	if e.Method != "" {
		s += " (" + e.Method + ")"
	}
	s += " cancelled by " + e.Source.String()
	if e.Reason != "" {
		s += ": " + e.Reason
	}
	return s
}

// Is makes CancelError match context.Canceled, and context.DeadlineExceeded
// for timeouts.
func (e *CancelError) Is(target error) bool {
	return target == context.Canceled || (target == context.DeadlineExceeded && e.Source.IsTimeout())
}

// Unwrap returns the underlying error.
func (e *CancelError) Unwrap() error { return e.Err }

// forRequest returns a copy of a connection-wide cause naming one request.
func (e *CancelError) forRequest(id RequestID, method string) *CancelError {
	c := *e
	c.ID, c.Method = id, method
	return &c
}
