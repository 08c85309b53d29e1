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
package runtime
