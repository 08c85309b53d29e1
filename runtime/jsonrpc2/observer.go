package jsonrpc2

// EventKind is the step of a cancellation an Event reports.
type EventKind uint8

const (
	// EventRequested: this side decided to cancel one of its outgoing calls
	// (the caller gave up or a timeout fired). Sent or Ignored follows.
	EventRequested EventKind = iota + 1
	// EventSent: the cancellation went out (the notification was written, or
	// the request's stream was closed under DisconnectIsCancellation).
	EventSent
	// EventReceived: a notifications/cancelled arrived from the peer.
	EventReceived
	// EventApplied: a request's context was cancelled: a handler of ours, or
	// one of our calls ended by the peer (2026-07-28 subscriptions/listen).
	EventApplied
	// EventIgnored: a cancellation was not applied or not sent; Why says why.
	EventIgnored
	// EventBusy is no cancellation: an incoming request was refused with
	// CodeServerBusy by admission (WithMaxInFlight), before any handler or
	// interceptor saw it. It goes to the Observer so that metrics can count
	// refusals, which otherwise only the peer learns of; LogCancellations
	// skips it.
	EventBusy
)

var eventNames = [...]string{"", "requested", "sent", "received", "applied", "ignored", "busy"}

// String names the kind.
func (k EventKind) String() string {
	if int(k) < len(eventNames) {
		return eventNames[k]
	}
	return "event"
}

// IgnoreReason says why a cancellation was ignored.
type IgnoreReason uint8

const (
	// IgnoreNone is the zero value, for events that are not EventIgnored.
	IgnoreNone IgnoreReason = iota
	// IgnoreMalformed: the revision's schema rejects the params (the
	// Policy's Cancelled decoder says why, in Detail: the JSON pointer of the
	// offending value and the problem), or the message itself is not a valid
	// notification.
	IgnoreMalformed
	// IgnoreNoRequestID: requestId absent where the schema makes it optional.
	IgnoreNoRequestID
	// IgnoreUnknownID: no such request is in flight (never seen, or already
	// answered: the race the spec says to handle gracefully).
	IgnoreUnknownID
	// IgnoreNotCancellable: the method is in Policy.NeverCancellable.
	IgnoreNotCancellable
	// IgnoreTaskAugmented: task-augmented requests are cancelled with the
	// Policy's TaskCancelMethod, never with the notification.
	IgnoreTaskAugmented
	// IgnoreNotPermitted: the Policy does not let that side cancel that
	// request (2026-07-28: a server cancel not naming subscriptions/listen).
	IgnoreNotPermitted
	// IgnoreNotWritten: an outgoing call ended before its request was
	// written, so there is nothing to cancel on the wire.
	IgnoreNotWritten
	// IgnoreClosed: the connection closed before the notification was sent.
	IgnoreClosed
	// IgnoreNoDecoder: the Policy has no Cancelled decoder (DefaultPolicy),
	// so the Conn cannot tell a valid cancellation and applies none.
	IgnoreNoDecoder
)

var ignoreNames = [...]string{
	"", "malformed notification", "no requestId", "unknown or completed request",
	"method is never cancellable", "task-augmented request (use the task cancel method)",
	"not permitted by the revision's policy", "request was never written",
	"connection closed", "no cancellation decoder in the policy",
}

// String names the reason.
func (r IgnoreReason) String() string {
	if int(r) < len(ignoreNames) {
		return ignoreNames[r]
	}
	return "ignored"
}

// Direction says whose request an Event concerns.
type Direction uint8

const (
	// Outgoing requests are ones this side issued (Call).
	Outgoing Direction = iota + 1
	// Incoming requests are ones the peer issued (handled by a Handler).
	Incoming
)

// String names the direction.
func (d Direction) String() string {
	switch d {
	case Outgoing:
		return "outgoing"
	case Incoming:
		return "incoming"
	}
	return "unknown"
}

// Event is one step of a cancellation, for an Observer.
type Event struct {
	Kind      EventKind
	Direction Direction
	ID        RequestID // zero when a malformed notification named no usable id
	Method    string    // the request's method, when known
	Reason    string
	Source    CancelSource
	Why       IgnoreReason // for EventIgnored
	Detail    string       // for EventIgnored: specifics, e.g. what was malformed
}

// Observer receives cancellation events (and busy refusals, EventBusy) so an application can show that a
// cancellation was requested, sent or applied (the spec says UIs SHOULD). The
// Conn never calls it from the read loop: events go through a bounded queue
// to one goroutine per Conn, which calls the Observer one event at a time,
// in the order the Conn produced them. An Observer may be slow or even stuck
// without stalling the connection; when the queue is full, events are
// dropped and counted (Conn.DispatchStats). The goroutine ends with the
// Conn, once the Observer returns. Close waits for that goroutine, so an
// Observer that calls Close must give it a context with a deadline.
type Observer func(Event)
