package main

import (
	"context"
	"encoding/json"
	"errors"
	"testing"
	"time"

	"example.com/downstream/mcp"
	"github.com/mcpgen/mcpgen/runtime/jsonrpc2"
)

// TestGreet runs the server and a client over an in-memory pipe and calls
// the tool through the generated caller.
func TestGreet(t *testing.T) {
	ct, st := jsonrpc2.NewPipe()
	sc := jsonrpc2.NewConn(st, jsonrpc2.WithPolicy(mcp.Policy(jsonrpc2.SideServer)))
	cc := jsonrpc2.NewConn(ct, jsonrpc2.WithPolicy(mcp.Policy(jsonrpc2.SideClient)))
	mcp.RegisterServer(sc, &server{})
	sc.Start()
	cc.Start()
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		cc.Close(ctx)
		sc.Close(ctx)
	})
	srv := mcp.NewServerCaller(cc)
	ctx := context.Background()

	if _, err := srv.Ping(ctx, &mcp.PingRequestParams{}); err != nil {
		t.Fatalf("ping: %v", err)
	}
	res, err := srv.CallTool(ctx, &mcp.CallToolRequestParams{Name: "greet", Arguments: map[string]json.RawMessage{"name": json.RawMessage(`"gopher"`)}})
	if err != nil {
		t.Fatalf("tools/call: %v", err)
	}
	if len(res.Content) != 1 {
		t.Fatalf("content: %+v", res.Content)
	}
	if tc, ok := res.Content[0].(*mcp.TextContent); !ok || tc.Text != "hello, gopher" {
		t.Fatalf("greet answered %#v, want the text \"hello, gopher\"", res.Content[0])
	}
	_, err = srv.CallTool(ctx, &mcp.CallToolRequestParams{Name: "nope"})
	var rpcErr *jsonrpc2.Error
	if !errors.As(err, &rpcErr) || rpcErr.Code != -32602 {
		t.Fatalf("unknown tool: %v, want a -32602 error", err)
	}
}
