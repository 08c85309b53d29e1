package jsonrpc2_test

import (
	"github.com/mcpgen/mcpgen/generated/mcp20250618"
	"github.com/mcpgen/mcpgen/generated/mcp20251125"
	"github.com/mcpgen/mcpgen/generated/mcp20260728"
	"github.com/mcpgen/mcpgen/runtime/jsonrpc2"
)

// The generated decoders, for the tests of package jsonrpc2 (see
// export_test.go). Set at init, before TestMain runs any test.
func init() {
	jsonrpc2.SetTestDecoders(
		mcp20250618.Policy(jsonrpc2.SideAny).Cancelled,
		mcp20251125.Policy(jsonrpc2.SideAny).Cancelled,
		mcp20260728.Policy(jsonrpc2.SideAny).Cancelled,
	)
}
