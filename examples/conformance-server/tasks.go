package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"sync"
	"time"

	"github.com/mcpgen/mcpgen/examples/conformance-server/tools"
	mcp "github.com/mcpgen/mcpgen/generated/mcp20260728"
	"github.com/mcpgen/mcpgen/runtime/jsonrpc2"
	"github.com/mcpgen/mcpgen/runtime/logsink"
	"github.com/mcpgen/mcpgen/runtime/session"
	"github.com/mcpgen/mcpgen/runtime/tasks"
)

// The fixtures of the suite's tasks-* scenarios (the Tasks extension,
// SEP-2663, for 2026-07-28 clients; the same tools are 2025-11-25 core
// tasks for legacy ones). Their task support is declared once, here; the
// Manager adds it to tools/list as execution.taskSupport and serves
// tools/call as a task when the requestor asks for one (or, for the
// required ones, refuses a call that does not).
var taskSupport = map[string]tasks.Support{
	tools.ToolGreet:            tasks.Forbidden,
	tools.ToolSlowCompute:      tasks.Optional,
	tools.ToolFailingJob:       tasks.Required,
	tools.ToolProtocolErrorJob: tasks.Optional,
	tools.ToolConfirmDelete:    tasks.Optional,
	tools.ToolMultiInput:       tasks.Optional,
	tools.ToolTestToolWithTask: tasks.Required,
}

// newTasks is the fixture's task manager. test_tool_with_task starts as an
// ordinary request (its input round is multi round-trip, as the extension
// recommends before a task exists) and becomes a task when it calls
// tasks.Detach.
func newTasks(log *slog.Logger) *tasks.Manager {
	return tasks.NewManager(tasks.Config{
		Methods:     []string{mcp.MethodCallTool},
		ToolSupport: func(tool string) tasks.Support { return taskSupport[tool] },
		SyncFirst:   func(tool string) bool { return tool == tools.ToolTestToolWithTask },
		Logger:      slog.New(logsink.AtLeast(log.Handler(), slog.LevelWarn)),
	})
}

// failingJobDelay is how long failing_job works before it fails: long
// enough that a requestor sees the task working first.
const failingJobDelay = 100 * time.Millisecond

// Greet implements the tool "greet": sync only.
func (s *server) Greet(ctx context.Context, a *tools.GreetArgs) (*mcp.CallToolResult, error) {
	return toolResult(text("Hello, " + a.Name + "!")), nil
}

// SlowCompute implements the tool "slow_compute": it waits the given
// seconds (0 when absent) and ends early, with the cause, when its ctx
// does (tasks/cancel names the task in that cause), so a cancelled task is
// never reported completed.
func (s *server) SlowCompute(ctx context.Context, a *tools.SlowComputeArgs) (*mcp.CallToolResult, error) {
	var secs float64
	if a.Seconds != nil {
		secs = *a.Seconds
	}
	label := ""
	if a.Label != nil {
		label = *a.Label
	}
	if err := pause(ctx, time.Duration(secs*float64(time.Second))); err != nil {
		return nil, err
	}
	return toolResult(text(fmt.Sprintf("slow_compute %q done after %ss", label, strconv.FormatFloat(secs, 'g', -1, 64)))), nil
}

// FailingJob implements the tool "failing_job": a tool execution error
// (isError: true, so the task completes with that result) after a short
// while.
func (s *server) FailingJob(ctx context.Context, _ *tools.FailingJobArgs) (*mcp.CallToolResult, error) {
	if err := pause(ctx, failingJobDelay); err != nil {
		return nil, err
	}
	return &mcp.CallToolResult{Content: []mcp.ContentBlock{text("failing_job failed, as it always does")}, IsError: ptr(true)}, nil
}

// ProtocolErrorJob implements the tool "protocol_error_job": a JSON-RPC
// error, not a tool result, so its task fails with that error inlined.
func (s *server) ProtocolErrorJob(ctx context.Context, _ *tools.ProtocolErrorJobArgs) (*mcp.CallToolResult, error) {
	return nil, jsonrpc2.NewError(jsonrpc2.CodeInternalError, "protocol_error_job: a protocol-level failure, on purpose")
}

// ConfirmDelete implements the tool "confirm_delete": one elicitation,
// then the answer.
func (s *server) ConfirmDelete(ctx context.Context, a *tools.ConfirmDeleteArgs) (*mcp.CallToolResult, error) {
	name := "the file"
	if a.Filename != nil {
		name = *a.Filename
	}
	var res elicitAnswer
	if err := askInput(ctx, "confirm", elicitParams("Delete "+name+"?", `{"type":"object","properties":{"confirm":{"type":"boolean"}},"required":["confirm"]}`), &res); err != nil {
		return nil, err
	}
	return toolResult(text(fmt.Sprintf("delete %s: action=%s, content=%s", name, res.Action, orEmpty(res.Content)))), nil
}

// MultiInput implements the tool "multi_input": two elicitations
// outstanding at once, so a requestor can answer them one at a time.
func (s *server) MultiInput(ctx context.Context, _ *tools.MultiInputArgs) (*mcp.CallToolResult, error) {
	keys := []string{"first", "second"}
	answers := make([]elicitAnswer, len(keys))
	errs := make([]error, len(keys))
	if _, isTask := tasks.ID(ctx); isTask {
		var wg sync.WaitGroup
		for i, k := range keys {
			wg.Add(1)
			go func() {
				defer wg.Done()
				errs[i] = askInput(ctx, k, elicitParams("The "+k+" answer?", `{"type":"object","properties":{"answer":{"type":"string"}}}`), &answers[i])
			}()
		}
		wg.Wait()
	} else {
		// Not a task: both asked before returning, so a modern client
		// gets both in one InputRequiredResult (errors.Join).
		for i, k := range keys {
			errs[i] = askInput(ctx, k, elicitParams("The "+k+" answer?", `{"type":"object","properties":{"answer":{"type":"string"}}}`), &answers[i])
		}
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	return toolResult(text(fmt.Sprintf("multi_input: %s=%s, %s=%s", keys[0], answers[0].Action, keys[1], answers[1].Action))), nil
}

// TestToolWithTask implements the tool "test_tool_with_task": its input
// comes first, by multi round-trip (the request is not a task yet), then
// it detaches into a task and finishes there.
func (s *server) TestToolWithTask(ctx context.Context, _ *tools.TestToolWithTaskArgs) (*mcp.CallToolResult, error) {
	var res struct {
		Content struct {
			Name string `json:"name"`
		} `json:"content"`
	}
	if err := session.InputAs(ctx, "user_name", "elicitation/create", elicitParams("What is your name?", `{"type":"object","properties":{"name":{"type":"string"}},"required":["name"]}`), &res); err != nil {
		return nil, err
	}
	if err := tasks.Detach(ctx); err != nil {
		return nil, err
	}
	return toolResult(text("Hello, " + res.Content.Name)), nil
}

// askInput asks the requestor for input: through the task (input_required
// status, tasks.Ask) when the call runs as one, else as the request's own
// input (session.InputAs: multi round-trip for 2026-07-28, a
// server-to-client request for legacy sessions).
func askInput(ctx context.Context, key string, params, result any) error {
	if _, isTask := tasks.ID(ctx); isTask {
		return tasks.Ask(ctx, "elicitation/create", params, result)
	}
	return session.InputAs(ctx, key, "elicitation/create", params, result)
}

// orEmpty is an elicitation answer's content, {} when there is none.
func orEmpty(b json.RawMessage) json.RawMessage {
	if len(b) == 0 {
		return json.RawMessage("{}")
	}
	return b
}
