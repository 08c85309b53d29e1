package mcpotel_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http/httptest"
	"testing"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/baggage"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"

	"github.com/mcpgen/mcpgen/generated/mcp20251125"
	mcp "github.com/mcpgen/mcpgen/generated/mcp20260728"
	mcpotel "github.com/mcpgen/mcpgen/otel"
	"github.com/mcpgen/mcpgen/runtime/jsonrpc2"
	"github.com/mcpgen/mcpgen/runtime/session"
	"github.com/mcpgen/mcpgen/runtime/streamhttp"
)

// tools is the server's implementation: "echo" answers, "fail" fails with
// a protocol error, "block" waits for its cancellation.
type tools struct {
	started chan string // the name of each tool whose handler started
}

func (t *tools) CallTool(ctx context.Context, p *mcp.CallToolRequestParams) (*mcp.CallToolResult, error) {
	if t.started != nil {
		t.started <- p.Name
	}
	switch p.Name {
	case "fail":
		return nil, &jsonrpc2.Error{Code: jsonrpc2.CodeInvalidParams, Message: "fail always fails"}
	case "block":
		// Tells a client that asked for progress that the handler runs (the
		// subprocess test has no channel into the server).
		if err := session.Progress(ctx, 1, 0, "blocked"); err != nil {
			return nil, err
		}
		<-ctx.Done()
		return nil, context.Cause(ctx)
	case "baggage":
		return &mcp.CallToolResult{Content: []mcp.ContentBlock{&mcp.TextContent{Text: baggage.FromContext(ctx).Member("user").Value()}}}, nil
	case "roots":
		var res mcp.ListRootsResult
		if err := session.Input(ctx, "roots/list", &mcp.ListRootsRequestParams{}, &res); err != nil {
			return nil, err
		}
	}
	return &mcp.CallToolResult{Content: []mcp.ContentBlock{&mcp.TextContent{Text: "echo"}}}, nil
}

func (t *tools) ListTools(context.Context, *mcp.ListToolsRequestParams) (*mcp.ListToolsResult, error) {
	return &mcp.ListToolsResult{Tools: []mcp.Tool{}}, nil
}

// telemetry is one side's in-memory exporters. ended receives every span
// as it ends, so tests wait for the server's span instead of sleeping.
type telemetry struct {
	spans  *tracetest.SpanRecorder
	reader *sdkmetric.ManualReader
	tp     *sdktrace.TracerProvider
	mp     *sdkmetric.MeterProvider
	ended  chan sdktrace.ReadOnlySpan
}

type endNotifier struct{ ch chan sdktrace.ReadOnlySpan }

func (n endNotifier) OnStart(context.Context, sdktrace.ReadWriteSpan) {}
func (n endNotifier) OnEnd(s sdktrace.ReadOnlySpan) {
	select {
	case n.ch <- s:
	default: // nobody waits for this many: the recorder has them all
	}
}
func (n endNotifier) Shutdown(context.Context) error   { return nil }
func (n endNotifier) ForceFlush(context.Context) error { return nil }

func newTelemetry() *telemetry {
	t := &telemetry{spans: tracetest.NewSpanRecorder(), reader: sdkmetric.NewManualReader(), ended: make(chan sdktrace.ReadOnlySpan, 64)}
	t.tp = sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(t.spans), sdktrace.WithSpanProcessor(endNotifier{t.ended}))
	t.mp = sdkmetric.NewMeterProvider(sdkmetric.WithReader(t.reader))
	return t
}

func (t *telemetry) opts() []mcpotel.Option {
	return []mcpotel.Option{mcpotel.WithTracerProvider(t.tp), mcpotel.WithMeterProvider(t.mp)}
}

// waitSpan waits for a span named name to end.
func (t *telemetry) waitSpan(tb testing.TB, name string) sdktrace.ReadOnlySpan {
	tb.Helper()
	for _, s := range t.spans.Ended() {
		if s.Name() == name {
			return s
		}
	}
	timeout := time.After(10 * time.Second)
	for {
		select {
		case s := <-t.ended:
			if s.Name() == name {
				return s
			}
		case <-timeout:
			tb.Fatalf("no span %q ended; have %v", name, names(t.spans.Ended()))
			return nil
		}
	}
}

func names(spans []sdktrace.ReadOnlySpan) []string {
	var out []string
	for _, s := range spans {
		out = append(out, s.Name()+"/"+s.SpanKind().String())
	}
	return out
}

func attr(s sdktrace.ReadOnlySpan, key attribute.Key) (attribute.Value, bool) {
	for _, a := range s.Attributes() {
		if a.Key == key {
			return a.Value, true
		}
	}
	return attribute.Value{}, false
}

func wantAttr(t *testing.T, s sdktrace.ReadOnlySpan, key attribute.Key, want string) {
	t.Helper()
	v, ok := attr(s, key)
	if !ok {
		t.Errorf("span %s (%s): no attribute %s; has %v", s.Name(), s.SpanKind(), key, s.Attributes())
		return
	}
	if got := v.String(); got != want {
		t.Errorf("span %s (%s): %s = %q, want %q", s.Name(), s.SpanKind(), key, got, want)
	}
}

// joined checks that server is the remote child of client: the trace
// context went through _meta.
func joined(t *testing.T, client, server sdktrace.ReadOnlySpan) {
	t.Helper()
	if client.SpanKind() != trace.SpanKindClient || server.SpanKind() != trace.SpanKindServer {
		t.Fatalf("kinds: client %v, server %v", client.SpanKind(), server.SpanKind())
	}
	if got, want := server.SpanContext().TraceID(), client.SpanContext().TraceID(); got != want {
		t.Errorf("server span %s is in trace %s, the client's is %s: not one trace", server.Name(), got, want)
	}
	if got, want := server.Parent().SpanID(), client.SpanContext().SpanID(); got != want || !server.Parent().IsRemote() {
		t.Errorf("server span %s: parent %s (remote %v), want the client span %s", server.Name(), got, server.Parent().IsRemote(), want)
	}
}

func cancelEvent(t *testing.T, s sdktrace.ReadOnlySpan, source, reason string) {
	t.Helper()
	for _, e := range s.Events() {
		if e.Name != mcpotel.EventCancelled {
			continue
		}
		got := map[attribute.Key]string{}
		for _, a := range e.Attributes {
			got[a.Key] = a.Value.String()
		}
		if got[mcpotel.AttrCancelSource] != source || got[mcpotel.AttrCancelReason] != reason {
			t.Errorf("span %s (%s): cancellation event %v, want source %q reason %q", s.Name(), s.SpanKind(), got, source, reason)
		}
		return
	}
	t.Errorf("span %s (%s): no %s event; events %v", s.Name(), s.SpanKind(), mcpotel.EventCancelled, s.Events())
}

func quiet() *slog.Logger { return slog.New(slog.DiscardHandler) }

// scenario runs the calls every transport test makes through one client
// session: an answered call, a failing one and a cancelled one, then checks
// the spans on both sides.
func scenario(t *testing.T, cs *mcp.ClientSession, impl *tools, client, server *telemetry, version, era, cancelSource, cancelReason string) {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()

	if _, err := cs.CallTool(ctx, &mcp.CallToolRequestParams{Name: "echo"}); err != nil {
		t.Fatalf("echo: %v", err)
	}
	<-impl.started
	if _, err := cs.CallTool(ctx, &mcp.CallToolRequestParams{Name: "fail"}); err == nil {
		t.Fatal("fail answered")
	}
	<-impl.started

	callCtx, stop := context.WithCancelCause(ctx)
	done := make(chan error, 1)
	go func() {
		_, err := cs.CallTool(callCtx, &mcp.CallToolRequestParams{Name: "block"})
		done <- err
	}()
	if name := <-impl.started; name != "block" {
		t.Fatalf("started %q", name)
	}
	stop(errors.New("the user pressed stop"))
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled call returned %v", err)
	}

	for _, tc := range []struct{ name, outcome string }{
		{"tools/call echo", mcpotel.OutcomeOK}, {"tools/call fail", mcpotel.OutcomeError}, {"tools/call block", mcpotel.OutcomeCancelled},
	} {
		c, s := client.waitSpan(t, tc.name), server.waitSpan(t, tc.name)
		joined(t, c, s)
		for _, sp := range []sdktrace.ReadOnlySpan{c, s} {
			wantAttr(t, sp, mcpotel.AttrMethod, "tools/call")
			wantAttr(t, sp, mcpotel.AttrOutcome, tc.outcome)
			wantAttr(t, sp, mcpotel.AttrVersion, version)
			wantAttr(t, sp, mcpotel.AttrEra, era)
			wantAttr(t, sp, mcpotel.AttrToolName, tc.name[len("tools/call "):])
		}
		if _, ok := attr(s, mcpotel.AttrRequestID); !ok {
			t.Errorf("server span %s has no request id", s.Name())
		}
		if tc.outcome == mcpotel.OutcomeError {
			wantAttr(t, c, mcpotel.AttrErrorCode, "-32602")
			wantAttr(t, s, mcpotel.AttrErrorCode, "-32602")
		}
		if tc.outcome == mcpotel.OutcomeCancelled {
			cancelEvent(t, s, cancelSource, cancelReason)
			cancelEvent(t, c, jsonrpc2.SourceCaller.String(), "the user pressed stop")
		}
	}
}

func serverImpl() *tools { return &tools{started: make(chan string, 8)} }

func TestStdioModern(t *testing.T) {
	testStdio(t, nil, "2026-07-28", "modern")
}

func TestStdioLegacy(t *testing.T) {
	testStdio(t, []session.ClientOption{session.WithClientLegacy(mcp20251125.Revision()), session.WithVersion("2025-11-25")}, "2025-11-25", "legacy")
}

func testStdio(t *testing.T, copts []session.ClientOption, version, era string) {
	client, server := newTelemetry(), newTelemetry()
	impl := serverImpl()
	srv := mcp.NewServer(session.Implementation{Name: "otel-test", Version: "0"}, impl,
		append(mcpotel.ServerOptions(server.opts()...), session.WithLegacy(mcp20251125.Revision()), session.WithLogger(quiet()))...)
	a, b := jsonrpc2.NewPipe()
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ctx, a) }()

	inst := mcpotel.NewClient(client.opts()...)
	cs, err := mcp.Connect(ctx, b, session.Implementation{Name: "otel-client", Version: "0"}, nil,
		append(append(inst.Options(), session.WithClientLogger(quiet())), copts...)...)
	if err != nil {
		t.Fatal(err)
	}
	inst.Bind(cs.ClientSession)
	scenario(t, cs, impl, client, server, version, era, jsonrpc2.SourcePeer.String(), "the user pressed stop")

	// Close both ends: the Observers' goroutines end with their Conns, so
	// every cancellation event has been counted once Serve returns.
	if err := cs.Close(context.Background()); err != nil {
		t.Errorf("client close: %v", err)
	}
	cancel()
	if err := <-served; err != nil {
		t.Errorf("Serve: %v", err)
	}
	sm := collect(t, server)
	if n := sum(sm, "mcpgen.cancellations", map[attribute.Key]string{
		mcpotel.AttrCancelEvent: "applied", mcpotel.AttrCancelDir: "incoming", mcpotel.AttrCancelSource: jsonrpc2.SourcePeer.String(),
	}); n != 1 {
		t.Errorf("server: %d cancellations applied by a peer notification, want 1", n)
	}
	if n := histCount(sm, "mcp.server.operation.duration", map[attribute.Key]string{mcpotel.AttrMethod: "tools/call"}); n != 3 {
		t.Errorf("server: %d tools/call durations recorded, want 3", n)
	}
	if n := sum(sm, "mcp.server.requests.active", map[attribute.Key]string{mcpotel.AttrMethod: "tools/call"}); n != 0 {
		t.Errorf("server: %d tools/call still counted in flight", n)
	}
	cm := collect(t, client)
	if n := sum(cm, "mcpgen.cancellations", map[attribute.Key]string{mcpotel.AttrCancelEvent: "requested", mcpotel.AttrCancelDir: "outgoing"}); n != 1 {
		t.Errorf("client: %d cancellations requested, want 1", n)
	}
	if n := histCount(cm, "mcp.client.operation.duration", map[attribute.Key]string{mcpotel.AttrMethod: "tools/call", mcpotel.AttrOutcome: mcpotel.OutcomeCancelled}); n != 1 {
		t.Errorf("client: %d cancelled tools/call durations, want 1", n)
	}
}

// TestHTTP runs the scenario over Streamable HTTP in both eras: a modern
// call is cancelled by closing its response stream, a legacy one by
// notifications/cancelled.
func TestHTTP(t *testing.T) {
	for _, tc := range []struct {
		era     streamhttp.Era
		version string
		name    string
		source  string
		reason  string
	}{
		// A closed stream carries no reason: the server's is the runtime's.
		{streamhttp.EraModern, "2026-07-28", "modern", jsonrpc2.SourceStreamClosed.String(), "the peer closed the request's stream"},
		{streamhttp.EraLegacy, "2025-11-25", "legacy", jsonrpc2.SourcePeer.String(), "the user pressed stop"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			client, server := newTelemetry(), newTelemetry()
			impl := serverImpl()
			srv := mcp.NewServer(session.Implementation{Name: "otel-test", Version: "0"}, impl,
				append(mcpotel.ServerOptions(server.opts()...), session.WithLegacy(mcp20251125.Revision()), session.WithLogger(quiet()))...)
			h := streamhttp.NewHandler(srv, streamhttp.Options{Logger: quiet()})
			hs := httptest.NewServer(h)
			defer func() {
				hs.CloseClientConnections()
				ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
				defer cancel()
				_ = h.Close(ctx)
				hs.Close()
			}()
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			info := session.Implementation{Name: "otel-client", Version: "0"}
			tr, err := streamhttp.Dial(ctx, hs.URL+"/mcp", streamhttp.ClientOptions{Era: tc.era, Revisions: []session.Revision{mcp.Revision(), mcp20251125.Revision()}, ClientInfo: info, Logger: quiet()})
			if err != nil {
				t.Fatal(err)
			}
			inst := mcpotel.NewClient(client.opts()...)
			cs, err := mcp.Connect(ctx, tr, info, nil, append(inst.Options(),
				session.WithClientLegacy(mcp20251125.Revision()), session.WithClientLogger(quiet()))...)
			if err != nil {
				t.Fatal(err)
			}
			defer cs.Close(context.Background())
			inst.Bind(cs.ClientSession)
			scenario(t, cs, impl, client, server, tc.version, tc.name, tc.source, tc.reason)
		})
	}
}

// TestBusy: a request refused by admission never reaches an interceptor;
// the Observer counts it on the server, the interceptor on the client.
func TestBusy(t *testing.T) {
	client, server := newTelemetry(), newTelemetry()
	impl := serverImpl()
	chained := make(chan jsonrpc2.Event, 16) // the Observer given to WithObserver sees the events too
	srv := mcp.NewServer(session.Implementation{Name: "otel-test", Version: "0"}, impl,
		append(mcpotel.ServerOptions(append(server.opts(), mcpotel.WithObserver(func(e jsonrpc2.Event) { chained <- e }))...),
			session.WithLogger(quiet()), session.WithConnOptions(jsonrpc2.WithMaxInFlight(1)))...)
	a, b := jsonrpc2.NewPipe()
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ctx, a) }()
	cs, err := mcp.Connect(ctx, b, session.Implementation{Name: "otel-client", Version: "0"}, nil,
		append(mcpotel.ClientOptions(client.opts()...), session.WithClientLogger(quiet()))...)
	if err != nil {
		t.Fatal(err)
	}
	callCtx, stop := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() {
		_, err := cs.CallTool(callCtx, &mcp.CallToolRequestParams{Name: "block"})
		done <- err
	}()
	<-impl.started
	_, err = cs.CallTool(ctx, &mcp.CallToolRequestParams{Name: "echo"})
	var rpc *jsonrpc2.Error
	if !errors.As(err, &rpc) || rpc.Code != jsonrpc2.CodeServerBusy {
		t.Fatalf("second call: %v, want server busy", err)
	}
	stop()
	<-done
	_ = cs.Close(context.Background())
	cancel()
	<-served
	busy := map[attribute.Key]string{mcpotel.AttrMethod: "tools/call"}
	if n := sum(collect(t, server), "mcpgen.busy_refusals", busy); n != 1 {
		t.Errorf("server: %d busy refusals, want 1", n)
	}
	if n := sum(collect(t, client), "mcpgen.busy_refusals", busy); n != 1 {
		t.Errorf("client: %d busy refusals, want 1", n)
	}
	close(chained) // Serve has returned: the Observer's goroutine is done
	kinds := map[jsonrpc2.EventKind]int{}
	for e := range chained {
		kinds[e.Kind]++
	}
	if kinds[jsonrpc2.EventBusy] != 1 || kinds[jsonrpc2.EventApplied] != 1 {
		t.Errorf("the chained Observer saw %v, want one busy refusal and one applied cancellation", kinds)
	}
}

// TestCallerMetaKept: trace context a caller put in _meta itself is not
// overwritten, and the server joins that trace.
func TestCallerMetaKept(t *testing.T) {
	client, server := newTelemetry(), newTelemetry()
	impl := serverImpl()
	srv := mcp.NewServer(session.Implementation{Name: "otel-test", Version: "0"}, impl,
		append(mcpotel.ServerOptions(server.opts()...), session.WithLogger(quiet()))...)
	a, b := jsonrpc2.NewPipe()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() { _ = srv.Serve(ctx, a) }()
	cs, err := mcp.Connect(ctx, b, session.Implementation{Name: "otel-client", Version: "0"}, nil,
		append(mcpotel.ClientOptions(client.opts()...), session.WithClientLogger(quiet()))...)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close(context.Background())
	const tp = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"
	p := &mcp.CallToolRequestParams{Name: "echo"}
	p.Meta.Extra = map[string]json.RawMessage{"traceparent": json.RawMessage(fmt.Sprintf("%q", tp))}
	if _, err := cs.CallTool(ctx, p); err != nil {
		t.Fatal(err)
	}
	s := server.waitSpan(t, "tools/call echo")
	if got := s.SpanContext().TraceID().String(); got != "0af7651916cd43dd8448eb211c80319c" {
		t.Errorf("server span in trace %s, want the caller's", got)
	}
	if got := s.Parent().SpanID().String(); got != "b7ad6b7169203331" {
		t.Errorf("server span's parent %s, want the caller's", got)
	}
}

// rootsClient answers the server's roots/list.
type rootsClient struct{}

func (rootsClient) ListRoots(context.Context, *mcp.ListRootsRequestParams) (*mcp.ListRootsResult, error) {
	return &mcp.ListRootsResult{Roots: []mcp.Root{}}, nil
}

// TestServerToClient: a legacy server's request to its client (roots/list,
// made by a tools/call handler) is a Client span of the server, child of
// the tools/call span, and a Server span of the client, joined through
// _meta: one trace of four spans.
func TestServerToClient(t *testing.T) {
	client, server := newTelemetry(), newTelemetry()
	impl := &tools{}
	srv := mcp.NewServer(session.Implementation{Name: "otel-test", Version: "0"}, impl,
		append(mcpotel.ServerOptions(server.opts()...), session.WithLegacy(mcp20251125.Revision()), session.WithLogger(quiet()))...)
	a, b := jsonrpc2.NewPipe()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() { _ = srv.Serve(ctx, a) }()
	inst := mcpotel.NewClient(client.opts()...)
	cs, err := mcp.Connect(ctx, b, session.Implementation{Name: "otel-client", Version: "0"}, rootsClient{},
		append(inst.Options(), session.WithClientLogger(quiet()), session.WithClientLegacy(mcp20251125.Revision()), session.WithVersion("2025-11-25"))...)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close(context.Background())
	if _, err := cs.CallTool(ctx, &mcp.CallToolRequestParams{Name: "roots"}); err != nil {
		t.Fatal(err)
	}
	outerC, outerS := client.waitSpan(t, "tools/call roots"), server.waitSpan(t, "tools/call roots")
	innerC, innerS := server.waitSpan(t, "roots/list"), client.waitSpan(t, "roots/list")
	joined(t, outerC, outerS)
	joined(t, innerC, innerS)
	if innerC.Parent().SpanID() != outerS.SpanContext().SpanID() {
		t.Errorf("the server's roots/list span is not a child of its tools/call span")
	}
	// The interceptor learnt the legacy version from initialize's result.
	wantAttr(t, innerS, mcpotel.AttrVersion, "2025-11-25")
	wantAttr(t, innerS, mcpotel.AttrEra, "legacy")
}

// TestBaggage: W3C baggage travels in _meta.baggage to the handler's ctx.
func TestBaggage(t *testing.T) {
	client, server := newTelemetry(), newTelemetry()
	srv := mcp.NewServer(session.Implementation{Name: "otel-test", Version: "0"}, &tools{},
		append(mcpotel.ServerOptions(server.opts()...), session.WithLogger(quiet()))...)
	a, b := jsonrpc2.NewPipe()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() { _ = srv.Serve(ctx, a) }()
	cs, err := mcp.Connect(ctx, b, session.Implementation{Name: "otel-client", Version: "0"}, nil,
		append(mcpotel.ClientOptions(client.opts()...), session.WithClientLogger(quiet()))...)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close(context.Background())
	m, _ := baggage.NewMember("user", "ada")
	bg, _ := baggage.New(m)
	res, err := cs.CallTool(baggage.ContextWithBaggage(ctx, bg), &mcp.CallToolRequestParams{Name: "baggage"})
	if err != nil {
		t.Fatal(err)
	}
	if got := res.Content[0].(*mcp.TextContent).Text; got != "ada" {
		t.Errorf("the handler saw baggage user=%q, want ada", got)
	}
}

// TestInputRequiredModern: a modern server asks for input (MRTR) by
// answering with an InputRequiredResult, and the client sends the request
// again with the answer: both rounds are server spans of the one client
// span of the call, as the retry carries the same _meta.
func TestInputRequiredModern(t *testing.T) {
	client, server := newTelemetry(), newTelemetry()
	srv := mcp.NewServer(session.Implementation{Name: "otel-test", Version: "0"}, &tools{},
		append(mcpotel.ServerOptions(server.opts()...), session.WithLogger(quiet()))...)
	a, b := jsonrpc2.NewPipe()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() { _ = srv.Serve(ctx, a) }()
	inst := mcpotel.NewClient(client.opts()...)
	cs, err := mcp.Connect(ctx, b, session.Implementation{Name: "otel-client", Version: "0"}, rootsClient{},
		append(inst.Options(), session.WithClientLogger(quiet()))...)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close(context.Background())
	inst.Bind(cs.ClientSession)
	if _, err := cs.CallTool(ctx, &mcp.CallToolRequestParams{Name: "roots"}); err != nil {
		t.Fatal(err)
	}
	// A server span ends before its response is written, so both have
	// ended once the client's span has.
	c := client.waitSpan(t, "tools/call roots")
	var rounds []sdktrace.ReadOnlySpan
	for _, s := range server.spans.Ended() {
		if s.Name() == "tools/call roots" {
			rounds = append(rounds, s)
		}
	}
	if len(rounds) != 2 {
		t.Fatalf("%d server spans for the call, want 2 (the first round and the retry)", len(rounds))
	}
	for _, s := range rounds {
		joined(t, c, s)
		wantAttr(t, s, mcpotel.AttrEra, "modern")
	}
}

func collect(t *testing.T, tel *telemetry) metricdata.ResourceMetrics {
	t.Helper()
	var rm metricdata.ResourceMetrics
	if err := tel.reader.Collect(context.Background(), &rm); err != nil {
		t.Fatal(err)
	}
	return rm
}

func matches(set attribute.Set, want map[attribute.Key]string) bool {
	for k, v := range want {
		got, ok := set.Value(k)
		if !ok || got.String() != v {
			return false
		}
	}
	return true
}

// sum adds the data points of an integer sum that carry want.
func sum(rm metricdata.ResourceMetrics, name string, want map[attribute.Key]string) int64 {
	var n int64
	for _, sm := range rm.ScopeMetrics {
		for _, m := range sm.Metrics {
			if m.Name != name {
				continue
			}
			if s, ok := m.Data.(metricdata.Sum[int64]); ok {
				for _, dp := range s.DataPoints {
					if matches(dp.Attributes, want) {
						n += dp.Value
					}
				}
			}
		}
	}
	return n
}

// histCount adds the counts of a histogram's data points that carry want.
func histCount(rm metricdata.ResourceMetrics, name string, want map[attribute.Key]string) uint64 {
	var n uint64
	for _, sm := range rm.ScopeMetrics {
		for _, m := range sm.Metrics {
			if m.Name != name {
				continue
			}
			if h, ok := m.Data.(metricdata.Histogram[float64]); ok {
				for _, dp := range h.DataPoints {
					if matches(dp.Attributes, want) {
						n += dp.Count
					}
				}
			}
		}
	}
	return n
}
