package streamhttp_test

import (
	"github.com/mcpgen/mcpgen/generated/mcp20241105"
	"github.com/mcpgen/mcpgen/generated/mcp20250326"
	"github.com/mcpgen/mcpgen/generated/mcp20250618"
	"github.com/mcpgen/mcpgen/generated/mcp20251125"
	"github.com/mcpgen/mcpgen/generated/mcp20260728"
	"github.com/mcpgen/mcpgen/runtime/jsonrpc2"
	"github.com/mcpgen/mcpgen/runtime/streamhttp"
)

// The generated decoders and revision data, for the tests of package streamhttp (see
// export_test.go). Set at init, before TestMain runs any test.
func init() {
	streamhttp.SetTestDecoders(mcp20250618.Policy(jsonrpc2.SideAny).Cancelled, mcp20260728.Policy(jsonrpc2.SideAny).Cancelled)
	streamhttp.SetTestRevisions(mcp20260728.Revision(), mcp20251125.Revision(), mcp20250618.Revision(), mcp20250326.Revision(), mcp20241105.Revision())
}
