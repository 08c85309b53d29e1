package tasks_test

import (
	"github.com/mcpgen/mcpgen/generated/mcp20251125"
	"github.com/mcpgen/mcpgen/runtime/jsonrpc2"
	"github.com/mcpgen/mcpgen/runtime/tasks"
)

// 2025-11-25's generated decoder, for the tests of package tasks (see
// export_test.go). Set at init, before TestMain runs any test.
func init() { tasks.SetTestDecoder(mcp20251125.Policy(jsonrpc2.SideAny).Cancelled) }
