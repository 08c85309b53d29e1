// Package jsonrpc2 is the hand-written JSON-RPC 2.0 peer that the generated MCP
// bindings (generated/mcpYYYYMMDD) and user code call.
//
// A Conn sits on a message Transport (newline-delimited JSON over stdio, or an
// in-memory pipe) and does three things that existing Go SDKs get wrong:
//
//   - It keeps JSON-RPC ids exactly (RequestID): "7" and 7 are different
//     requests, integers beyond 2^53 survive, and fractions are refused.
//   - It runs every incoming request under its own context, registered in the
//     in-flight table when the request is read, so a notifications/cancelled
//     from the peer can stop work that is queued or running; the handler's
//     context.Cause is a *CancelError that says who cancelled and why, and no
//     response is ever written for a request whose cancellation was applied.
//   - It cancels outgoing calls on the wire when the caller gives up (its
//     context ends or a timeout fires), exactly once, never for requests that
//     cannot be cancelled (initialize) or were never written, and without
//     losing the notification when Close follows.
//
// What each MCP revision allows (who may cancel what, whether a transport
// disconnect is itself the cancellation, how task-augmented requests are
// cancelled) is not coded here as revision checks: it is data, a Policy, that
// the generated package for each revision constructs and hands to NewConn.
//
// Cross-cutting behaviour goes through one seam, interceptors
// (WithInterceptors, Conn.Intercept; intercept.go): functions around every
// incoming request and notification and every outgoing call and
// notification, the first given outermost, composed once before the Conn
// starts. The session's lifecycle, tasks and user middleware are
// interceptors; nothing reads a registered handler back to wrap it.
//
// # Decisions worth knowing
//
//   - Ids: only JSON strings and integer literals are ids; 1.0 and 1e3 are
//     refused like 1.5 (the schema says "integer", and accepting them would
//     need a canonical form the peer never sent). "-0" is kept as written.
//   - A request with an unusable id gets -32600 with id null; a batch (JSON
//     array) gets -32600 too: batching was removed from MCP in 2025-06-18.
//   - A second request reusing an id that is still in flight is dropped and
//     logged rather than answered, since any answer would look like the
//     answer to the first request.
//   - A handler returning a nil result answers {} (every MCP result is an
//     object).
//   - A notifications/cancelled for a request whose handler already returned
//     is ignored even if its response is still being written: the entry
//     leaves the in-flight table in the same step that commits to answering.
//   - 2026-07-28 has two rules for a server ending subscriptions/listen: the
//     cancellation page says the server MUST send notifications/cancelled,
//     the subscriptions page says it SHOULD answer with a success result.
//     Conn.CancelIncoming does the former; a handler that returns does the
//     latter.
//   - The stdio transport reads on a goroutine of its own that it can walk
//     away from: Close makes a pending Read return at once, even when the
//     underlying read of os.Stdin never returns (closing os.Stdin does not
//     interrupt a blocked read, and os.Stdin is usually a blocking fd, so
//     file deadlines are not an option). The abandoned goroutine ends with
//     the process. It writes on the writer's goroutine, whatever the writer
//     (a hand-off per message cost a third of a round trip behind any
//     wrapper on a many-core machine), and reports what the writer did: a
//     message that went out is never reported as failed. A write stuck in a
//     writer Close cannot interrupt (a stdout nobody reads) holds its
//     goroutine until the writer returns; Conn.Close is bounded by its ctx.
//     A Call's request is written after the cancellations queued before it,
//     so a client that cancels and resends at once never has more requests
//     running at the server than it has in flight (a load test's 1,000
//     stays under DefaultMaxInFlight).
//   - Hostile peers: every request is admitted or refused in the read loop
//     before any goroutine is spent on it. "Server busy" (CodeServerBusy,
//     -31429, outside the ranges JSON-RPC and MCP reserve) means running
//     handlers are over the limits (WithMaxInFlight handlers,
//     DefaultMaxInFlight = 1,024; WithMaxInFlightBytes of their params,
//     DefaultMaxInFlightBytes = 32 MiB). A request whose handler has
//     returned no longer counts: its response, waiting for the transport,
//     is bounded by backpressure instead. While responses wait and, with
//     the running handlers, reach those limits, the read loop stops reading
//     until the output drains, so a peer that reads slowly is slowed down,
//     never refused, and a peer that does not read stops being read. The
//     byte budget bounds what admitted requests hold, not the heap:
//     handlers' own copies and the collector's headroom come on top (see
//     DefaultMaxInFlightBytes, with a measurement). Replies the read loop
//     produces and notifications waiting for their handler are bounded in
//     bytes (WithMaxQueuedBytes), the same way. Cancellations and responses
//     to our calls are routed in the read loop itself and never wait behind
//     handlers; ping never waits for a handler slot and has headroom past
//     the in-flight limit.
//   - EOF means "no more requests", not "cancel": requests already read run
//     for up to WithEOFGrace (DefaultEOFGrace, 5 s) and are answered; then
//     what still runs is cancelled with a cause saying the input ended,
//     except initialize (Policy.NeverCancellable), which is still answered.
//   - String ids are exact: one whose decoding would lose information
//     (invalid UTF-8, an unpaired \uD800-style escape) keeps the literal the
//     peer sent, so such ids never collide and are echoed byte for byte.
//   - Logging and observers never block routing, whatever the user gives:
//     events and log records go through a bounded per-Conn queue to a
//     goroutine of their own (logqueue.go), dropped and counted when the
//     sink cannot keep up (Conn.DispatchStats, and a Warn record saying how
//     many); Close flushes the queue within its context. The runtime
//     rate-limits its peer-triggered lines (ignored cancellations, duplicate
//     in-flight ids) and handler panics (logged at Error with their stack),
//     and warns once, with method and id, about a handler still running
//     WithCancelGrace (DefaultCancelGrace, 1 s) after its request was
//     cancelled: it ignores its ctx, and is what keeps a shutdown waiting.
//     LogCancellations rate-limits ignored cancellations,
//     and runtime/logsink is a bounded, dropping handler for code outside a
//     Conn (a process's stderr).
package jsonrpc2
