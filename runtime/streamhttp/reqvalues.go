package streamhttp

import (
	"context"
	"net/http"

	"github.com/mcpgen/mcpgen/runtime/jsonrpc2"
)

// sessionKey is the context key under which a legacy session's handler
// contexts carry their session (its BaseContext).
type sessionKey struct{}

// RequestValues returns the context of the HTTP request that carried the
// MCP request a legacy session's handler ctx serves, for its values (the
// verified identity of that POST's bearer token, for one), while that POST
// is in flight. ok is false elsewhere: a modern request's handler ctx
// already carries its own POST's values, and a legacy handler outliving its
// POST (or a task's work) has those of the session's initialize, as every
// handler of the session does.
func RequestValues(ctx context.Context) (values context.Context, ok bool) {
	s, _ := ctx.Value(sessionKey{}).(*legacySession)
	if s == nil {
		return nil, false
	}
	req, found := jsonrpc2.RequestFromContext(ctx)
	if !found {
		return nil, false
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	v, ok := s.reqValues[req.ID]
	return v, ok
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
