package quickstart_test

// The README's Tasks fragment, verbatim, so it compiles (and runs, below).

import (
	"context"
	"encoding/json"
	"testing"

	mcp "github.com/mcpgen/mcpgen/generated/mcp20251125"
	"github.com/mcpgen/mcpgen/runtime/jsonrpc2"
	"github.com/mcpgen/mcpgen/runtime/tasks"
)

// readmeTasks is the README's task server set-up on transport t.
func readmeTasks(t jsonrpc2.Transport, impl any) (*jsonrpc2.Conn, *tasks.Manager) {
	conn := jsonrpc2.NewConn(t, jsonrpc2.WithPolicy(mcp.Policy(jsonrpc2.SideServer)))
	mcp.RegisterServer(conn, impl)
	tm := tasks.NewManager(tasks.Config{Methods: mcp.ServerTaskMethods,
		ToolSupport: func(tool string) tasks.Support { return tasks.Optional }})
	tm.Serve(conn)  // now answers tasks/get, tasks/result, tasks/list, tasks/cancel
	tm.Capability() // the "tasks" capability to declare in initialize
	return conn, tm
}

// TestReadmeTasks: the fragment's Conn answers tasks/list.
func TestReadmeTasks(t *testing.T) {
	a, b := jsonrpc2.NewPipe()
	conn, tm := readmeTasks(a, struct{}{})
	conn.Start()
	defer tm.Close(context.Background())
	client := jsonrpc2.NewConn(b)
	client.Start()
	ctx := context.Background()
	var res json.RawMessage
	if err := client.Call(ctx, "tasks/list", map[string]any{}, &res); err != nil {
		t.Fatalf("tasks/list: %v", err)
	}
	if err := client.Close(ctx); err != nil {
		t.Fatal(err)
	}
	if err := conn.Close(ctx); err != nil {
		t.Fatal(err)
	}
}
