// Tests of the tools package generated for the bindings of 2025-06-18,
// where invalid arguments are a protocol error.
package kitchen0618

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	mcp "github.com/mcpgen/mcpgen/generated/mcp20250618"
	"github.com/mcpgen/mcpgen/runtime/jsonrpc2"
)

type impl struct{}

func (impl) SearchItems(context.Context, *SearchItemsArgs) (*SearchItemsResult, error) {
	return &SearchItemsResult{Items: []string{}}, nil
}

func (impl) GetTime(context.Context, *GetTimeArgs) (*mcp.CallToolResult, error) {
	return &mcp.CallToolResult{Content: []mcp.ContentBlock{}}, nil
}

// TestInvalidArgumentsAreProtocolErrors: server/tools.mdx of 2025-06-18
// lists invalid arguments among protocol errors, so the dispatcher answers
// -32602 naming the pointer, not an isError result.
func TestInvalidArgumentsAreProtocolErrors(t *testing.T) {
	h := NewHandler(impl{})
	p := &mcp.CallToolRequestParams{Name: ToolSearchItems, Arguments: map[string]json.RawMessage{"query": json.RawMessage(`"q"`), "tags": json.RawMessage(`["A"]`)}}
	res, err := h.CallTool(context.Background(), p)
	var re *jsonrpc2.Error
	if res != nil || !errors.As(err, &re) || re.Code != jsonrpc2.CodeInvalidParams || !strings.Contains(re.Message, "/arguments/tags/0") {
		t.Fatalf("got %+v, %v; want -32602 naming /arguments/tags/0", res, err)
	}
	p.Arguments["tags"] = json.RawMessage(`["a"]`)
	res, err = h.CallTool(context.Background(), p)
	if err != nil || res.StructuredContent == nil || res.IsError != nil {
		t.Fatalf("valid call: %+v, %v", res, err)
	}
}
