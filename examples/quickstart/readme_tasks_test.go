package quickstart_test

// The README's Tasks fragment, verbatim, so it compiles (and runs, below).

import (
	"context"
	"strings"
	"testing"

	"github.com/mcpgen/mcpgen/generated/mcp20251125"
	mcp "github.com/mcpgen/mcpgen/generated/mcp20260728"
	"github.com/mcpgen/mcpgen/runtime/jsonrpc2"
	"github.com/mcpgen/mcpgen/runtime/session"
	"github.com/mcpgen/mcpgen/runtime/tasks"
)

// readmeTasks is the README's task server set-up; serve runs it.
func readmeTasks(ctx context.Context, info session.Implementation, impl any, serve func(*session.Server)) {
	tm := tasks.NewManager(tasks.Config{Methods: []string{mcp.MethodCallTool},
		ToolSupport: func(tool string) tasks.Support { return tasks.Optional }})
	defer tm.Close(ctx)
	srv := mcp.NewServer(info, impl, tasks.WithTasks(tm), session.WithLegacy(mcp20251125.Revision()))
	serve(srv)
}

// TestReadmeTasks: the fragment's server declares tasks to a 2025-11-25
// client (the core capability) and to a 2026-07-28 one (the extension).
func TestReadmeTasks(t *testing.T) {
	ctx := context.Background()
	info := session.Implementation{Name: "readme", Version: "0"}
	for _, modern := range []bool{false, true} {
		readmeTasks(ctx, info, struct{}{}, func(srv *session.Server) {
			a, b := jsonrpc2.NewPipe()
			done := make(chan error, 1)
			go func() { done <- srv.Serve(ctx, a) }()
			var caps, want string
			if modern {
				cs, err := mcp.Connect(ctx, b, info, nil)
				if err != nil {
					t.Fatal(err)
				}
				caps, want = string(cs.ClientSession.ServerCapabilities()), `"io.modelcontextprotocol/tasks"`
				cs.Close(ctx)
			} else {
				cs, err := mcp20251125.Connect(ctx, b, info, nil)
				if err != nil {
					t.Fatal(err)
				}
				caps, want = string(cs.ClientSession.ServerCapabilities()), `"tasks":`
				cs.Close(ctx)
			}
			if !strings.Contains(caps, want) {
				t.Errorf("modern=%v: capabilities %s lack %s", modern, caps, want)
			}
			if err := <-done; err != nil {
				t.Errorf("Serve: %v", err)
			}
		})
	}
}
