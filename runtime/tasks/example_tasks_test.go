package tasks_test

import (
	"context"
	"fmt"
	"time"

	mcp "github.com/mcpgen/mcpgen/generated/mcp20260728"
	"github.com/mcpgen/mcpgen/generated/mcp20260728/exttasks"
	"github.com/mcpgen/mcpgen/runtime/jsonrpc2"
	"github.com/mcpgen/mcpgen/runtime/session"
	"github.com/mcpgen/mcpgen/runtime/tasks"
)

// report is a tool that may take long; as a task it runs in the
// background under its own context.
type report struct{}

func (report) CallTool(ctx context.Context, p *mcp.CallToolRequestParams) (*mcp.CallToolResult, error) {
	return mcp.TextResult("report ready"), nil
}

// A server whose tools may run as tasks (WithTasks on the generated
// NewServer), and a 2026-07-28 requestor that starts a call as a task
// through the Tasks extension's generated package and waits for its
// result. A 2025-11-25 session does the same with its own StartCallTool.
func Example() {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	tm := tasks.NewManager(tasks.Config{Methods: []string{mcp.MethodCallTool},
		ToolSupport: func(tool string) tasks.Support { return tasks.Optional }})
	defer tm.Close(ctx)
	srv := mcp.NewServer(session.Implementation{Name: "reports", Version: "1.0.0"}, report{}, tasks.WithTasks(tm))
	a, b := jsonrpc2.NewPipe()
	go srv.Serve(ctx, a)

	cs, err := mcp.Connect(ctx, b, session.Implementation{Name: "client", Version: "0"}, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer cs.Close(ctx)
	h, err := exttasks.StartCallTool(ctx, cs.ServerCaller, &mcp.CallToolRequestParams{Name: "report"})
	if err != nil {
		fmt.Println(err)
		return
	}
	res, err := h.Result(ctx) // h.Status(ctx) polls once; h.Cancel(ctx) sends tasks/cancel
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(res.Content[0].(*mcp.TextContent).Text)
	// Output: report ready
}
