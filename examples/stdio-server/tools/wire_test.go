package tools_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"sync"
	"testing"
	"time"

	"github.com/mcpgen/mcpgen/examples/stdio-server/tools"
	"github.com/mcpgen/mcpgen/generated/mcp20251125"
	"github.com/mcpgen/mcpgen/runtime/jsonrpc2"
)

// progressTools is stdioTools whose sleep reports progress, with today's
// runtime API (the token from the request, NotifyProgress on the Conn).
type progressTools struct {
	stdioTools
	conn *jsonrpc2.Conn
}

func (p *progressTools) Sleep(ctx context.Context, args *tools.SleepArgs) (*tools.SleepResult, error) {
	if req, ok := jsonrpc2.RequestFromContext(ctx); ok {
		if tok, ok := req.ProgressToken(); ok {
			total := float64(args.Ms)
			p.conn.NotifyProgress(ctx, jsonrpc2.ProgressParams{ProgressToken: tok, Progress: 0, Total: &total, Message: "sleeping"})
		}
	}
	return p.stdioTools.Sleep(ctx, args)
}

// legacyServer is how a server wires the generated tools in: embed the
// Handler (tools/list, tools/call; everything else -32601) and write the
// methods the tools do not cover.
type legacyServer struct {
	*tools.Handler20251125
}

func (legacyServer) Ping(context.Context, *mcp20251125.RequestParams) (*mcp20251125.EmptyResult, error) {
	return &mcp20251125.EmptyResult{}, nil
}

// TestWire serves the tools of the stdio example to a 2025-11-25 client
// over an in-memory pipe: a typed call, its progress, a cancelled call, and
// invalid arguments.
func TestWire(t *testing.T) {
	quiet := jsonrpc2.WithLogger(slog.New(slog.NewTextHandler(io.Discard, nil)))
	a, b := jsonrpc2.NewPipe()
	srv := jsonrpc2.NewConn(a, jsonrpc2.WithPolicy(mcp20251125.Policy(jsonrpc2.SideServer)), quiet)
	impl := &progressTools{conn: srv}
	mcp20251125.RegisterServer(srv, legacyServer{tools.NewHandler20251125(impl)})
	cli := jsonrpc2.NewConn(b, jsonrpc2.WithPolicy(mcp20251125.Policy(jsonrpc2.SideClient)), quiet)
	srv.Start()
	cli.Start()
	defer func() {
		cli.Close(context.Background())
		srv.Close(context.Background())
	}()

	var mu sync.Mutex
	var progress []jsonrpc2.ProgressParams
	caller := mcp20251125.NewServerCaller(cli, jsonrpc2.WithProgress(func(p jsonrpc2.ProgressParams) {
		mu.Lock()
		progress = append(progress, p)
		mu.Unlock()
	}))
	ctx := context.Background()
	if _, err := caller.Ping(ctx, &mcp20251125.RequestParams{}); err != nil {
		t.Fatalf("ping: %v", err)
	}
	res, err := caller.CallTool(ctx, &mcp20251125.CallToolRequestParams{Name: tools.ToolSleep, Arguments: map[string]json.RawMessage{"ms": json.RawMessage(`5`)}})
	if err != nil || string(res.StructuredContent["sleptMs"]) != "5" {
		t.Fatalf("sleep: %+v, %v", res, err)
	}
	mu.Lock()
	if len(progress) != 1 || progress[0].Message != "sleeping" {
		t.Errorf("progress: %+v", progress)
	}
	mu.Unlock()

	cctx, cancel := context.WithTimeout(ctx, 50*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err = caller.CallTool(cctx, &mcp20251125.CallToolRequestParams{Name: tools.ToolSleep, Arguments: map[string]json.RawMessage{"ms": json.RawMessage(`60000`)}})
	if !errors.Is(err, context.DeadlineExceeded) || time.Since(start) > 5*time.Second {
		t.Errorf("cancelled sleep: %v after %v", err, time.Since(start))
	}

	res, err = caller.CallTool(ctx, &mcp20251125.CallToolRequestParams{Name: tools.ToolEcho, Arguments: map[string]json.RawMessage{"text": json.RawMessage(`7`)}})
	if err != nil || res.IsError == nil || !*res.IsError {
		t.Fatalf("echo 7: %+v, %v", res, err)
	}
	if _, err := caller.Initialize(ctx, &mcp20251125.InitializeRequestParams{ProtocolVersion: "2025-11-25"}); err == nil {
		t.Error("initialize answered: the Handler alone should leave it -32601")
	}
}
