// Command stdio-server is the quickstart's MCP server on stdio: two typed
// tools (tools/tools.json), add and slow, served to clients of every
// revision. Run it under the quickstart client:
//
//	go run ./examples/quickstart/client go run ./examples/quickstart/stdio-server
package main

import (
	"context"
	"log"
	"time"

	"github.com/mcpgen/mcpgen/examples/quickstart/tools"
	"github.com/mcpgen/mcpgen/generated/mcp20251125"
	mcp "github.com/mcpgen/mcpgen/generated/mcp20260728"
	"github.com/mcpgen/mcpgen/runtime/session"
)

// calc implements tools.Tools; the generated tools.Handler validates the
// arguments and answers tools/list and tools/call.
type calc struct{}

func (calc) Add(_ context.Context, a *tools.AddArgs) (*tools.AddResult, error) {
	return &tools.AddResult{Sum: a.A + a.B}, nil
}

// Slow reports progress every second and stops when its call is cancelled.
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
	srv := mcp.NewServer(session.Implementation{Name: "quickstart", Version: "0.1.0"}, tools.NewHandler(calc{}),
		session.WithLegacy(mcp20251125.Revision())) // 2025-11-25 clients too, through initialize
	// Until stdin's EOF, SIGINT or SIGTERM; then at most 2 s for handlers to return.
	if err := srv.ServeStdio(context.Background(), 2*time.Second); err != nil {
		log.Fatal(err)
	}
}
