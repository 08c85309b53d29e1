package jsonrpc2_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"

	"github.com/mcpgen/mcpgen/generated/mcp20250618"
	"github.com/mcpgen/mcpgen/runtime/jsonrpc2"
)

// A client cancels a tools/call; the server's handler sees why, and no
// response is written for it. Each side holds its revision's generated
// Policy, whose decoder (generated from the schema) is what reads the
// notifications/cancelled.
func Example_cancellation() {
	st, ct := jsonrpc2.NewPipe()
	quiet := jsonrpc2.WithLogger(slog.New(slog.NewTextHandler(io.Discard, nil)))
	server := jsonrpc2.NewConn(st, quiet, jsonrpc2.WithPolicy(mcp20250618.Policy(jsonrpc2.SideServer)))
	client := jsonrpc2.NewConn(ct, quiet, jsonrpc2.WithPolicy(mcp20250618.Policy(jsonrpc2.SideClient)))

	started := make(chan struct{})
	why := make(chan error, 1)
	server.Handle("tools/call", func(ctx context.Context, req *jsonrpc2.Request) (any, error) {
		close(started)
		<-ctx.Done()
		why <- context.Cause(ctx)
		return map[string]string{"text": "never sent"}, nil
	})
	server.Start()
	client.Start()

	ctx, cancel := context.WithCancelCause(context.Background())
	done := make(chan error, 1)
	go func() { done <- client.Call(ctx, "tools/call", map[string]any{"name": "slow"}, nil) }()
	<-started
	cancel(errors.New("user pressed stop"))
	fmt.Println("caller:", <-done)

	var ce *jsonrpc2.CancelError
	if err := <-why; errors.As(err, &ce) {
		fmt.Println("handler:", ce.Source, "-", ce.Reason)
		fmt.Println("is context.Canceled:", errors.Is(err, context.Canceled))
	}
	client.Close(context.Background())
	server.Close(context.Background())
	// Output:
	// caller: context canceled
	// handler: peer notification - user pressed stop
	// is context.Canceled: true
}
