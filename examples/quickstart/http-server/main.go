// Command http-server is the quickstart's MCP server over Streamable HTTP:
// the same two typed tools (tools/tools.json), add and slow, for clients of
// both eras on one endpoint, http://ADDR/mcp.
//
//	go run ./examples/quickstart/http-server --addr 127.0.0.1:8080
package main

import (
	"context"
	"flag"
	"log"
	"time"

	"github.com/mcpgen/mcpgen/examples/quickstart/tools"
	"github.com/mcpgen/mcpgen/generated/mcp20251125"
	mcp "github.com/mcpgen/mcpgen/generated/mcp20260728"
	"github.com/mcpgen/mcpgen/runtime/session"
	"github.com/mcpgen/mcpgen/runtime/streamhttp"
)

// calc implements tools.Tools; the generated tools.Handler validates the
// arguments and answers tools/list and tools/call.
type calc struct{}

func (calc) Add(_ context.Context, a *tools.AddArgs) (*tools.AddResult, error) {
	return &tools.AddResult{Sum: a.A + a.B}, nil
}

// Slow reports progress every second and stops when its call is cancelled
// (in 2026-07-28, by the client closing the response stream).
func (calc) Slow(ctx context.Context, a *tools.SlowArgs) (*tools.SlowResult, error) {
	for i := range a.Seconds {
		_ = mcp.Progress(ctx, float64(i), float64(a.Seconds), "working")
		select {
		case <-ctx.Done():
			return nil, context.Cause(ctx) // dropped: a cancelled call gets no answer
		case <-time.After(time.Second):
		}
	}
	return &tools.SlowResult{Seconds: a.Seconds}, nil
}

func main() {
	addr := flag.String("addr", "127.0.0.1:8080", "address to listen on (loopback: only local clients)")
	flag.Parse()
	srv := mcp.NewServer(session.Implementation{Name: "quickstart", Version: "0.1.0"}, tools.NewHandler(calc{}),
		session.WithLegacy(mcp20251125.Revision())) // legacy sessions (initialize) too
	// Until SIGINT or SIGTERM; then a drain: running handlers get ShutdownTimeout to finish.
	err := streamhttp.ListenAndServe(context.Background(), *addr, srv, streamhttp.Options{ShutdownTimeout: 2 * time.Second})
	if err != nil {
		log.Fatal(err)
	}
}
