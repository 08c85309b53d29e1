package main

import (
	"context"
	"encoding/json"

	"example.com/downstream/mcp"
	"github.com/mcpgen/mcpgen/runtime/jsonrpc2"
)

// server is a small MCP server with one tool, greet, served on a bare
// jsonrpc2.Conn (no session), so it answers the lifecycle itself.
// mcp.RegisterServer registers exactly the methods whose handler interface
// it implements; every other method is answered with -32601.
type server struct{}

// The handler interfaces server means to implement: a signature that drifts
// fails to compile here rather than silently serving nothing.
var (
	_ mcp.InitializeHandler  = (*server)(nil)
	_ mcp.InitializedHandler = (*server)(nil)
	_ mcp.PingHandler        = (*server)(nil)
	_ mcp.ListToolsHandler   = (*server)(nil)
	_ mcp.CallToolHandler    = (*server)(nil)
)

// Initialize accepts the client and announces the tools capability.
func (s *server) Initialize(ctx context.Context, p *mcp.InitializeRequestParams) (*mcp.InitializeResult, error) {
	return &mcp.InitializeResult{
		ProtocolVersion: mcp.ProtocolVersion,
		Capabilities:    mcp.ServerCapabilities{Tools: &mcp.ServerCapabilitiesTools{}},
		ServerInfo:      mcp.Implementation{Name: "downstream", Version: "0.1.0"},
	}, nil
}

// Initialized is the client's notifications/initialized; nothing to do.
func (s *server) Initialized(ctx context.Context, _ *mcp.InitializedNotificationParams) error {
	return nil
}

// Ping answers with an empty result. PingRequestParams is the same name in
// every revision, whatever the schema calls the type behind it.
func (s *server) Ping(ctx context.Context, _ *mcp.PingRequestParams) (*mcp.EmptyResult, error) {
	return &mcp.EmptyResult{}, nil
}

// ListTools describes greet.
func (s *server) ListTools(ctx context.Context, _ *mcp.ListToolsRequestParams) (*mcp.ListToolsResult, error) {
	return &mcp.ListToolsResult{Tools: []mcp.Tool{{
		Name: "greet",
		InputSchema: mcp.ToolInputSchema{
			Properties: map[string]map[string]json.RawMessage{"name": {"type": json.RawMessage(`"string"`)}},
			Required:   []string{"name"},
		},
	}}}, nil
}

// CallTool runs greet; an unknown tool is a protocol error.
func (s *server) CallTool(ctx context.Context, p *mcp.CallToolRequestParams) (*mcp.CallToolResult, error) {
	if p.Name != "greet" {
		return nil, jsonrpc2.NewInvalidParamsError("unknown tool " + p.Name)
	}
	var name string
	if err := json.Unmarshal(p.Arguments["name"], &name); err != nil {
		return &mcp.CallToolResult{IsError: ptr(true), Content: []mcp.ContentBlock{&mcp.TextContent{Text: `greet needs {"name": string}`}}}, nil
	}
	return &mcp.CallToolResult{Content: []mcp.ContentBlock{&mcp.TextContent{Text: "hello, " + name}}}, nil
}

func ptr[T any](v T) *T { return &v }
