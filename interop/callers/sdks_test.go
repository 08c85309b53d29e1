package callers

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	mcp "github.com/mcpgen/mcpgen/generated/mcp20260728"
	"github.com/mcpgen/mcpgen/runtime/toolsupport"

	"github.com/mcpgen/mcpgen/interop/callers/gen/gosdk"
	"github.com/mcpgen/mcpgen/interop/callers/gen/tssdk"
)

// TestGoSDK calls every tool of cmd/gosdkserver, a go-sdk server whose
// schemas jsonschema-go inferred from Go structs (nullable slices and
// pointers, nested structs, a map).
func TestGoSDK(t *testing.T) {
	c := gosdk.NewCaller(connect(t, "gosdk"))
	if r, err := c.Add(ctx(t), &gosdk.AddArgs{A: 2, B: 40}); err != nil || r.Sum != 42 {
		t.Errorf("add: %+v %v", r, err)
	}
	r, err := c.Order(ctx(t), &gosdk.OrderArgs{Customer: "c", Note: ptr("n"), Items: []gosdk.OrderArgsItemsItem{
		{Sku: "a", Quantity: 2, Price: ptr(1.5)}, {Sku: "b", Quantity: 1, Price: ptr(2.0)},
	}, Tags: map[string]json.RawMessage{"k": json.RawMessage(`"v"`)}})
	if err != nil || r.Lines != 2 || r.Total != 5 {
		t.Errorf("order: %+v %v", r, err)
	}
	if res, err := c.Shout(ctx(t), &gosdk.ShoutArgs{Text: "hi"}); err != nil || text(res) != "HI" {
		t.Errorf("shout: %q %v", text(res), err)
	}
	// Rejected: the tool's own error, and a value of the wrong type where
	// the schema leaves it raw (a tag's value must be a string: the map's
	// members are checked against the published additionalProperties
	// schema before anything is sent).
	_, err = c.Order(ctx(t), &gosdk.OrderArgs{Customer: "c", Items: []gosdk.OrderArgsItemsItem{}})
	rejected(t, "order without items", err, new(*gosdk.ExecutionError))
	_, err = c.Order(ctx(t), &gosdk.OrderArgs{Customer: "c", Items: []gosdk.OrderArgsItemsItem{{Sku: "a", Quantity: 1}}, Tags: map[string]json.RawMessage{"k": json.RawMessage(`7`)}})
	rawRejected(t, "order with a number as a tag", err, "/tags/k", "want string")
}

// rawRejected checks the error of a call whose raw-JSON argument the
// server's published schema rejects: a *toolsupport.ValidationError (each
// generated package's ValidationError) at ptr, from the Caller, before a
// round trip.
func rawRejected(t *testing.T, what string, err error, ptr, msg string) {
	t.Helper()
	var ve *toolsupport.ValidationError
	if !errors.As(err, &ve) || ve.Pointer != ptr || !strings.Contains(ve.Message, msg) {
		t.Errorf("%s: %T %v, want a *ValidationError at %s containing %q", what, err, err, ptr, msg)
	}
}

// TestTSSDK calls every tool and the prompt of ts-server.mjs, a TypeScript
// SDK server with zod schemas (a union, nullable members, an enum, an
// output schema).
func TestTSSDK(t *testing.T) {
	sess := connect(t, "tssdk")
	c := tssdk.NewCaller(sess)
	if res, err := c.Concat(ctx(t), &tssdk.ConcatArgs{Parts: []string{"a", "b"}, Sep: ptr("-")}); err != nil || text(res) != "a-b" {
		t.Errorf("concat: %q %v", text(res), err)
	}
	s, err := c.Stats(ctx(t), &tssdk.StatsArgs{Values: []float64{1, 2, 4}, Round: ptr(tssdk.StatsArgsRoundInt)})
	if err != nil || s.Count != 3 || s.Sum != 7 || string(s.Mean) != "2" {
		t.Errorf("stats: %+v %v", s, err)
	}
	if s, err := c.Stats(ctx(t), &tssdk.StatsArgs{Values: []float64{}}); err != nil || string(s.Mean) != "null" {
		t.Errorf("stats of nothing (a null mean): %+v %v", s, err)
	}
	if res, err := c.Describe(ctx(t), &tssdk.DescribeArgs{Value: json.RawMessage(`3`), Label: ptr("n")}); err != nil || !strings.Contains(text(res), "n: number 3") {
		t.Errorf("describe: %q %v", text(res), err)
	}
	if _, err := tssdk.NewPromptCaller(sess).Greet(ctx(t), &tssdk.GreetPromptArgs{Name: "Ada"}); err != nil {
		t.Errorf("greet: %v", err)
	}
	_, err = c.Concat(ctx(t), &tssdk.ConcatArgs{Parts: []string{}})
	rejected(t, "concat of no parts (minItems 1)", err, new(*tssdk.ExecutionError))
	_, err = c.Describe(ctx(t), &tssdk.DescribeArgs{Value: json.RawMessage(`true`)})
	rawRejected(t, "describe a boolean (string or number)", err, "/value", "want string or number, got boolean")
	// The server's own check of the same value, for comparison: a call
	// that bypasses the Caller's check gets the server's refusal.
	res, err := sess.CallTool(ctx(t), &mcp.CallToolRequestParams{Name: tssdk.ToolDescribe, Arguments: map[string]json.RawMessage{"value": json.RawMessage(`true`)}})
	if err == nil && (res.IsError == nil || !*res.IsError) {
		t.Errorf("describe a boolean, sent anyway: the server accepted it: %+v", res)
	}
	// A raw member of a structured result is checked too: a mean that is
	// neither a number nor null.
	if _, err := tssdk.DecodeStatsResult([]byte(`{"count":1,"sum":1,"mean":"x"}`)); err == nil || !strings.Contains(err.Error(), "/mean: want number or null") {
		t.Errorf("a string mean decoded: %v", err)
	}
}
