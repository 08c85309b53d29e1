// Package interop runs mcpgen's stdio programs against other MCP
// implementations as real subprocesses: the official Go SDK's client
// (v1.8, which probes server/discover) against examples/stdio-server, and
// mcpgen's dual-era client against the TypeScript SDK's server (legacy).
// It is its own module so that the main module never depends on them.
package interop

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpgen/mcpgen/generated/mcp20241105"
	"github.com/mcpgen/mcpgen/generated/mcp20250326"
	"github.com/mcpgen/mcpgen/generated/mcp20250618"
	"github.com/mcpgen/mcpgen/generated/mcp20251125"
	mcp "github.com/mcpgen/mcpgen/generated/mcp20260728"
	"github.com/mcpgen/mcpgen/runtime/jsonrpc2"
	"github.com/mcpgen/mcpgen/runtime/session"
)

var serverBin string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "mcpgen-interop")
	if err != nil {
		panic(err)
	}
	serverBin = filepath.Join(dir, "stdio-server")
	build := exec.Command("go", "build", "-o", serverBin, "github.com/mcpgen/mcpgen/examples/stdio-server")
	build.Stdout, build.Stderr = os.Stderr, os.Stderr
	if err := build.Run(); err != nil {
		panic("building examples/stdio-server: " + err.Error())
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// goSDKSession connects the Go SDK's client to our example server.
func goSDKSession(t *testing.T, version string) *sdk.ClientSession {
	t.Helper()
	client := sdk.NewClient(&sdk.Implementation{Name: "go-sdk-interop", Version: "1.8.0"}, nil)
	cmd := exec.Command(serverBin)
	cmd.Stderr = io.Discard
	var opts *sdk.ClientSessionOptions
	if version != "" {
		opts = &sdk.ClientSessionOptions{ProtocolVersion: version}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	cs, err := client.Connect(ctx, &sdk.CommandTransport{Command: cmd}, opts)
	if err != nil {
		t.Fatalf("go-sdk Connect: %v", err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

func checkGoSDKTools(t *testing.T, cs *sdk.ClientSession) {
	t.Helper()
	ctx := context.Background()
	tools, err := cs.ListTools(ctx, nil)
	if err != nil || len(tools.Tools) != 2 {
		t.Fatalf("tools/list: %+v %v", tools, err)
	}
	res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "echo", Arguments: map[string]any{"text": "hi"}})
	if err != nil || len(res.Content) != 1 || res.Content[0].(*sdk.TextContent).Text != "hi" {
		t.Fatalf("echo: %+v %v", res, err)
	}
	// A cancelled call, then the session goes on.
	cctx, cancel := context.WithTimeout(ctx, 200*time.Millisecond)
	defer cancel()
	start := time.Now()
	if _, err := cs.CallTool(cctx, &sdk.CallToolParams{Name: "sleep", Arguments: map[string]any{"ms": 10000}}); err == nil {
		t.Fatal("sleep: want an error after cancelling")
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("cancelled sleep took %v", d)
	}
	if _, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "echo", Arguments: map[string]any{"text": "again"}}); err != nil {
		t.Fatalf("echo after the cancel: %v", err)
	}
}

// TestGoSDKClientModern: go-sdk v1.8 probes server/discover, which our
// dual-era server answers, so it speaks 2026-07-28.
func TestGoSDKClientModern(t *testing.T) {
	cs := goSDKSession(t, "")
	init := cs.InitializeResult()
	if init.ProtocolVersion != "2026-07-28" || init.ServerInfo == nil || init.ServerInfo.Name != "mcpgen-stdio-server" {
		t.Fatalf("initialize result %+v", init)
	}
	checkGoSDKTools(t, cs)
}

// TestGoSDKClientLegacy: forced to 2025-11-25, go-sdk sends initialize and
// our server negotiates that version.
func TestGoSDKClientLegacy(t *testing.T) {
	cs := goSDKSession(t, "2025-11-25")
	if v := cs.InitializeResult().ProtocolVersion; v != "2025-11-25" {
		t.Fatalf("protocol %s", v)
	}
	checkGoSDKTools(t, cs)
}

// TestClientAgainstTSServer: our dual-era client probes the TypeScript
// SDK's server, finds it legacy, falls back to initialize, and calls and
// cancels tools through the newest package's types.
func TestClientAgainstTSServer(t *testing.T) {
	if _, err := os.Stat("node_modules/@modelcontextprotocol/sdk"); err != nil {
		t.Fatal("node_modules missing: run scripts/suites/30-interop-stdio.sh, which installs the TypeScript SDK")
	}
	cmd := exec.Command("node", "ts-server.mjs")
	cmd.Stderr = os.Stderr
	in, _ := cmd.StdinPipe()
	out, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	tr := jsonrpc2.NewStdioTransport(struct{ io.Reader }{out}, in, jsonrpc2.StdioOptions{})
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	s, err := mcp.Connect(ctx, tr, session.Implementation{Name: "mcpgen-interop", Version: "0"}, nil,
		session.WithClientLegacy(mcp20251125.Revision(), mcp20250618.Revision(), mcp20250326.Revision(), mcp20241105.Revision()),
		session.WithProbeTimeout(5*time.Second))
	if err != nil {
		t.Fatalf("Connect: %v", err)
	}
	defer func() {
		s.Close(context.Background())
		if err := cmd.Wait(); err != nil {
			t.Errorf("TS server exit: %v", err)
		}
	}()
	if s.Modern() || s.ServerInfo().Name != "ts-reference" {
		t.Fatalf("modern %v version %s info %+v", s.Modern(), s.ProtocolVersion(), s.ServerInfo())
	}
	t.Logf("TS server: legacy, protocol %s", s.ProtocolVersion())
	l, err := s.ListTools(ctx, &mcp.PaginatedRequestParams{})
	if err != nil || len(l.Tools) != 2 {
		t.Fatalf("tools/list: %+v %v", l, err)
	}
	res, err := s.CallTool(ctx, &mcp.CallToolRequestParams{Name: "echo", Arguments: map[string]json.RawMessage{"text": json.RawMessage(`"hi"`)}})
	if err != nil || res.Content[0].(*mcp.TextContent).Text != "hi" {
		t.Fatalf("echo: %+v %v", res, err)
	}
	cctx, ccancel := context.WithTimeout(ctx, 200*time.Millisecond)
	defer ccancel()
	if _, err := s.CallTool(cctx, &mcp.CallToolRequestParams{Name: "sleep", Arguments: map[string]json.RawMessage{"ms": json.RawMessage(`10000`)}}); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("cancelled sleep: %v", err)
	}
	if _, err := s.CallTool(ctx, &mcp.CallToolRequestParams{Name: "echo", Arguments: map[string]json.RawMessage{"text": json.RawMessage(`"again"`)}}); err != nil {
		t.Fatalf("echo after the cancel: %v", err)
	}
}
