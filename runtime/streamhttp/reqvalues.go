package streamhttp

import (
	"context"
	"net/http"

	"github.com/mcpgen/mcpgen/runtime/jsonrpc2"
)

// sessionKey is the context key under which a legacy session's handler
// contexts carry their session (its BaseContext).
type sessionKey struct{}

// postValuesKey is the context key under which a legacy request's handler
// ctx carries the values of the POST that delivered it (RequestContext).
type postValuesKey struct{}

// RequestValues returns the context of the HTTP request that carried the
// MCP request a legacy session's handler ctx serves, for its values (the
// verified identity of that POST's bearer token, for one): for the whole
// life of the handler's ctx and of what keeps its values, such as a task's
// work, even after the POST ended. ok is false elsewhere: a modern
// request's handler ctx already carries its own POST's values, and the
// values of a legacy ctx not derived from a request's are those of the
// session's initialize, as every handler of the session has (a request the
// Conn registered only after its POST had gone, too).
func RequestValues(ctx context.Context) (values context.Context, ok bool) {
	v, ok := ctx.Value(postValuesKey{}).(context.Context)
	return v, ok
}

// RequestContext implements jsonrpc2.RequestContextTransport: each request
// of the session is handled with the values of its own POST pinned in its
// ctx (a refreshed or stepped-up token's identity), so a task it creates
// works with them too, after the POST has ended. Called by the Conn as it
// registers the request, while its POST waits for the answer.
func (s *legacySession) RequestContext(parent context.Context, id jsonrpc2.RequestID) context.Context {
	s.mu.Lock()
	v, ok := s.reqValues[id]
	s.mu.Unlock()
	if !ok {
		return parent
	}
	return context.WithValue(parent, postValuesKey{}, context.WithoutCancel(v))
}

// rememberRequest records r as the HTTP request of the session's request
// id until the returned func runs.
func (s *legacySession) rememberRequest(id jsonrpc2.RequestID, r *http.Request) func() {
	ctx := r.Context()
	s.mu.Lock()
	if s.reqValues == nil {
		s.reqValues = map[jsonrpc2.RequestID]context.Context{}
	}
	s.reqValues[id] = ctx
	s.mu.Unlock()
	return func() {
		s.mu.Lock()
		if s.reqValues[id] == ctx {
			delete(s.reqValues, id)
		}
		s.mu.Unlock()
	}
}
