package streamhttp

import (
	"context"
	"net/http"
)

// sessionKey is the context key under which a legacy session's handler
// contexts carry their session (its base, the values its Conn was built
// with).
type sessionKey struct{}

// postValuesKey is the context key under which a legacy request's handler
// ctx carries the values of the POST that delivered it (postValues).
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

// postValues is the Message.Values of a legacy request that r carried:
// its handler's ctx, and what keeps its values (a task's work), find r's
// context through RequestValues, after the POST ended too.
func postValues(r *http.Request) context.Context {
	return context.WithValue(context.Background(), postValuesKey{}, context.WithoutCancel(r.Context()))
}
