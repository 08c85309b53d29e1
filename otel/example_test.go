package mcpotel_test

import (
	"context"
	"fmt"
	"log/slog"
	"slices"

	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	mcp "github.com/mcpgen/mcpgen/generated/mcp20260728"
	mcpotel "github.com/mcpgen/mcpgen/otel"
	"github.com/mcpgen/mcpgen/runtime/jsonrpc2"
	"github.com/mcpgen/mcpgen/runtime/session"
)

// A server and a client instrumented with their own providers (here the
// SDK's in-memory recorder; in production an OTLP exporter), connected
// over a pipe: the server's span of a tools/call is the child of the
// client's, through _meta.traceparent. The server/discover probe by which
// Connect detects the era is made before the client's Conn and its
// interceptors exist: it has a server span only, a root.
func Example() {
	spans := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(spans))
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(sdkmetric.NewManualReader()))
	quiet := slog.New(slog.DiscardHandler)

	srv := mcp.NewServer(session.Implementation{Name: "example", Version: "0"}, &tools{},
		append(mcpotel.ServerOptions(mcpotel.WithTracerProvider(tp), mcpotel.WithMeterProvider(mp)),
			session.WithLogger(quiet))...)
	a, b := jsonrpc2.NewPipe()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go srv.Serve(ctx, a)

	client := mcpotel.NewClient(mcpotel.WithTracerProvider(tp), mcpotel.WithMeterProvider(mp))
	cs, err := mcp.Connect(ctx, b, session.Implementation{Name: "example-client", Version: "0"}, nil,
		append(client.Options(), session.WithClientLogger(quiet))...)
	if err != nil {
		fmt.Println(err)
		return
	}
	client.Bind(cs.ClientSession)
	if _, err := cs.CallTool(ctx, &mcp.CallToolRequestParams{Name: "echo"}); err != nil {
		fmt.Println(err)
		return
	}
	cs.Close(ctx)

	var lines []string
	ended := spans.Ended()
	for _, s := range ended {
		parent := "root"
		for _, p := range ended {
			if p.SpanContext().SpanID() == s.Parent().SpanID() {
				parent = "child of the " + p.SpanKind().String() + " span"
			}
		}
		lines = append(lines, fmt.Sprintf("%s (%s): %s", s.Name(), s.SpanKind(), parent))
	}
	slices.Sort(lines)
	for _, l := range lines {
		fmt.Println(l)
	}
	// Output:
	// server/discover (server): root
	// tools/call echo (client): root
	// tools/call echo (server): child of the client span
}
