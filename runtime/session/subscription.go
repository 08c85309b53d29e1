package session

import (
	"context"
	"encoding/json"

	"github.com/mcpgen/mcpgen/runtime/internal/jsonscan"
	"github.com/mcpgen/mcpgen/runtime/jsonrpc2"
)

// MetaSubscriptionID is the _meta key that ties a notification to its
// subscriptions/listen stream (patterns/subscriptions.mdx).
const MetaSubscriptionID = "io.modelcontextprotocol/subscriptionId"

// MethodSubscriptionsListen is the modern request that opens a stream of
// change notifications.
const MethodSubscriptionsListen = "subscriptions/listen"

// Subscription is an open subscriptions/listen stream, as its handler
// holds it. Its id is the listen request's id. The stream ends when the
// handler returns (a graceful end: the result carries the subscription id),
// when the handler calls Cancel (notifications/cancelled to the client), or
// when the client cancels the request (the handler's ctx ends).
type Subscription struct {
	conn *jsonrpc2.Conn
	id   jsonrpc2.RequestID
	// ctx is the listen handler's ctx without its cancellation: it names
	// the request (and so its stream) to Notify and CancelRequest, since
	// its id alone may be another client's too (one Conn serves every
	// modern request over HTTP).
	ctx context.Context
}

// Listen acknowledges the subscriptions/listen request a handler's ctx
// serves: it sends notifications/subscriptions/acknowledged with the filter
// the server honours (accepted: the request's notifications, minus what the
// server does not support), which must come before any notification on the
// stream. The handler then sends with Notify until ctx ends or it stops.
func Listen(ctx context.Context, accepted any) (*Subscription, error) {
	rs, ok := stateOf(ctx)
	if !ok {
		return nil, ErrNoSession
	}
	if rs.req.Method != MethodSubscriptionsListen {
		return nil, &jsonrpc2.Error{Code: jsonrpc2.CodeInternalError, Message: "session.Listen outside a subscriptions/listen handler"}
	}
	s := &Subscription{conn: rs.st.conn, id: rs.req.ID, ctx: context.WithoutCancel(ctx)}
	return s, s.Notify(ctx, "notifications/subscriptions/acknowledged", map[string]any{"notifications": accepted})
}

// ID is the subscription id: the listen request's JSON-RPC id.
func (s *Subscription) ID() jsonrpc2.RequestID { return s.id }

// Notify sends a notification on the stream: params (an object, or nil)
// gets the subscription id in its _meta.
func (s *Subscription) Notify(ctx context.Context, method string, params any) error {
	raw, err := json.Marshal(params)
	if err != nil {
		return err
	}
	if string(raw) == "null" {
		raw = nil
	}
	raw, err = addMeta(raw, map[string]json.RawMessage{MetaSubscriptionID: mustJSON(s.id)})
	if err != nil {
		return err
	}
	return s.conn.Notify(s.ctx, method, json.RawMessage(raw))
}

// Cancel tears the stream down from the server's side: the handler's ctx
// ends and the client gets notifications/cancelled with reason, as the
// cancellation page requires (the subscriptions page prefers a graceful
// result, which the handler gives by returning instead).
func (s *Subscription) Cancel(reason string) error { return s.conn.CancelRequest(s.ctx, reason) }

// withSubscriptionID puts the subscription id into a listen result's
// _meta, which the subscriptions page requires and a handler need not know.
func withSubscriptionID(result any, id jsonrpc2.RequestID) (any, error) {
	raw, err := json.Marshal(result)
	if err != nil {
		return nil, err
	}
	if string(raw) == "null" {
		raw = []byte(`{"resultType":"complete"}`)
	}
	// Set, not added: a typed result carries a zero id there.
	return jsonscan.EditObject(raw, "_meta", func(meta map[string]json.RawMessage) bool {
		meta[MetaSubscriptionID] = mustJSON(id)
		return true
	})
}
