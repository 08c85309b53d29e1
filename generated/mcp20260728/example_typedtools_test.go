package mcp20260728_test

import (
	"context"
	"fmt"

	"github.com/mcpgen/mcpgen/examples/quickstart/tools"
	mcp "github.com/mcpgen/mcpgen/generated/mcp20260728"
	"github.com/mcpgen/mcpgen/runtime/jsonrpc2"
	"github.com/mcpgen/mcpgen/runtime/session"
)

// calc implements the typed tools that "mcpgen tools" generated from
// examples/quickstart/tools/tools.json.
type calc struct{}

func (calc) Add(_ context.Context, a *tools.AddArgs) (*tools.AddResult, error) {
	return &tools.AddResult{Sum: a.A + a.B}, nil
}

func (calc) Slow(context.Context, *tools.SlowArgs) (*tools.SlowResult, error) {
	return &tools.SlowResult{}, nil
}

// A server with typed tools and its client: NewServer serves the tools
// (tools/list, and tools/call with the arguments validated against the
// tool's input schema), Connect makes the client session, and the
// generated Caller calls a tool with typed arguments and result. The pipe
// stands for a transport: jsonrpc2.NewStdioTransport in a program on
// stdio, streamhttp over HTTP.
func Example_typedTools() {
	ctx := context.Background()
	srv := mcp.NewServer(session.Implementation{Name: "calc", Version: "1.0.0"}, tools.NewHandler(calc{}))
	a, b := jsonrpc2.NewPipe()
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ctx, a) }()

	cs, err := mcp.Connect(ctx, b, session.Implementation{Name: "client", Version: "0"}, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	list, err := cs.ListTools(ctx, &mcp.ListToolsRequestParams{})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, t := range list.Tools {
		fmt.Println("tool:", t.Name)
	}
	res, err := tools.NewCaller(cs).Add(ctx, &tools.AddArgs{A: 2, B: 3})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("2 + 3 =", res.Sum)
	cs.Close(ctx)
	<-done
	// Output:
	// tool: add
	// tool: slow
	// 2 + 3 = 5
}
