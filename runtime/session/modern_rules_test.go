package session_test

import (
	"context"
	"encoding/json"
	"testing"

	mcp "github.com/mcpgen/mcpgen/generated/mcp20260728"
	"github.com/mcpgen/mcpgen/runtime/session"
)

// plainResults returns generated results with every optional-looking
// member left at its zero value, as a handler that knows nothing of
// caching writes them.
type plainResults struct{}

func (plainResults) ListTools(context.Context, *mcp.ListToolsRequestParams) (*mcp.ListToolsResult, error) {
	return &mcp.ListToolsResult{Tools: []mcp.Tool{}}, nil
}

func (plainResults) ListPrompts(context.Context, *mcp.ListPromptsRequestParams) (*mcp.ListPromptsResult, error) {
	return &mcp.ListPromptsResult{Prompts: []mcp.Prompt{}, CacheScope: "public", TTLMs: 5000}, nil
}

func (plainResults) Complete(context.Context, *mcp.CompleteRequestParams) (*mcp.CompleteResult, error) {
	return &mcp.CompleteResult{Completion: mcp.CompleteResultCompletion{Values: []string{}}}, nil
}

// TestModernResultDefaults: the session fills resultType, cacheScope and
// ttlMs that a modern result leaves out (session.DefaultCacheScope …) and
// keeps what the handler set; legacy results get none of them.
func TestModernResultDefaults(t *testing.T) {
	p := serve(t, newServer(nil, plainResults{}))
	for _, c := range []struct{ method, params, want string }{
		{"tools/list", `{%s}`, `{"cacheScope":"private","resultType":"complete","tools":[],"ttlMs":0}`},
		{"prompts/list", `{%s}`, `{"cacheScope":"public","prompts":[],"resultType":"complete","ttlMs":5000}`},
		{"completion/complete", `{%s,"ref":{"type":"ref/prompt","name":"p"},"argument":{"name":"a","value":"b"}}`, `{"completion":{"values":[]},"resultType":"complete"}`},
	} {
		p.send(`{"jsonrpc":"2.0","id":1,"method":%q,"params":`+c.params+`}`, c.method, modernMeta)
		got := p.recv()
		if r := str(got["result"]); r != c.want {
			t.Errorf("%s: result %s, want %s (%s)", c.method, r, c.want, str(got))
		}
	}
}

// TestModernRequestRules: a modern request without clientCapabilities is
// -32602; a method 2026-07-28 removed is -32601 even where a handler
// answers it for legacy clients; a missing client capability is -32021
// naming it.
func TestModernRequestRules(t *testing.T) {
	srv := newServer(nil, &toolServer{})
	p := serve(t, srv)
	noCaps := `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}`
	p.send(`{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{%s}}`, noCaps)
	if got := p.recv(); errCode(got) != -32602 {
		t.Errorf("no clientCapabilities: %s, want -32602", str(got))
	}
	for i, m := range []string{"ping", "logging/setLevel", "resources/subscribe"} {
		p.send(`{"jsonrpc":"2.0","id":%d,"method":%q,"params":{%s,"level":"info","uri":"x:y"}}`, 10+i, m, modernMeta)
		if got := p.recv(); errCode(got) != -32601 {
			t.Errorf("modern %s: %s, want -32601", m, str(got))
		}
	}
	// toolServer's "roots" tool asks for roots; this client declares none.
	p.send(`{"jsonrpc":"2.0","id":20,"method":"tools/call","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}},"name":"roots"}}`)
	got := p.recv()
	if errCode(got) != session.CodeMissingRequiredClientCapability || str(got["error"].(map[string]any)["data"]) != `{"requiredCapabilities":{"roots":{}}}` {
		t.Errorf("missing capability: %s, want -32021 naming roots", str(got))
	}
}

func errCode(msg map[string]any) int {
	e, _ := msg["error"].(map[string]any)
	c, _ := e["code"].(float64)
	return int(c)
}

// TestSessionListen: with a listChanged capability declared and no
// SubscriptionsListen of its own, the session serves subscriptions/listen:
// the acknowledgement first (with the filter it honours), then only the
// notifications the filter asked for, each tagged with the subscription id.
func TestSessionListen(t *testing.T) {
	srv := mcp.NewServer(session.Implementation{Name: "t", Version: "1"}, plainResults{},
		session.WithCapability("tools", json.RawMessage(`{"listChanged":true}`)),
		session.WithCapability("prompts", json.RawMessage(`{"listChanged":true}`)))
	p := serve(t, srv)
	p.send(`{"jsonrpc":"2.0","id":"sub","method":"subscriptions/listen","params":{%s,"notifications":{"toolsListChanged":true,"resourcesListChanged":true}}}`, modernMeta)
	if got := str(p.recv()); got != `{"jsonrpc":"2.0","method":"notifications/subscriptions/acknowledged","params":{"_meta":{"io.modelcontextprotocol/subscriptionId":"sub"},"notifications":{"toolsListChanged":true}}}` {
		t.Fatalf("acknowledgement: %s", got)
	}
	// The stream is registered once acknowledged: a prompts change is
	// filtered out, a tools change delivered. Notifications on one
	// connection keep their order, so the tools one arriving first shows
	// the prompts one was never sent.
	if err := srv.NotifyListChanged("prompts"); err != nil {
		t.Fatal(err)
	}
	if err := srv.NotifyListChanged("tools"); err != nil {
		t.Fatal(err)
	}
	if got := str(p.recv()); got != `{"jsonrpc":"2.0","method":"notifications/tools/list_changed","params":{"_meta":{"io.modelcontextprotocol/subscriptionId":"sub"}}}` {
		t.Errorf("change: %s", got)
	}
	if err := srv.NotifyListChanged("nope"); err == nil {
		t.Error("unknown kind accepted")
	}
	// The client ends the subscription (on stdio: notifications/cancelled).
	p.send(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"sub"}}`)
}

// TestNotifyListChangedLegacy: a live legacy session hears list changes
// too (on stdio, its one stream).
func TestNotifyListChangedLegacy(t *testing.T) {
	srv := mcp.NewServer(session.Implementation{Name: "t", Version: "1"}, plainResults{},
		session.WithLegacy(legacyRevisions...),
		session.WithCapability("tools", json.RawMessage(`{"listChanged":true}`)))
	p := serve(t, srv)
	p.send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"raw","version":"0"}}}`)
	if got := p.recv(); got["result"] == nil {
		t.Fatalf("initialize: %s", str(got))
	}
	if err := srv.NotifyListChanged("tools"); err != nil {
		t.Fatal(err)
	}
	if got := str(p.recv()); got != `{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}` {
		t.Errorf("legacy change: %s", got)
	}
}
