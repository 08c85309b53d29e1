// Package runtime is the hand-written JSON-RPC 2.0 peer that the generated MCP
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
//   - The stdio transport cannot interrupt a blocked write to a peer that has
//     stopped reading; Close's context bounds how long Close waits for it.
package runtime
