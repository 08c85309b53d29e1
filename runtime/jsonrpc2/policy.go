package jsonrpc2

import "github.com/mcpgen/mcpgen/runtime/internal/jsonscan"

// Side says which MCP role a Conn plays. Cancellation rules differ by role in
// some revisions (2026-07-28 lets only the client cancel its requests), so the
// Conn needs to know which rules are its own and which are its peer's.
type Side uint8

const (
	// SideAny is for symmetric peers (tests, DefaultPolicy): both roles follow
	// the union of ClientCancels and ServerCancels.
	SideAny Side = iota
	// SideClient is the MCP client (host side).
	SideClient
	// SideServer is the MCP server.
	SideServer
)

// String names the side for logs.
func (s Side) String() string {
	switch s {
	case SideClient:
		return "client"
	case SideServer:
		return "server"
	}
	return "any"
}

// MethodSet is a set of method names with an "all" shorthand, as plain data so
// generated packages can write it as a literal.
type MethodSet struct {
	// All includes every method (Methods is then ignored).
	All bool
	// Methods lists the included methods when All is false.
	Methods []string
}

// Has reports whether method is in the set.
func (s MethodSet) Has(method string) bool {
	if s.All {
		return true
	}
	for _, m := range s.Methods {
		if m == method {
			return true
		}
	}
	return false
}

// CancelScope says which notifications/cancelled one role may send.
type CancelScope struct {
	// OwnRequests are the methods of requests this role issued that it may
	// cancel (the classic direction: the requester gives up).
	OwnRequests MethodSet
	// PeerRequests are the methods of requests the other role issued that this
	// role may end with notifications/cancelled. Only 2026-07-28 uses this:
	// a server ends the client's subscriptions/listen that way.
	PeerRequests MethodSet
}

// Policy is one revision's cancellation rules, as data. Generated packages
// construct it (one per revision, with Side set per role); the Conn consults
// it and never compares revision strings. All fields are plain values (the
// Cancelled decoder an empty struct behind an interface) so a Policy can be
// written as a composite literal and compared with reflect.DeepEqual.
type Policy struct {
	// Side is the role of the Conn holding this Policy.
	Side Side

	// CancelledMethod and ProgressMethod are the notification names the
	// runtime handles itself ("notifications/cancelled",
	// "notifications/progress"). Empty disables that handling.
	CancelledMethod string
	ProgressMethod  string

	// ClientCancels and ServerCancels say who may send notifications/cancelled
	// and for which requests. The Conn applies its own side's scope to what
	// it sends and the peer's scope to what it accepts.
	ClientCancels CancelScope
	ServerCancels CancelScope

	// NeverCancellable lists methods whose requests are never cancelled by
	// notification in either direction (every revision: "initialize").
	NeverCancellable []string

	// LivenessMethod is the request admitted beyond the in-flight limits
	// and without waiting for a handler slot, so a peer whose every slot is
	// busy still answers liveness checks ("ping", in the revisions whose
	// schema defines it). Empty admits no request so.
	LivenessMethod string

	// Cancelled decodes the params of the notifications/cancelled the peer
	// sends. Generated packages set it to their revision's decoder,
	// generated from the schema's CancelledNotificationParams, so the Conn
	// applies exactly what the schema accepts and ignores, as malformed,
	// exactly what it rejects, logging the decoder's error (the JSON pointer
	// of the offending value and what is wrong with it). It also settles
	// whether requestId may be absent (2025-11-25, where its absence means
	// "not for a plain request": the notification is then ignored as
	// IgnoreNoRequestID, nothing to cancel).
	//
	// With no decoder (DefaultPolicy) the Conn applies no cancellation from
	// the peer: each notifications/cancelled is ignored as IgnoreNoDecoder.
	// It still sends its own and handles everything else.
	Cancelled CancelledDecoder

	// TaskCancelMethod is the request that cancels tasks ("tasks/cancel" in
	// 2025-11-25); empty when the revision has no tasks. When set, a request
	// whose params object has the member TaskParamsMember is task-augmented:
	// notifications/cancelled never applies to it, in either direction.
	TaskCancelMethod string
	TaskParamsMember string

	// DisconnectIsCancellation is true when dropping a request's stream is
	// itself the cancellation (2026-07-28 Streamable HTTP). With a transport
	// that is a MessageWriter the Conn then cancels a call by asking it to
	// close the call's stream (OutMessage.CloseStream) instead of sending a
	// notification, and a dropped incoming stream (Conn.StreamClosed,
	// Delivery.StreamClosed) cancels its handler. Ignored by stdio and pipes.
	DisconnectIsCancellation bool
}

// CancelledDecoder is a revision's decoder of notifications/cancelled params,
// generated from its schema (the generated package's Policy sets it). It is an
// interface rather than a func so that a Policy stays comparable with
// reflect.DeepEqual: generated decoders are empty structs.
type CancelledDecoder interface {
	// Decode decodes the params of one notifications/cancelled; params is
	// nil when the message had none (or null, which JSON-RPC senders mean as
	// none). It returns an error exactly when the revision's schema rejects
	// params; the error's text names the JSON pointer of the offending value
	// and the problem, and becomes the ignored event's Detail. A zero
	// CancelledParams.RequestID with a nil error means requestId is absent
	// where the schema allows that.
	Decode(params []byte) (CancelledParams, error)
}

// CancelledParams is what the Conn acts on in notifications/cancelled params.
type CancelledParams struct {
	// RequestID is the request to cancel; zero when the member is absent
	// (only where the schema makes it optional).
	RequestID RequestID
	// Reason is the optional reason, "" when absent.
	Reason string
}

// DefaultPolicy returns the rules shared by revisions 2024-11-05 to
// 2025-06-18: either side may cancel any request it issued except initialize,
// there are no tasks, and a disconnect is not a cancellation. Side is
// SideAny, so it suits tests with two symmetric peers. It has no Cancelled
// decoder, because the runtime holds no definition of a valid cancellation
// of its own: the decoders are generated from each revision's schema. A Conn
// with this Policy ignores the peer's notifications/cancelled
// (IgnoreNoDecoder); use a generated package's Policy, or set Cancelled from
// one, to apply them.
func DefaultPolicy() Policy {
	all := CancelScope{OwnRequests: MethodSet{All: true}}
	return Policy{
		CancelledMethod:  "notifications/cancelled",
		ProgressMethod:   "notifications/progress",
		ClientCancels:    all,
		ServerCancels:    all,
		NeverCancellable: []string{"initialize"},
		LivenessMethod:   "ping",
	}
}

// compiledPolicy is a Policy resolved for one Conn: the own and peer scopes
// picked by Side and the lists turned into lookups.
type compiledPolicy struct {
	Policy
	own, peer CancelScope
	never     map[string]bool
}

func compilePolicy(p Policy) *compiledPolicy {
	cp := &compiledPolicy{Policy: p, never: map[string]bool{}}
	for _, m := range p.NeverCancellable {
		cp.never[m] = true
	}
	switch p.Side {
	case SideClient:
		cp.own, cp.peer = p.ClientCancels, p.ServerCancels
	case SideServer:
		cp.own, cp.peer = p.ServerCancels, p.ClientCancels
	default:
		u := CancelScope{
			OwnRequests:  union(p.ClientCancels.OwnRequests, p.ServerCancels.OwnRequests),
			PeerRequests: union(p.ClientCancels.PeerRequests, p.ServerCancels.PeerRequests),
		}
		cp.own, cp.peer = u, u
	}
	return cp
}

func union(a, b MethodSet) MethodSet {
	if a.All || b.All {
		return MethodSet{All: true}
	}
	return MethodSet{Methods: append(append([]string(nil), a.Methods...), b.Methods...)}
}

// peerSendsOwnCancels reports whether the peer may cancel requests it issued
// at all (a 2026-07-28 server may not), to decide which table a received
// notification's id is looked up in.
func (p *compiledPolicy) peerSendsOwnCancels() bool {
	return p.peer.OwnRequests.All || len(p.peer.OwnRequests.Methods) > 0
}

func (p *compiledPolicy) peerEndsOurRequests() bool {
	return p.peer.PeerRequests.All || len(p.peer.PeerRequests.Methods) > 0
}

// isTask reports whether a request with these params is task-augmented.
func (p *compiledPolicy) isTask(params []byte) bool {
	if p.TaskCancelMethod == "" || p.TaskParamsMember == "" || len(params) == 0 || params[0] != '{' {
		return false
	}
	return jsonscan.Member(params, p.TaskParamsMember) != nil
}
