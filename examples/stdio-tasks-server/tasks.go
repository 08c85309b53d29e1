package main

import (
	"context"
	"encoding/json"
	"log/slog"
	"sync/atomic"
	"time"

	mcp "github.com/mcpgen/mcpgen/generated/mcp20251125"
	"github.com/mcpgen/mcpgen/runtime/jsonrpc2"
	"github.com/mcpgen/mcpgen/runtime/tasks"
)

// taskSupport is each tool's execution.taskSupport (2025-11-25 tasks.mdx);
// absent means forbidden. tools/list and the task manager both read it, so
// what is advertised is what is enforced.
var taskSupport = map[string]mcp.ToolExecutionTaskSupport{"sleep": mcp.ToolExecutionTaskSupportOptional}

// taskState is what the server keeps for tasks: the manager, and the
// negotiated revision, since tasks exist only from 2025-11-25 on.
type taskState struct {
	tasks   *tasks.Manager
	version atomic.Value // string
}

// serveTasks lets a task-augmented tools/call run CallTool in the background
// as a task (polled with tasks/get, ended only by tasks/cancel). Call it
// after RegisterServer, which it wraps; the returned func cancels the tasks
// still running and waits a little for them.
func (s *server) serveTasks(conn *jsonrpc2.Conn, log *slog.Logger) (stop func(), err error) {
	s.tasks = tasks.NewManager(tasks.Config{
		Methods:     []string{mcp.MethodCallTool},
		ToolSupport: func(tool string) tasks.Support { return tasks.Support(taskSupport[tool]) },
		// Sessions of earlier revisions ignore the task member.
		Enabled: func(context.Context) bool { return s.version.Load() == "2025-11-25" },
		Logger:  log,
	})
	stop = func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		s.tasks.Close(ctx)
	}
	return stop, s.tasks.Serve(conn)
}

// taskCapability records the negotiated version and returns the tasks
// capability to declare in it (nil before 2025-11-25).
func (s *server) taskCapability(version string) *mcp.ServerCapabilitiesTasks {
	s.version.Store(version)
	if version != "2025-11-25" {
		return nil
	}
	caps := new(mcp.ServerCapabilitiesTasks)
	if err := json.Unmarshal(s.tasks.Capability(), caps); err != nil {
		panic("tasks capability does not decode: " + err.Error()) // a bug, not an input
	}
	return caps
}
