package quickstart_test

// The README's Tasks fragments, verbatim, so they compile (and run, below).

import (
	"context"
	"strings"
	"testing"

	"github.com/mcpgen/mcpgen/generated/mcp20251125"
	mcp "github.com/mcpgen/mcpgen/generated/mcp20260728"
	"github.com/mcpgen/mcpgen/generated/mcp20260728/exttasks"
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

// readmeStart is the README's requestor fragment: the same task-capable
// tool called as a task from a 2025-11-25 session (legacy) and from a
// 2026-07-28 one (cs).
func readmeStart(ctx context.Context, legacy *mcp20251125.ClientSession, cs *mcp.ClientSession) (string, string, error) {
	// 2025-11-25, core tasks: a method of the session.
	h1, err := legacy.StartCallTool(ctx, &mcp20251125.CallToolRequestParams{Name: "sleep"})
	if err != nil {
		return "", "", err
	}
	// 2026-07-28, the Tasks extension: its package, given the session's ServerCaller.
	h2, err := exttasks.StartCallTool(ctx, cs.ServerCaller, &mcp.CallToolRequestParams{Name: "sleep"})
	if err != nil {
		return "", "", err
	}
	r1, err := h1.Result(ctx) // h.Status(ctx), h.Cancel(ctx) too; ending ctx sends tasks/cancel
	if err != nil {
		return "", "", err
	}
	r2, err := h2.Result(ctx)
	if err != nil {
		return "", "", err
	}
	return r1.Content[0].(*mcp20251125.TextContent).Text, r2.Content[0].(*mcp.TextContent).Text, nil
}

// sleepTool answers every tools/call at once.
type sleepTool struct{}

func (sleepTool) CallTool(ctx context.Context, p *mcp.CallToolRequestParams) (*mcp.CallToolResult, error) {
	return &mcp.CallToolResult{Content: []mcp.ContentBlock{&mcp.TextContent{Text: "slept"}}}, nil
}

// TestReadmeStartCallTool: the requestor fragment gets the tool's result
// through a task in both eras, from the server of the README's fragment.
func TestReadmeStartCallTool(t *testing.T) {
	ctx := context.Background()
	info := session.Implementation{Name: "readme", Version: "0"}
	readmeTasks(ctx, info, sleepTool{}, func(srv *session.Server) {
		connect := func() jsonrpc2.Transport {
			a, b := jsonrpc2.NewPipe()
			go srv.Serve(ctx, a)
			return b
		}
		legacy, err := mcp20251125.Connect(ctx, connect(), info, nil)
		if err != nil {
			t.Fatal(err)
		}
		defer legacy.Close(ctx)
		cs, err := mcp.Connect(ctx, connect(), info, nil)
		if err != nil {
			t.Fatal(err)
		}
		defer cs.Close(ctx)
		r1, r2, err := readmeStart(ctx, legacy, cs)
		if err != nil || r1 != "slept" || r2 != "slept" {
			t.Fatalf("results %q %q, %v", r1, r2, err)
		}
	})
}
