// Command conformance-client is the client the official MCP conformance
// suite (@modelcontextprotocol/conformance 0.1.16) drives in its client
// scenarios: it gets the server URL as its argument and the scenario in
// MCP_CONFORMANCE_SCENARIO, initializes (legacy era: every client scenario
// of that suite version is 2025-11-25 or older), lists the tools and calls
// each with arguments made from its input schema, answering elicitation
// with the schema's defaults.
//
// The initialize handling is minimal lifecycle glue, TO BE REPLACED by the
// lifecycle layer (Connect).
package main

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"os"
	"time"

	mcp20251125 "github.com/mcpgen/mcpgen/generated/mcp20251125"
	"github.com/mcpgen/mcpgen/runtime/jsonrpc2"
	"github.com/mcpgen/mcpgen/runtime/streamhttp"
)

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: conformance-client URL")
		os.Exit(2)
	}
	if err := run(os.Args[1], os.Getenv("MCP_CONFORMANCE_SCENARIO")); err != nil {
		fmt.Fprintln(os.Stderr, "conformance-client:", err)
		os.Exit(1)
	}
}

func run(url, scenario string) error {
	ctx, cancel := context.WithTimeout(context.Background(), 25*time.Second)
	defer cancel()
	log := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	tr := streamhttp.NewClientTransport(url, streamhttp.ClientOptions{Era: streamhttp.EraLegacy, Logger: log})
	conn := jsonrpc2.NewConn(tr, jsonrpc2.WithPolicy(mcp20251125.Policy(jsonrpc2.SideClient)), jsonrpc2.WithLogger(log))
	conn.Handle("elicitation/create", elicitDefaults)
	conn.Handle("sampling/createMessage", func(context.Context, *jsonrpc2.Request) (any, error) {
		return map[string]any{"role": "assistant", "content": map[string]string{"type": "text", "text": "ok"}, "model": "none"}, nil
	})
	conn.Handle("roots/list", func(context.Context, *jsonrpc2.Request) (any, error) { return map[string]any{"roots": []any{}}, nil })
	conn.Handle("ping", func(context.Context, *jsonrpc2.Request) (any, error) { return map[string]any{}, nil })
	conn.Start()
	defer func() {
		c, cc := context.WithTimeout(context.Background(), 5*time.Second)
		defer cc()
		conn.Close(c)
	}()
	if err := conn.Call(ctx, "initialize", map[string]any{
		"protocolVersion": "2025-11-25",
		"capabilities":    map[string]any{"elicitation": map[string]any{}, "sampling": map[string]any{}},
		"clientInfo":      map[string]string{"name": "mcpgen-conformance-client", "version": "0.1.0"},
	}, nil); err != nil {
		return fmt.Errorf("initialize: %w", err)
	}
	if err := conn.Notify(ctx, "notifications/initialized", nil); err != nil {
		return err
	}
	if scenario == "initialize" {
		return nil
	}
	var list struct {
		Tools []struct {
			Name        string `json:"name"`
			InputSchema struct {
				Properties map[string]struct {
					Type string `json:"type"`
				} `json:"properties"`
			} `json:"inputSchema"`
		} `json:"tools"`
	}
	if err := conn.Call(ctx, "tools/list", map[string]any{}, &list); err != nil {
		return fmt.Errorf("tools/list: %w", err)
	}
	for _, tool := range list.Tools {
		args := map[string]any{}
		for name, p := range tool.InputSchema.Properties {
			switch p.Type {
			case "number", "integer":
				args[name] = 1
			case "boolean":
				args[name] = true
			case "string":
				args[name] = "test"
			}
		}
		var res json.RawMessage
		if err := conn.Call(ctx, "tools/call", map[string]any{"name": tool.Name, "arguments": args}, &res); err != nil {
			return fmt.Errorf("tools/call %s: %w", tool.Name, err)
		}
	}
	return nil
}

// elicitDefaults accepts an elicitation with the defaults its schema gives
// (SEP-1034: a client applies defaults for omitted fields).
func elicitDefaults(ctx context.Context, r *jsonrpc2.Request) (any, error) {
	var p struct {
		RequestedSchema struct {
			Properties map[string]struct {
				Default json.RawMessage `json:"default"`
			} `json:"properties"`
		} `json:"requestedSchema"`
	}
	if err := json.Unmarshal(r.Params, &p); err != nil {
		return nil, jsonrpc2.ErrInvalidParams(err.Error())
	}
	content := map[string]json.RawMessage{}
	for name, prop := range p.RequestedSchema.Properties {
		if len(prop.Default) > 0 {
			content[name] = prop.Default
		}
	}
	return map[string]any{"action": "accept", "content": content}, nil
}
