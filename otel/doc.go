// Package mcpotel instruments mcpgen servers and clients with
// OpenTelemetry: a span per request on both sides, trace context carried
// in the request's _meta (SEP-414), and metrics for requests in flight,
// cancellations, busy refusals and latency.
//
// It is a module of its own (github.com/mcpgen/mcpgen/otel) so that the
// runtime stays standard-library only: it uses only the runtime's public
// seams, the interceptors (session.WithInterceptors,
// session.WithClientInterceptors) and the cancellation Observer
// (jsonrpc2.WithObserver).
//
// # Use
//
//	srv := mcp.NewServer(info, impl, mcpotel.ServerOptions(
//		mcpotel.WithTracerProvider(tp), mcpotel.WithMeterProvider(mp))...)
//
//	client := mcpotel.NewClient(mcpotel.WithTracerProvider(tp), mcpotel.WithMeterProvider(mp))
//	cs, err := mcp.Connect(ctx, transport, info, handler, client.Options()...)
//	client.Bind(cs.ClientSession) // the negotiated version, for the spans' attributes
//
// Without WithTracerProvider / WithMeterProvider the global providers
// (otel.GetTracerProvider, otel.GetMeterProvider) are used; without
// WithPropagator, W3C trace context and baggage (propagation.TraceContext
// and propagation.Baggage).
//
// # Spans
//
// Every request a side handles gets a span of kind Server, every request
// it sends one of kind Client (both sides of MCP issue requests: a server's
// sampling or elicitation request to its client is a Client span of the
// server). The span is named after the method, followed by the tool's or
// prompt's name for tools/call and prompts/get (as OpenTelemetry's MCP
// semantic conventions do), and carries:
//
//   - mcp.method.name, jsonrpc.request.id (incoming requests only: an
//     outgoing request's id is chosen below the interceptor),
//     gen_ai.tool.name or gen_ai.prompt.name;
//   - mcp.protocol.version and mcpgen.era ("legacy" or "modern") when
//     known: on the server the session's view of the request, on the
//     client the version Bind or the initialize result recorded;
//   - mcpgen.outcome: "ok", "error" or "cancelled"; for an error,
//     rpc.jsonrpc.error_code (the JSON-RPC code) and error.type (the code
//     as a string, or "_OTHER" for a non-protocol error), and the span's
//     status Error.
//
// The server/discover probe with which Connect detects a modern server
// is written before the client's Conn and its interceptors exist: it has
// no client span and carries no trace context, so its server span is a
// root.
//
// A cancelled request's span gets an event "mcp.cancelled" with
// mcpgen.cancel.source (jsonrpc2.CancelSource's name: "peer notification",
// "stream closed", "timeout", "caller context", …) and mcpgen.cancel.reason
// (the reason the peer sent or the runtime wrote): on the server, from the
// cause of the handler's context (a *jsonrpc2.CancelError); on the client,
// from the error of the call.
//
// # Trace context in _meta
//
// An outgoing request's params get _meta.traceparent (and
// _meta.tracestate and _meta.baggage when there are any) from the
// propagator, the keys basic/index.mdx of 2026-07-28 reserves (SEP-414;
// any revision's params may carry _meta, so it is done in every era),
// members a caller already put there left alone; an incoming request's
// _meta is extracted and its span is the remote parent of the handler's
// span, so one trace runs across client and server over any transport. The
// params are re-encoded for that, so the runtime's encoding fast path of
// generated params is not taken while tracing is on.
//
// # Metrics
//
// Instruments (side is "server" or "client"):
//
//   - mcp.{side}.operation.duration (histogram, s): every request, with
//     mcp.method.name, mcpgen.outcome and rpc.jsonrpc.error_code;
//   - mcp.{side}.requests.active (up-down counter): requests in flight,
//     with mcp.method.name;
//   - mcpgen.cancellations (counter): every cancellation event of the
//     runtime's Observer, with mcpgen.cancel.event (requested, sent,
//     received, applied, ignored), mcpgen.cancel.direction, mcpgen.cancel.source
//     and mcpgen.side;
//   - mcpgen.busy_refusals (counter): on the server, requests refused by
//     admission (jsonrpc2.WithMaxInFlight) before any handler saw them (the
//     Observer's EventBusy); on the client, calls answered with
//     jsonrpc2.CodeServerBusy; with mcp.method.name and mcpgen.side.
//
// The Observer slot of a Conn holds one function: ServerOptions and
// Client.Options install theirs through the conn options, so an Observer
// given to WithObserver here is called after it (for example
// jsonrpc2.LogCancellations), and one given to the session's conn options
// after ServerOptions replaces it.
package mcpotel
