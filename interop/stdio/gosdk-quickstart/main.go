// Command gosdk-quickstart is examples/quickstart/stdio-server written on
// go-sdk v1.8, the way its documentation writes a server: the same two
// tools (add, and slow, which reports progress every second and stops
// when cancelled), the same schemas (seconds between 0 and 3600), on
// stdio until stdin's EOF, SIGINT or SIGTERM. It exists to be counted
// against the quickstart (examples/quickstart's TestLineBudgets counts
// both, schemas included) and is run by this module's tests under the
// quickstart's own client.
package main

import (
	"context"
	"log"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

type addArgs struct {
	A float64 `json:"a"`
	B float64 `json:"b"`
}

type addResult struct {
	Sum float64 `json:"sum"`
}

type slowArgs struct {
	Seconds int `json:"seconds"`
}

type slowResult struct {
	Seconds int `json:"seconds"`
}

func add(_ context.Context, _ *mcp.CallToolRequest, a addArgs) (*mcp.CallToolResult, addResult, error) {
	return nil, addResult{Sum: a.A + a.B}, nil
}

// slow reports progress every second and stops when its call is cancelled.
func slow(ctx context.Context, req *mcp.CallToolRequest, a slowArgs) (*mcp.CallToolResult, slowResult, error) {
	for i := range a.Seconds {
		if tok := req.Params.GetProgressToken(); tok != nil {
			_ = req.Session.NotifyProgress(ctx, &mcp.ProgressNotificationParams{ProgressToken: tok, Progress: float64(i), Total: float64(a.Seconds), Message: "working"})
		}
		select {
		case <-ctx.Done():
			return nil, slowResult{}, ctx.Err()
		case <-time.After(time.Second):
		}
	}
	return nil, slowResult(a), nil
}

func main() {
	srv := mcp.NewServer(&mcp.Implementation{Name: "quickstart", Version: "0.1.0"}, nil)
	mcp.AddTool(srv, &mcp.Tool{Name: "add", Description: "Adds two numbers."}, add)
	// The bounds of seconds are not in the Go type: the inferred schema gets them by hand.
	in, err := jsonschema.For[slowArgs](nil)
	if err != nil {
		log.Fatal(err)
	}
	in.Properties["seconds"].Minimum, in.Properties["seconds"].Maximum = jsonschema.Ptr(0.0), jsonschema.Ptr(3600.0)
	mcp.AddTool(srv, &mcp.Tool{Name: "slow", Description: "Works for the given number of seconds, reporting progress every second; cancellable.", InputSchema: in}, slow)
	// Until stdin's EOF, SIGINT or SIGTERM (Run does not wait for running handlers).
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := srv.Run(ctx, &mcp.StdioTransport{}); err != nil && ctx.Err() == nil {
		log.Fatal(err)
	}
}
