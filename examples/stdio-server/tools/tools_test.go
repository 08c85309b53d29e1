package tools_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/mcpgen/mcpgen/examples/stdio-server/tools"
	"github.com/mcpgen/mcpgen/generated/mcp20251125"
	mcp "github.com/mcpgen/mcpgen/generated/mcp20260728"
	"github.com/mcpgen/mcpgen/internal/testsupport/toolstest"
)

// TestNoDrift regenerates the package with the flags of generate.go's
// //go:generate line and compares it with the committed files.
func TestNoDrift(t *testing.T) { toolstest.NoDrift(t, ".") }

// stdioTools is how the stdio example implements its tools.
type stdioTools struct{}

func (stdioTools) Sleep(ctx context.Context, args *tools.SleepArgs) (*tools.SleepResult, error) {
	timer := time.NewTimer(time.Duration(args.Ms) * time.Millisecond) // validated: 0 ≤ ms ≤ a day
	defer timer.Stop()
	select {
	case <-timer.C:
		return &tools.SleepResult{SleptMs: args.Ms}, nil
	case <-ctx.Done():
		return nil, context.Cause(ctx) // dropped: a cancelled request gets no response
	}
}

func (stdioTools) Echo(_ context.Context, args *tools.EchoArgs) (*tools.EchoResult, error) {
	return &tools.EchoResult{Text: args.Text}, nil
}

func callTool(h *tools.Handler, name, args string) (*mcp.CallToolResult, error) {
	p := &mcp.CallToolRequestParams{Name: name}
	if err := json.Unmarshal([]byte(args), &p.Arguments); err != nil {
		return nil, err
	}
	return h.CallTool(context.Background(), p)
}

// Example shows a server's tools: implement tools.Tools, wrap it in a
// Handler, and serve the Handler (embedded in the server type) with the
// generated RegisterServer.
func Example() {
	h := tools.NewHandler(stdioTools{})
	for _, c := range []struct{ name, args string }{
		{"echo", `{"text":"hello"}`},
		{"sleep", `{"ms":1}`},
		{"sleep", `{"ms":-5}`},
		{"echo", `{"text":"hi","loud":true}`},
	} {
		res, err := callTool(h, c.name, c.args)
		if err != nil {
			fmt.Println("error:", err)
			continue
		}
		enc := json.NewEncoder(os.Stdout)
		enc.SetEscapeHTML(false)
		enc.Encode(res)
	}
	// Output:
	// {"content":[{"text":"hello","type":"text"}],"resultType":"complete","structuredContent":{"text":"hello"}}
	// {"content":[{"text":"slept 1 ms","type":"text"}],"resultType":"complete","structuredContent":{"sleptMs":1}}
	// {"content":[{"text":"invalid arguments for tool sleep: /arguments/ms: must be at least 0, got -5","type":"text"}],"isError":true,"resultType":"complete"}
	// {"content":[{"text":"invalid arguments for tool echo: /arguments/loud: property \"loud\" is not allowed","type":"text"}],"isError":true,"resultType":"complete"}
}

// TestModernResults: in 2026-07-28 every result carries resultType, and
// tools/list is a CacheableResult.
func TestModernResults(t *testing.T) {
	h := tools.NewHandler(stdioTools{})
	list, err := h.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if list.ResultType != "complete" || list.CacheScope != "public" || list.TTLMs != 0 || len(list.Tools) != 2 {
		t.Errorf("tools/list: %+v", list)
	}
	h.TTLMs, h.CacheScope = 60000, "private"
	list, _ = h.ListTools(context.Background(), nil)
	if list.CacheScope != "private" || list.TTLMs != 60000 {
		t.Errorf("hints not applied: %+v", list)
	}
	if list.Tools[0].Name != tools.ToolSleep || list.Tools[0].OutputSchema == nil || list.Tools[0].Annotations == nil {
		t.Errorf("first tool: %+v", list.Tools[0])
	}
	res, err := callTool(h, "echo", `{"text":"x"}`)
	if err != nil || res.ResultType != "complete" {
		t.Errorf("echo: %+v, %v", res, err)
	}
	ctx, cancel := context.WithCancelCause(context.Background())
	cause := fmt.Errorf("client gave up")
	cancel(cause)
	if _, err := h.CallTool(ctx, &mcp.CallToolRequestParams{Name: "sleep", Arguments: map[string]json.RawMessage{"ms": json.RawMessage(`10000`)}}); err != cause {
		t.Errorf("cancelled sleep: %v, want the cause", err)
	}
}

// TestLegacyHandler: the same implementation served to a 2025-11-25 client:
// no resultType, invalid arguments still an isError result (server/tools.mdx
// of 2025-11-25).
func TestLegacyHandler(t *testing.T) {
	h := tools.NewHandler20251125(stdioTools{})
	res, err := h.CallTool(context.Background(), &mcp20251125.CallToolRequestParams{Name: "echo", Arguments: map[string]json.RawMessage{"text": json.RawMessage(`"hi"`)}})
	if err != nil || string(res.StructuredContent["text"]) != `"hi"` || res.Extra["resultType"] != nil {
		t.Fatalf("echo: %+v, %v", res, err)
	}
	res, err = h.CallTool(context.Background(), &mcp20251125.CallToolRequestParams{Name: "sleep", Arguments: map[string]json.RawMessage{"ms": json.RawMessage(`1.5`)}})
	if err != nil || res.IsError == nil || !*res.IsError {
		t.Fatalf("sleep 1.5: %+v, %v", res, err)
	}
	list, err := h.ListTools(context.Background(), nil)
	if err != nil || len(list.Tools) != 2 || list.Tools[1].Name != "echo" {
		t.Fatalf("list: %+v, %v", list, err)
	}
}

// roundTrip encodes v with encoding/json, decodes it with the generated
// decoder and with encoding/json, and wants v back from both.
func roundTrip[T comparable](t *testing.T, v T, decode func([]byte) (*T, error)) {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	got, err := decode(b)
	if err != nil {
		t.Fatalf("%s rejected: %v", b, err)
	}
	if *got != v {
		t.Errorf("generated decoder: %s gave %+v", b, *got)
	}
	var std T
	if err := json.Unmarshal(b, &std); err != nil || std != v {
		t.Errorf("encoding/json: %s gave %+v, %v", b, std, err)
	}
}

// TestRoundTrip covers every generated argument and result type.
func TestRoundTrip(t *testing.T) {
	roundTrip(t, tools.SleepArgs{Ms: 0}, tools.DecodeSleepArgs)
	roundTrip(t, tools.SleepArgs{Ms: 86400000}, tools.DecodeSleepArgs)
	roundTrip(t, tools.SleepResult{SleptMs: 12}, tools.DecodeSleepResult)
	roundTrip(t, tools.EchoArgs{Text: "héllo <&> \u2028"}, tools.DecodeEchoArgs)
	roundTrip(t, tools.EchoArgs{}, tools.DecodeEchoArgs)
	roundTrip(t, tools.EchoResult{Text: "x"}, tools.DecodeEchoResult)
	for _, bad := range []string{`{"ms":86400001}`, `{"ms":-1}`, `{"ms":1.5}`, `{}`, `{"ms":1,"x":2}`, `[]`} {
		if _, err := tools.DecodeSleepArgs([]byte(bad)); err == nil {
			t.Errorf("DecodeSleepArgs accepted %s", bad)
		}
	}
}

// TestCaller: a client's typed view of the tools, here in-process.
func TestCaller(t *testing.T) {
	c := tools.NewCaller(tools.NewHandler(stdioTools{}))
	if got, err := c.Echo(context.Background(), &tools.EchoArgs{Text: "hi"}); err != nil || got.Text != "hi" {
		t.Fatalf("Echo: %+v, %v", got, err)
	}
	if got, err := c.Sleep(context.Background(), &tools.SleepArgs{Ms: 1}); err != nil || got.SleptMs != 1 {
		t.Fatalf("Sleep: %+v, %v", got, err)
	}
	var ee *tools.ExecutionError
	if _, err := c.Sleep(context.Background(), &tools.SleepArgs{Ms: -1}); !errors.As(err, &ee) {
		t.Fatalf("Sleep -1: %v, want an *ExecutionError", err)
	}
}
