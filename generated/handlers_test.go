package generated

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/mcpgen/mcpgen/generated/mcp20251125"
	mcp "github.com/mcpgen/mcpgen/generated/mcp20260728"
	"github.com/mcpgen/mcpgen/runtime/session"
)

// A tools/call handler whose params are a value, not a pointer.
type valueParams struct{}

func (valueParams) CallTool(context.Context, mcp.CallToolRequestParams) (*mcp.CallToolResult, error) {
	return nil, nil
}

// A tools/call handler spelled Calltool.
type wrongCase struct{}

func (*wrongCase) Calltool(context.Context, *mcp.CallToolRequestParams) (*mcp.CallToolResult, error) {
	return nil, nil
}

// A right tools/call handler on the pointer, the value passed.
type pointerOnly struct{}

func (*pointerOnly) CallTool(context.Context, *mcp.CallToolRequestParams) (*mcp.CallToolResult, error) {
	return nil, nil
}

// A right tools/call handler.
type right struct{}

func (*right) CallTool(context.Context, *mcp.CallToolRequestParams) (*mcp.CallToolResult, error) {
	return nil, nil
}

// A sampling handler of a legacy client with the result as a value.
type wrongClient struct{}

func (wrongClient) CreateMessage(context.Context, *mcp20251125.CreateMessageRequestParams) (mcp20251125.CreateMessageResult, error) {
	return mcp20251125.CreateMessageResult{}, nil
}

// TestHandlerNearMissesAreReported: a method named like a handler method
// (case aside) that does not satisfy its …Handler interface, which
// registration by type assertion would silently skip, makes the generated
// NewServer panic and Connect fail, naming the signature found and the one
// expected; a right implementation is accepted.
func TestHandlerNearMissesAreReported(t *testing.T) {
	info := session.Implementation{Name: "t", Version: "0"}
	for _, c := range []struct {
		name string
		impl any
		want []string // in the panic's message
	}{
		{"wrong signature", valueParams{}, []string{"mcp20260728.RegisterServer",
			"CallTool func(context.Context, mcp20260728.CallToolRequestParams) (*mcp20260728.CallToolResult, error)",
			"CallToolHandler wants CallTool func(context.Context, *mcp20260728.CallToolRequestParams) (*mcp20260728.CallToolResult, error)"}},
		{"wrong case", &wrongCase{}, []string{"*generated.wrongCase has Calltool", "CallToolHandler wants CallTool"}},
		{"pointer receiver, value passed", pointerOnly{}, []string{"generated.pointerOnly has no method CallTool (*generated.pointerOnly has it, with a pointer receiver)"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			defer func() {
				msg := fmt.Sprint(recover())
				for _, w := range c.want {
					if !strings.Contains(msg, w) {
						t.Errorf("NewServer panicked with %q, want it to contain %q", msg, w)
					}
				}
			}()
			mcp.NewServer(info, c.impl)
			t.Error("NewServer accepted an implementation whose tools/call would not be registered")
		})
	}
	if err := mcp.CheckServer(&right{}); err != nil {
		t.Errorf("a right implementation: %v", err)
	}
	if got := mcp.RegisterServer(nil, &right{}); len(got) != 1 || got[0] != mcp.MethodCallTool {
		t.Errorf("RegisterServer lists %v", got)
	}
	_, err := mcp20251125.Connect(context.Background(), nil, info, wrongClient{})
	if err == nil || !strings.Contains(err.Error(), "mcp20251125.RegisterClient") || !strings.Contains(err.Error(), "CreateMessageHandler wants CreateMessage") {
		t.Errorf("Connect with a wrong sampling handler: %v", err)
	}
}
