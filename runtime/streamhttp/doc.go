// Package streamhttp is MCP's Streamable HTTP transport for both protocol
// eras, on the standard library only: a server http.Handler and a client
// jsonrpc2.Transport.
//
// The two eras differ in exactly the ways that matter for cancellation:
//
//   - Legacy (2025-03-26 … 2025-11-25): a session (Mcp-Session-Id) owns one
//     jsonrpc2.Conn. Each client message is its own POST; a request is
//     answered on that POST, as JSON or as an SSE stream. A dropped stream is
//     not a cancellation: the client cancels by POSTing
//     notifications/cancelled, which reaches only its own session's Conn.
//   - Modern (2026-07-28): no sessions. Every POST carries its version in the
//     MCP-Protocol-Version header and in params._meta, and is served by a
//     jsonrpc2.Conn of its own, so ids of different clients never meet.
//     One Conn (Lifecycle.Dispatcher) serves every modern request: each is
//     handed to it with jsonrpc2.Conn.Deliver, its answer going to the
//     request's own stream. Closing the response stream is the
//     cancellation: the Handler reports it (jsonrpc2.Delivery.StreamClosed)
//     and the revision's Policy (DisconnectIsCancellation) makes the Conn
//     cancel the handler with jsonrpc2.SourceStreamClosed. Nothing is written to a closed stream and no
//     notifications/cancelled is sent for it.
//
// The handler never decides revision semantics itself beyond what HTTP needs
// (headers, the version peek, the status codes): the Conn it builds through
// the Lifecycle (NewHandler's one argument, a *session.Server) carries the
// revision's Policy and handlers, which is where the lifecycle layer plugs
// in.
//
// Each message is decoded once: the Handler decodes a POST body to route it
// (era, session, header checks) and hands that Message on, to the lifecycle
// layer and the Conn alike (a legacy session's transport is a
// jsonrpc2.MessageReader; a modern request is delivered decoded), and what
// the Conn writes for a modern request arrives described
// (jsonrpc2.OutMessage: kind, id, method, error code), so nothing is decoded
// again; the ClientTransport does the same with what the server sends.
//
// Decisions worth knowing (the spec is silent or the pages disagree):
//
//   - A response is JSON unless something precedes it on its stream (a
//     progress notification, a server request), in which case the stream
//     turns into SSE at that moment; a stream with nothing to say for
//     KeepAlive also turns into SSE to send a keep-alive comment, so proxies
//     do not cut long calls. subscriptions/listen is SSE from the start.
//   - Modern errors that reject a request before it runs are 400 (header
//     mismatch -32020, unsupported version -32022, a missing required _meta
//     member -32602 as basic/index.mdx says, a missing client capability
//     -32021); a modern -32601 is 404, as streamable-http.mdx requires. A
//     method 2026-07-28 removed (initialize, ping, logging/setLevel,
//     resources/subscribe, resources/unsubscribe) gets its 404 before any
//     stream starts. Such an error, when it is the first and final message,
//     is plain JSON with its status even with SSEResponses (the status
//     cannot follow a stream's 200).
//   - A legacy server-to-client request goes on the stream of the client
//     request whose handler made it, else on the session's GET stream; a
//     server's notifications/cancelled follows the request it names.
//   - Legacy SSE streams are resumable (2025-11-25 transports "Resumability
//     and Redelivery"): every event has an id "<stream>_<index>" (streams
//     numbered per session), the stream opens with the retry field
//     (Options.SSERetry) and, for clients of 2025-11-25 and later, a priming
//     event (an id and empty data; older clients would read an empty
//     message). Events go through an EventStore (default: a bounded
//     MemoryEventStore). A client whose connection broke resumes with GET
//     and Last-Event-ID: it gets the events of that stream after the id,
//     then the stream goes on live on the new response; a GET that comes
//     before the server saw the old connection drop takes the stream over.
//     An id the session no longer holds gets 404 (its messages are lost,
//     the client should not wait). A stream that ended with its answer
//     written stays resumable for 5 s (the socket may have taken what the
//     client never received). 2026-07-28 removed resumption (durable work
//     goes through tasks): modern streams carry no ids and no retry field.
//   - A legacy request whose client left before its answer is an orphan:
//     the disconnect is not a cancellation in that era, so its handler
//     keeps running and what it sends is kept for a resumption; but after
//     Options.OrphanGrace without one, or beyond Options.MaxOrphans (oldest
//     first), the handler is cancelled (jsonrpc2.Conn.AbandonIncoming:
//     source "local", a reason saying why) and the stream dropped. A
//     non-SSE response (nothing sent yet, so no id to resume from) is
//     dropped when its stream is gone, its handler an orphan the same way.
//   - Hardening: a Content-Length over MaxBodyBytes is 413 before a byte is
//     read; all bodies being read share MaxBodyBudget (503 beyond) and each
//     has BodyReadTimeout (408); a body that is not valid UTF-8 is a parse
//     error (-32700, 400), never rewritten to U+FFFD.
//   - Slow bodies deny no one. The deadline: a body must arrive within
//     BodyReadTimeout (default 10 s) of its headers, whatever its pace, or
//     it gets 408 and its connection closes; the headers themselves are
//     http.Server's to bound (NewHTTPServer: ReadHeaderTimeout 10 s), so a
//     request that never finishes sending holds its connection at most
//     about 20 s. Admission
//     keeps room for small bodies: a body of at most SmallBodyBytes (64
//     KiB) may use all of MaxBodyBudget, a larger one all but
//     SmallBodyReserve (a quarter of it), so however many near-limit
//     bodies stall, a tools/call (a few hundred bytes) is read at once. A
//     body of known length takes its bytes when its reading starts; one
//     of unknown length (chunked) as they arrive, moving to the large
//     bodies once past SmallBodyBytes. Admission is fair across clients:
//     one client's large bodies hold at most MaxClientBodyBytes (a quarter
//     of what large bodies may hold, at least one MaxBodyBytes body), its
//     small ones a quarter of the reserve; beyond its share a body gets
//     429 while other clients' bodies are still admitted. A client is its
//     authenticated identity when the request has one (SessionOwner:
//     runtime/auth's issuer and subject), else its remote IP address (an
//     IPv6 /64), or what Options.ClientKey names (behind a reverse proxy,
//     where every client has the proxy's address). Never the connection,
//     which costs an attacker nothing to multiply; an identity over an
//     address because an identity is not multiplied without the
//     authorization server, while one address may carry many honest
//     clients (NAT, a proxy). Measured (TestBodyFloodServesSmallRequests,
//     e2e TestHTTPHostileBodies): 64 connections stalling 4 MB bodies hold
//     12 bodies (from 16 addresses; 3 from one client) and a new client's
//     small requests of both eras are answered in milliseconds.
//   - A legacy session that sends no notifications/initialized within
//     HandshakeTimeout ends; at MaxSessions the oldest session without a
//     completed handshake, else the least recently active session with no
//     request in flight (its GET stream does not count), gives way to a new
//     initialize, so a client holding sessions or GET streams cannot lock
//     others out; only when every session has a request in flight is
//     initialize 503.
//   - A legacy notifications/cancelled ends the named request's POST stream
//     (202 to the cancel, then the stream closes empty) before the Conn
//     sees it: the request gets no response, so the stream would otherwise
//     stay open until the session ends.
//   - Nothing a handler sends after its context ended (cancelled, or
//     answered) reaches the wire, in either era.
//   - Ending a legacy session (DELETE, idle expiry, Close) lets its Conn
//     read every message accepted before (a cancel POSTed just before the
//     DELETE still cancels with the client's reason).
//   - Server-to-client requests in the modern era fail at once: 2026-07-28
//     replaces them with InputRequiredResult (MRTR).
//   - The cancel source of a closed modern stream is jsonrpc2.SourceStreamClosed
//     (named "stream closed", as the log records show it; its reason says the
//     peer closed the request's stream).
//   - Replicas behind a load balancer (Options.Sessions, Options.Bus,
//     Options.Replica, Options.CancelWindow, Options.ActiveInterval,
//     Options.Adopt; runtime/cluster holds the seams, natscluster of the
//     github.com/mcpgen/mcpgen/cluster module implements them on NATS).
//     With Sessions nil nothing changes: sessions live in this process.
//     With it, a legacy session's record (id, negotiated version, client
//     info and capabilities, log level, owner, initialized, LastActive) is
//     created before the initialize response carrying Mcp-Session-Id is
//     written (a store that refuses turns that response into an error), and
//     updated on notifications/initialized (before its 202) and on an
//     accepted logging/setLevel (also published to the other replicas'
//     copies). Any replica then serves any POST, GET or DELETE of the
//     session: one that does not hold it adopts it from the record
//     (Lifecycle.Adopt, session.Server.Adopt: a Conn in the negotiated state, no
//     re-initialize), after the same owner check (another identity gets the
//     404 of an unknown id). DELETE removes the record and publishes
//     "mcp.session.drop.<token>" so every replica ends its copy.
//     LastActive is written at most every ActiveInterval (default
//     SessionIdleTimeout/4, at most 1 min) rather than on every POST, so
//     the record is at most that stale; a session idle on one replica is
//     ended (record and all) only when the record is idle too, otherwise
//     only the local copy goes. A notifications/cancelled naming a request
//     not running on the replica that received it is published on
//     "mcp.cancel.<token>" (session id, params as sent; logged at debug,
//     not as an unknown request); the replica running the request applies
//     it through the path of a local cancel (stream ended, the Conn reads
//     the notification: the handler's ctx ends with the client's reason,
//     no response). A replica keeps a bus cancellation it could not apply
//     for CancelWindow (default 5 s, at most 4096 kept): a request with
//     that id arriving meanwhile is cancelled at once (its POST lost the
//     race through the balancer to its cancel's). Each is applied at most
//     once per replica: duplicates and late ones are ignored, logged at
//     debug. initialize is never cancelled. Resumption works on any
//     replica with a shared EventStore (natscluster.NewEventStore): stream
//     ids then carry a random part (unique across replicas), and a GET with
//     Last-Event-ID naming a stream this replica does not hold replays the
//     stored events after it, each once; the response ends with the answer
//     if it is among them, else with the retry field (the request still
//     runs elsewhere; the client polls again, and the replica running it
//     restarts the request's orphan grace: SubjectResumed). With the default
//     MemoryEventStore such a GET gets the 404 of a stream no longer held.
//     A handler may end its response itself (CloseSSEStream: retry field,
//     then the client resumes). 2026-07-28 needs
//     none of this: no sessions, and the closed response stream that
//     cancels a request is seen by the replica holding it, which runs it.
//   - Graceful drain (Handler.Drain, drain.go; ListenAndServe does it on
//     SIGTERM): readiness (Handler.Probes, PathReadiness) fails at once;
//     what would start new work (a request of either era, initialize
//     included; a GET opening a standalone stream; a legacy message for
//     a session held elsewhere) is 503 with Retry-After: 1, which a
//     balancer may retry on another replica since nothing ran; what
//     finishes running work (a legacy cancel or response, a resumption,
//     DELETE) is still served; running requests get the grace, then are
//     answered with -32603 "request cancelled: server draining: it ran past
//     the drain grace (<grace>)" and their handlers cancelled. Legacy
//     sessions' local copies close and their Options.Sessions records stay,
//     so the next request, on any replica, adopts the session. Every
//     response while draining or closed carries Connection: close.
//   - Probes (Handler.Probes): PathLiveness (/healthz) is 200 while the
//     process serves HTTP, never reflecting a dependency (a liveness
//     failure restarts the container, which cures no NATS outage);
//     PathReadiness (/readyz) is 503 while draining, closed, or while a
//     ReadyCheck fails (natscluster.Reachable: NATS connected and
//     answering), 200 otherwise. A separate handler rather than paths of
//     the MCP Handler, so a program mounts them where its orchestrator
//     probes (the MCP endpoint's mux, or a port of their own).
//
// The client side:
//
//   - Dial probes with server/discover (versioning.mdx, streamable-http.mdx
//     "Backward Compatibility"): a DiscoverResult or a modern error (-32020,
//     -32021, -32022) means a modern server, and the versions it lists pick
//     the modern version or the legacy era (go-sdk v1.8's sessionful handler
//     lists only legacy versions); -32601, an answer without
//     supportedVersions, or anything else means legacy. A detected era then
//     follows the lifecycle the client runs: its initialize selects the
//     legacy era, a request with modern _meta before any legacy session the
//     modern one (and the MCP-Protocol-Version header follows that _meta).
//   - A legacy client closes the stream of a request it cancelled once the
//     server accepted its notifications/cancelled. The notification is the
//     cancellation; the closed stream lets servers that run each legacy
//     request on its own instance (the TypeScript SDK 2.x's stateless
//     fallback) stop the handler too.
//   - A legacy response stream that ends before its answer, having sent
//     event ids, is resumed with a GET carrying Last-Event-ID after the
//     server's retry delay (1s without one, at most 30s), again while the
//     server keeps ending the response with the retry field (a handler's
//     CloseSSEStream, another replica polling a shared event store), up to
//     8 times in a row without a new event. Modern streams are not resumed:
//     2026-07-28 has no resumption.
//   - Without ClientOptions.ParamHeaders the transport takes the
//     x-mcp-header annotations from the tools/list results it carries.
package streamhttp
