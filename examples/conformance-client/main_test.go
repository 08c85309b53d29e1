package main

import (
	"context"
	"encoding/json"
	"net/http/httptest"
	"reflect"
	"testing"
	"time"

	mcp20251125 "github.com/mcpgen/mcpgen/generated/mcp20251125"
	mcp "github.com/mcpgen/mcpgen/generated/mcp20260728"
	"github.com/mcpgen/mcpgen/runtime/session"
	"github.com/mcpgen/mcpgen/runtime/streamhttp"
)

// tools is a dual-era mcpgen server's tool set: one tool with a string
// parameter mirrored into a header, whose calls are reported.
type tools struct{ called chan string }

func (s tools) ListTools(ctx context.Context, _ *mcp.PaginatedRequestParams) (*mcp.ListToolsResult, error) {
	return &mcp.ListToolsResult{Tools: []mcp.Tool{{Name: "geo", InputSchema: mcp.ToolInputSchema{Extra: map[string]json.RawMessage{
		"properties": json.RawMessage(`{"region":{"type":"string","x-mcp-header":"Region"}}`),
	}}}}}, nil
}

func (s tools) CallTool(ctx context.Context, p *mcp.CallToolRequestParams) (*mcp.CallToolResult, error) {
	s.called <- session.ProtocolVersion(ctx) + " " + string(p.Arguments["region"])
	return mcp.TextResult("ok"), nil
}

// The client follows the version it is given (and detects one without),
// against mcpgen's own HTTP server, and calls the listed tool with
// arguments made from its schema.
func TestRunFollowsVersion(t *testing.T) {
	called := make(chan string, 4)
	srv := mcp.NewServer(session.Implementation{Name: "s", Version: "0"}, tools{called},
		session.WithLegacy(mcp20251125.Revision()))
	h := streamhttp.NewHandler(srv, streamhttp.Options{})
	hs := httptest.NewServer(h)
	defer func() {
		hs.CloseClientConnections()
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		h.Close(ctx)
		hs.Close()
	}()
	for _, tc := range []struct{ version, want string }{
		{"2026-07-28", `2026-07-28 "test"`},
		{"2025-11-25", `2025-11-25 "test"`},
		{"", `2026-07-28 "test"`},
	} {
		if err := run(config{url: hs.URL, scenario: "tools_call", version: tc.version}); err != nil {
			t.Fatalf("version %q: %v", tc.version, err)
		}
		if got := <-called; got != tc.want {
			t.Errorf("version %q: the tool saw %s, want %s", tc.version, got, tc.want)
		}
	}
}

// TestElicitDefaults: the defaults of elicitation-sep1034-client-defaults
// are all answered, the fractional number too (ElicitResultContentValueNumber,
// from the schema erratum), each written back as given.
func TestElicitDefaults(t *testing.T) {
	var p mcp.ElicitRequestFormParams
	if err := json.Unmarshal([]byte(`{"mode":"form","message":"m","requestedSchema":{"type":"object","properties":{
		"name":{"type":"string","default":"John Doe"},
		"age":{"type":"integer","default":30},
		"score":{"type":"number","default":95.5},
		"verified":{"type":"boolean","default":true}}}}`), &p); err != nil {
		t.Fatal(err)
	}
	res, err := handler{}.Elicit(context.Background(), &p)
	if err != nil {
		t.Fatal(err)
	}
	if got, ok := res.Content["score"].(mcp.ElicitResultContentValueNumber); !ok || got != 95.5 {
		t.Errorf("score = %#v, want ElicitResultContentValueNumber(95.5)", res.Content["score"])
	}
	out, err := json.Marshal(res)
	if err != nil {
		t.Fatal(err)
	}
	var back struct {
		Content map[string]any `json:"content"`
	}
	if err := json.Unmarshal(out, &back); err != nil {
		t.Fatal(err)
	}
	want := map[string]any{"name": "John Doe", "age": 30.0, "score": 95.5, "verified": true}
	if !reflect.DeepEqual(back.Content, want) {
		t.Errorf("content %s, want %v", out, want)
	}
}
