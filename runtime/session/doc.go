// Package session is the MCP lifecycle of both protocol eras, written once
// and parametrised by per-revision data (Revision) that each generated
// package hands it.
//
// A Server answers initialize, ping, notifications/initialized and
// logging/setLevel for legacy clients (2024-11-05 … 2025-11-25) and
// server/discover and the per-request _meta of modern clients (2026-07-28),
// with the revision's cancellation Policy applied to the jsonrpc2.Conn it
// builds, so the policy cannot be forgotten. The lifecycle is the
// session's: an implementation's method of the same name never shadows it
// (WithHandler and interceptors replace its answers). Capabilities are those
// of the methods the generated Register function installs, that is of the
// per-method handler interfaces (CallToolHandler, …) the implementation
// satisfies: type assertions, never reflection on names.
//
// # Interceptors
//
// WithInterceptors (server) and WithClientInterceptors (Connect) are the
// public middleware seam, over jsonrpc2.Interceptor: around every incoming
// request and notification and every outgoing call and notification, the
// first given outermost. On a server's Conn the order, outermost first, is:
// the session's view of the request (era, version, legacy mapping, MRTR,
// error policy; it records initialize), the user's interceptors, the
// session's lifecycle (initialize, ping, logging/setLevel, server/discover,
// WithHandler's methods), the interceptors of WithConnOptions, then the
// implementation's handlers. (Layers that add theirs to a Conn with
// Conn.Intercept, tasks.Manager.Serve and tasks.AnswerRelated, must do so
// before the Conn starts: WithConnSetup runs them on every Conn the Server
// builds, before Accept starts it; tasks.WithTasks is that for tasks.)
//
// # Handlers written once for both eras
//
// A dual-era server implements handler interfaces of the newest generated
// package (mcp20260728.CallToolHandler, …). A legacy request is mapped onto it: the session
// adds the modern _meta members the legacy client stated once in
// initialize (protocolVersion, clientInfo, clientCapabilities) and the log
// level it set, and removes the modern resultType from the result. The
// mapping adds and removes only those members, so a legacy message that
// goes through the modern types comes back equal (tested for every method
// both eras share).
//
// From a handler's ctx, without holding the Conn: Progress, Log, and
// Input (sampling, elicitation, roots). Input is an ordinary
// server-to-client request for a legacy client, and for a modern one it
// ends the handler with an InputRequiredResult (MRTR) and finds the
// answer in inputResponses when the client retries.
//
// Modern results are completed by the session: a required member a
// handler leaves out or empty gets its documented default (resultType
// "complete"; on cacheable results cacheScope "private" and ttlMs 0, see
// DefaultCacheScope), so a result built from a generated type's zero value
// is valid. A modern request for a method its revision removed is -32601;
// one without clientCapabilities in _meta is -32602. InputRequiredResults
// always carry a requestState signed by the server (WithRequestStateKey);
// a retry with an altered one is -32602. With a list-changed or subscribe
// capability declared and no SubscriptionsListen of its own, the session
// serves subscriptions/listen (acknowledgement, subscription ids, the
// client's filter) and Server.NotifyListChanged / NotifyResourceUpdated
// deliver to the open streams.
//
// A handler error that is not a *jsonrpc2.Error is logged with its detail
// and answered with a generic -32603, so internals never reach the peer.
//
// # Era detection
//
// On one transport the server picks the era from how the client opens: an
// initialize request selects legacy semantics for the connection, a request
// with modern _meta is served statelessly. A Client probes server/discover
// first and falls back to initialize on any error that is not a recognised
// modern one (versioning.mdx, transports/stdio.mdx).
//
// # Transport seam
//
// Server.Serve runs one connection over any jsonrpc2.Transport; Server.Accept
// returns the started *jsonrpc2.Conn, which is what an HTTP handler needs
// for a legacy session or for one stateless modern request.
package session
