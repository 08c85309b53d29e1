package mcpotel

import (
	"context"
	"encoding/json"
	"errors"
	"strconv"
	"sync/atomic"
	"time"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"

	"github.com/mcpgen/mcpgen/runtime/jsonrpc2"
	"github.com/mcpgen/mcpgen/runtime/session"
)

// ScopeName is the instrumentation scope of the tracer and meter.
const ScopeName = "github.com/mcpgen/mcpgen/otel"

// Attribute keys of the spans and metrics (see the package doc).
const (
	AttrMethod        = attribute.Key("mcp.method.name")
	AttrRequestID     = attribute.Key("jsonrpc.request.id")
	AttrVersion       = attribute.Key("mcp.protocol.version")
	AttrEra           = attribute.Key("mcpgen.era")
	AttrOutcome       = attribute.Key("mcpgen.outcome")
	AttrErrorCode     = attribute.Key("rpc.jsonrpc.error_code")
	AttrErrorType     = attribute.Key("error.type")
	AttrToolName      = attribute.Key("gen_ai.tool.name")
	AttrPromptName    = attribute.Key("gen_ai.prompt.name")
	AttrCancelSource  = attribute.Key("mcpgen.cancel.source")
	AttrCancelReason  = attribute.Key("mcpgen.cancel.reason")
	AttrCancelEvent   = attribute.Key("mcpgen.cancel.event")
	AttrCancelDir     = attribute.Key("mcpgen.cancel.direction")
	AttrSide          = attribute.Key("mcpgen.side")
	EventCancelled    = "mcp.cancelled"
	OutcomeOK         = "ok"
	OutcomeError      = "error"
	OutcomeCancelled  = "cancelled"
	metaTraceparent   = "traceparent"
	metaTracestate    = "tracestate"
	errorTypeNonProto = "_OTHER"
)

// Option configures the instrumentation.
type Option func(*config)

type config struct {
	tp    trace.TracerProvider
	mp    metric.MeterProvider
	prop  propagation.TextMapPropagator
	obsFn jsonrpc2.Observer
}

// WithTracerProvider sets where spans go (default: otel.GetTracerProvider()).
func WithTracerProvider(tp trace.TracerProvider) Option { return func(c *config) { c.tp = tp } }

// WithMeterProvider sets where metrics go (default: otel.GetMeterProvider()).
func WithMeterProvider(mp metric.MeterProvider) Option { return func(c *config) { c.mp = mp } }

// WithPropagator sets how trace context is written to and read from _meta
// (default: W3C trace context and baggage, i.e. traceparent, tracestate and
// baggage, the keys SEP-414 reserves). Only those three _meta members are
// read from an incoming request.
func WithPropagator(p propagation.TextMapPropagator) Option {
	return func(c *config) { c.prop = p }
}

// WithObserver chains another cancellation Observer after the
// instrumentation's, since a Conn has one Observer slot (see the package
// doc), e.g. jsonrpc2.LogCancellations(logger).
func WithObserver(o jsonrpc2.Observer) Option { return func(c *config) { c.obsFn = o } }

// negotiated is a client session's version and era.
type negotiated struct{ version, era string }

// inst is the instrumentation of one side.
type inst struct {
	side    string
	tracer  trace.Tracer
	prop    propagation.TextMapPropagator
	next    jsonrpc2.Observer
	version atomic.Pointer[negotiated] // client side: the negotiated version, once known

	duration metric.Float64Histogram
	active   metric.Int64UpDownCounter
	cancels  metric.Int64Counter
	busy     metric.Int64Counter
}

func newInst(side string, opts []Option) *inst {
	c := config{}
	for _, o := range opts {
		o(&c)
	}
	if c.tp == nil {
		c.tp = otel.GetTracerProvider()
	}
	if c.mp == nil {
		c.mp = otel.GetMeterProvider()
	}
	if c.prop == nil {
		// The three _meta keys basic/index.mdx (2026-07-28) reserves for
		// OpenTelemetry: traceparent, tracestate and baggage.
		c.prop = propagation.NewCompositeTextMapPropagator(propagation.TraceContext{}, propagation.Baggage{})
	}
	in := &inst{side: side, tracer: c.tp.Tracer(ScopeName), prop: c.prop, next: c.obsFn}
	m := c.mp.Meter(ScopeName)
	// Instrument errors are reported to otel's error handler; the
	// instrument returned with one is still usable (a no-op at worst).
	var err error
	in.duration, err = m.Float64Histogram("mcp."+side+".operation.duration", metric.WithUnit("s"),
		metric.WithDescription("Duration of MCP requests, from the interceptor's view"),
		metric.WithExplicitBucketBoundaries(0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300))
	handle(err)
	in.active, err = m.Int64UpDownCounter("mcp."+side+".requests.active", metric.WithUnit("{request}"),
		metric.WithDescription("MCP requests in flight"))
	handle(err)
	in.cancels, err = m.Int64Counter("mcpgen.cancellations", metric.WithUnit("{event}"),
		metric.WithDescription("Cancellation events of the runtime, by event, direction and source"))
	handle(err)
	in.busy, err = m.Int64Counter("mcpgen.busy_refusals", metric.WithUnit("{request}"),
		metric.WithDescription("Requests refused as busy (jsonrpc2.CodeServerBusy)"))
	handle(err)
	return in
}

func handle(err error) {
	if err != nil {
		otel.Handle(err)
	}
}

// ServerOptions returns the session options that instrument a server:
// its interceptor (spans for the requests it handles and the calls it
// makes to its clients, trace context in _meta) and its cancellation
// Observer (metrics). Give them to NewServer (or to the Lifecycle of a
// streamhttp handler) with the other options.
func ServerOptions(opts ...Option) []session.ServerOption {
	in := newInst("server", opts)
	return []session.ServerOption{
		session.WithInterceptors(in.interceptor()),
		session.WithConnOptions(jsonrpc2.WithObserver(in.observe)),
	}
}

// Interceptor returns the bare jsonrpc2 interceptor and Observer for a
// Conn built without the session (jsonrpc2.WithInterceptors,
// jsonrpc2.WithObserver); side is "server" or "client" and names the
// metrics. Spans then have no protocol version unless the requests carry
// one the session would have read.
func Interceptor(side string, opts ...Option) (jsonrpc2.Interceptor, jsonrpc2.Observer) {
	in := newInst(side, opts)
	return in.interceptor(), in.observe
}

// Client is the instrumentation of client sessions. One Client may serve
// several sessions; Bind records the last bound session's version.
type Client struct{ in *inst }

// NewClient returns the instrumentation of a client.
func NewClient(opts ...Option) *Client { return &Client{in: newInst("client", opts)} }

// Options returns the options for session.Connect (or a generated
// package's Connect): the interceptor and the cancellation Observer.
func (c *Client) Options() []session.ClientOption {
	return []session.ClientOption{
		session.WithClientInterceptors(c.in.interceptor()),
		session.WithClientConnOptions(jsonrpc2.WithObserver(c.in.observe)),
	}
}

// Bind records the protocol version cs negotiated, for the attributes of
// the spans of later calls. The interceptor learns a legacy version from
// the initialize result itself; the era a modern client detects with its
// server/discover probe, which is made before the Conn and its
// interceptors exist, is only known through Bind.
func (c *Client) Bind(cs *session.ClientSession) {
	n := &negotiated{version: cs.ProtocolVersion(), era: "legacy"}
	if cs.Modern() {
		n.era = "modern"
	}
	c.in.version.Store(n)
}

// ClientOptions is NewClient(opts...).Options(), for a client that needs
// no Bind (a legacy client, or one that does without the version
// attribute).
func ClientOptions(opts ...Option) []session.ClientOption { return NewClient(opts...).Options() }

func (in *inst) interceptor() jsonrpc2.Interceptor {
	return jsonrpc2.Interceptor{Request: in.request, Call: in.call}
}

// request is the Request interceptor: the server span of an incoming request.
func (in *inst) request(ctx context.Context, req *jsonrpc2.Request, next jsonrpc2.Handler) (any, error) {
	meta := metaOf(req.Params)
	if len(meta) > 0 {
		ctx = in.prop.Extract(ctx, metaCarrier(meta))
	}
	name, target := spanName(req.Method, req.Params)
	attrs := make([]attribute.KeyValue, 0, 6)
	attrs = append(attrs, AttrMethod.String(req.Method))
	if !req.ID.IsZero() {
		// Zero: an input request embedded in a modern server's
		// InputRequiredResult, which has no id (Conn.HandleEmbedded).
		attrs = append(attrs, AttrRequestID.String(req.ID.String()))
	}
	if target.Valid() {
		attrs = append(attrs, target)
	}
	if v := session.ProtocolVersion(ctx); v != "" {
		era := "legacy"
		if session.IsModern(ctx) {
			era = "modern"
		}
		attrs = append(attrs, AttrVersion.String(v), AttrEra.String(era))
	} else if n := in.version.Load(); n != nil {
		// A client answering its server (ping, sampling, roots/list,
		// elicitation): the session's version, as for its calls.
		attrs = append(attrs, AttrVersion.String(n.version), AttrEra.String(n.era))
	}
	ctx, span := in.tracer.Start(ctx, name, trace.WithSpanKind(trace.SpanKindServer), trace.WithAttributes(attrs...))
	defer span.End()
	method := AttrMethod.String(req.Method)
	in.active.Add(ctx, 1, metric.WithAttributes(method))
	start := time.Now()
	res, err := next(ctx, req)
	in.active.Add(ctx, -1, metric.WithAttributes(method))
	outcome := OutcomeOK
	var code attribute.KeyValue
	switch {
	case ctx.Err() != nil:
		// The runtime sends nothing for a request cancelled by its peer,
		// whatever next returned; record why it ended.
		outcome = OutcomeCancelled
		cancelEvent(span, context.Cause(ctx), ctx.Err())
	case err != nil:
		outcome = OutcomeError
		code = in.recordError(span, err)
	}
	span.SetAttributes(AttrOutcome.String(outcome))
	in.record(ctx, start, method, outcome, code)
	return res, err
}

// call is the Call interceptor: the client span of an outgoing request,
// with its context in the params' _meta.
func (in *inst) call(ctx context.Context, method string, params, result any, next jsonrpc2.Caller, opts ...jsonrpc2.CallOption) error {
	name, target := spanName(method, nil)
	attrs := make([]attribute.KeyValue, 0, 5)
	attrs = append(attrs, AttrMethod.String(method))
	raw, perr := json.Marshal(params)
	if perr == nil {
		if n, t := spanName(method, raw); t.Valid() {
			name, target = n, t
		}
	}
	if target.Valid() {
		attrs = append(attrs, target)
	}
	if n := in.version.Load(); n != nil {
		attrs = append(attrs, AttrVersion.String(n.version), AttrEra.String(n.era))
	}
	ctx, span := in.tracer.Start(ctx, name, trace.WithSpanKind(trace.SpanKindClient), trace.WithAttributes(attrs...))
	defer span.End()
	if perr == nil {
		// A marshalling error is next's to report, with the params as given.
		if injected, ok := in.inject(ctx, raw); ok {
			params = injected
		}
	}
	attr := AttrMethod.String(method)
	in.active.Add(ctx, 1, metric.WithAttributes(attr))
	start := time.Now()
	err := next(ctx, method, params, result, opts...)
	in.active.Add(ctx, -1, metric.WithAttributes(attr))
	outcome := OutcomeOK
	var code attribute.KeyValue
	var ce *jsonrpc2.CancelError
	switch {
	case err == nil:
		if method == session.MethodInitialize {
			in.learnVersion(result)
		}
	case errors.As(err, &ce) || ctx.Err() != nil:
		outcome = OutcomeCancelled
		cancelEvent(span, context.Cause(ctx), err)
	default:
		outcome = OutcomeError
		code = in.recordError(span, err)
		var rpc *jsonrpc2.Error
		if errors.As(err, &rpc) && rpc.Code == jsonrpc2.CodeServerBusy {
			in.busy.Add(ctx, 1, metric.WithAttributes(attr, AttrSide.String(in.side)))
		}
	}
	span.SetAttributes(AttrOutcome.String(outcome))
	in.record(ctx, start, attr, outcome, code)
	return err
}

// learnVersion records the version of an initialize result (legacy era).
func (in *inst) learnVersion(result any) {
	b, err := json.Marshal(result)
	if err != nil {
		return
	}
	var r struct {
		ProtocolVersion string `json:"protocolVersion"`
	}
	if json.Unmarshal(b, &r) == nil && r.ProtocolVersion != "" {
		in.version.Store(&negotiated{version: r.ProtocolVersion, era: "legacy"})
	}
}

// record adds one request to the latency histogram.
func (in *inst) record(ctx context.Context, start time.Time, method attribute.KeyValue, outcome string, code attribute.KeyValue) {
	attrs := []attribute.KeyValue{method, AttrOutcome.String(outcome)}
	if code.Valid() {
		attrs = append(attrs, code)
	}
	// The request's own ctx may be cancelled: metrics take their values
	// regardless, but a cancelled ctx must not lose them.
	in.duration.Record(context.WithoutCancel(ctx), time.Since(start).Seconds(), metric.WithAttributes(attrs...))
}

// recordError marks span as failed by err and returns the error code
// attribute for the metrics (invalid for a non-protocol error).
func (in *inst) recordError(span trace.Span, err error) attribute.KeyValue {
	var rpc *jsonrpc2.Error
	if errors.As(err, &rpc) {
		code := AttrErrorCode.Int(int(rpc.Code))
		span.SetAttributes(code, AttrErrorType.String(strconv.Itoa(int(rpc.Code))))
		span.SetStatus(codes.Error, rpc.Message)
		return code
	}
	span.SetAttributes(AttrErrorType.String(errorTypeNonProto))
	span.SetStatus(codes.Error, err.Error())
	return attribute.KeyValue{}
}

// cancelEvent adds the cancellation event to span: source and reason from
// the *jsonrpc2.CancelError in cause or err, else the context's cause.
func cancelEvent(span trace.Span, cause, err error) {
	var ce *jsonrpc2.CancelError
	source, reason := jsonrpc2.SourceCaller.String(), ""
	switch {
	case errors.As(cause, &ce) || errors.As(err, &ce):
		source, reason = ce.Source.String(), ce.Reason
	case cause != nil:
		reason = cause.Error()
	case err != nil:
		reason = err.Error()
	}
	span.AddEvent(EventCancelled, trace.WithAttributes(AttrCancelSource.String(source), AttrCancelReason.String(reason)))
}

// observe is the Observer: counts cancellation events and busy refusals,
// then calls the chained Observer.
func (in *inst) observe(e jsonrpc2.Event) {
	ctx := context.Background()
	if e.Kind == jsonrpc2.EventBusy {
		in.busy.Add(ctx, 1, metric.WithAttributes(AttrMethod.String(e.Method), AttrSide.String(in.side)))
	} else {
		in.cancels.Add(ctx, 1, metric.WithAttributes(AttrCancelEvent.String(e.Kind.String()),
			AttrCancelDir.String(e.Direction.String()), AttrCancelSource.String(e.Source.String()),
			AttrSide.String(in.side)))
	}
	if in.next != nil {
		in.next(e)
	}
}

// spanName is the span's name and target attribute: the method, plus the
// tool's or prompt's name for the methods that have one.
func spanName(method string, params json.RawMessage) (string, attribute.KeyValue) {
	var key attribute.Key
	switch method {
	case "tools/call":
		key = AttrToolName
	case "prompts/get":
		key = AttrPromptName
	default:
		return method, attribute.KeyValue{}
	}
	var p struct {
		Name string `json:"name"`
	}
	if len(params) == 0 || json.Unmarshal(params, &p) != nil || p.Name == "" {
		return method, attribute.KeyValue{}
	}
	return method + " " + p.Name, key.String(p.Name)
}
