// Command http-client connects to an MCP server over Streamable HTTP,
// detecting its era (a modern request first, then initialize if the server
// is legacy), calls the sleep tool with ms=10000, cancels after 200 ms and
// reports what happened. It exits 0 when the cancellation went through.
//
//	go run ./examples/http-client http://127.0.0.1:8080/mcp
package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"time"

	flag "github.com/spf13/pflag"

	mcp20251125 "github.com/mcpgen/mcpgen/generated/mcp20251125"
	mcp20260728 "github.com/mcpgen/mcpgen/generated/mcp20260728"
	"github.com/mcpgen/mcpgen/runtime/jsonrpc2"
	"github.com/mcpgen/mcpgen/runtime/streamhttp"
)

func main() {
	flag.Usage = func() { fmt.Fprintln(os.Stderr, "usage: http-client [--era auto|legacy|modern] URL") }
	eraFlag := flag.String("era", "auto", "protocol era: auto (detect, as versioning.mdx describes), legacy or modern")
	flag.Parse()
	if flag.NArg() != 1 {
		flag.Usage()
		os.Exit(2)
	}
	var era streamhttp.Era
	switch *eraFlag {
	case "legacy":
		era = streamhttp.EraLegacy
	case "modern":
		era = streamhttp.EraModern
	case "auto":
	default:
		flag.Usage()
		os.Exit(2)
	}
	if err := run(flag.Arg(0), era, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "http-client:", err)
		os.Exit(1)
	}
}

func run(url string, era streamhttp.Era, out io.Writer) error {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	quiet := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	tr, err := streamhttp.Dial(ctx, url, streamhttp.ClientOptions{
		Era:        era,
		ClientInfo: map[string]string{"name": "mcpgen-http-client", "version": "0.1.0"},
		Logger:     quiet,
	})
	if err != nil {
		return err
	}
	pol := mcp20251125.Policy(jsonrpc2.SideClient)
	if tr.Era() == streamhttp.EraModern {
		pol = mcp20260728.Policy(jsonrpc2.SideClient)
	}
	conn := jsonrpc2.NewConn(tr, jsonrpc2.WithPolicy(pol), jsonrpc2.WithLogger(quiet))
	conn.Start()
	defer func() {
		cctx, ccancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer ccancel()
		conn.Close(cctx) // flushes a pending cancellation, then DELETEs a legacy session
	}()

	// Minimal lifecycle glue, TO BE REPLACED by the lifecycle layer
	// (Connect): initialize for a legacy server; a modern one needs none.
	if tr.Era() == streamhttp.EraLegacy {
		var init struct {
			ProtocolVersion string            `json:"protocolVersion"`
			ServerInfo      map[string]string `json:"serverInfo"`
		}
		err := conn.Call(ctx, "initialize", map[string]any{
			"protocolVersion": "2025-11-25", "capabilities": map[string]any{},
			"clientInfo": map[string]string{"name": "mcpgen-http-client", "version": "0.1.0"},
		}, &init)
		if err != nil {
			return fmt.Errorf("initialize: %w", err)
		}
		if err := conn.Notify(ctx, "notifications/initialized", nil); err != nil {
			return err
		}
		fmt.Fprintf(out, "initialized (legacy era): %s %s, protocol %s, session %s\n",
			init.ServerInfo["name"], init.ServerInfo["version"], init.ProtocolVersion, tr.SessionID())
	} else {
		fmt.Fprintln(out, "connected (modern era, protocol 2026-07-28)")
	}

	callCtx, stop := context.WithCancelCause(ctx)
	time.AfterFunc(200*time.Millisecond, func() { stop(errors.New("http-client gave up after 200ms")) })
	start := time.Now()
	var res json.RawMessage
	err = conn.Call(callCtx, "tools/call", map[string]any{"name": "sleep", "arguments": map[string]int{"ms": 10000}}, &res)
	took := time.Since(start).Round(time.Millisecond)
	switch {
	case errors.Is(err, context.Canceled):
		how := "notifications/cancelled sent"
		if tr.Era() == streamhttp.EraModern {
			how = "response stream closed"
		}
		fmt.Fprintf(out, "sleep cancelled after %s (%s): %v\n", took, how, context.Cause(callCtx))
	case err != nil:
		return fmt.Errorf("sleep: %w", err)
	default:
		return fmt.Errorf("sleep was not cancelled: %s", res)
	}
	var echo struct {
		Content []struct {
			Text string `json:"text"`
		} `json:"content"`
	}
	if err := conn.Call(ctx, "tools/call", map[string]any{"name": "echo", "arguments": map[string]string{"text": "hello from http-client"}}, &echo); err != nil {
		return fmt.Errorf("echo: %w", err)
	}
	if len(echo.Content) > 0 {
		fmt.Fprintln(out, "echo:", echo.Content[0].Text)
	}
	return nil
}
