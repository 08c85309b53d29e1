package streamhttp_test

import (
	"github.com/mcpgen/mcpgen/generated/mcp20250618"
	"github.com/mcpgen/mcpgen/generated/mcp20260728"
	"github.com/mcpgen/mcpgen/runtime/jsonrpc2"
	"github.com/mcpgen/mcpgen/runtime/streamhttp"
)

// The generated decoders, for the tests of package streamhttp (see
// export_test.go). Set at init, before TestMain runs any test.
func init() {
	streamhttp.SetTestDecoders(mcp20250618.Policy(jsonrpc2.SideAny).Cancelled, mcp20260728.Policy(jsonrpc2.SideAny).Cancelled)
}
