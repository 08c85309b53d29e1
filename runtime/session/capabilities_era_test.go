package session_test

import (
	"encoding/json"
	"testing"

	mcp "github.com/mcpgen/mcpgen/generated/mcp20260728"
	"github.com/mcpgen/mcpgen/runtime/session"
)

// TestEraCapabilities: WithLegacyCapability declares a capability in
// initialize to legacy clients of the revisions its predicate accepts
// (those with CoreTasks: not to older ones, not in server/discover); WithExtension declares an extension in
// server/discover's capabilities.extensions only, beside WithCapability's.
func TestEraCapabilities(t *testing.T) {
	newSrv := func() *session.Server {
		return mcp.NewServer(session.Implementation{Name: "test", Version: "1"}, &toolServer{},
			session.WithLegacy(legacyRevisions...),
			session.WithLegacyCapability("tasks", json.RawMessage(`{"cancel":{}}`), func(r session.Revision) bool { return r.CoreTasks }),
			session.WithExtension("io.example/x", json.RawMessage(`{}`)),
			session.WithCapability("extensions", json.RawMessage(`{"io.example/y":{"v":1}}`)))
	}
	caps := func(m map[string]any) map[string]any {
		res, _ := m["result"].(map[string]any)
		c, _ := res["capabilities"].(map[string]any)
		return c
	}
	for version, wantTasks := range map[string]bool{"2025-11-25": true, "2025-06-18": false} {
		p := serve(t, newSrv())
		p.send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":%q,"capabilities":{},"clientInfo":{"name":"raw","version":"0"}}}`, version)
		c := caps(p.recv())
		if _, got := c["tasks"]; got != wantTasks {
			t.Errorf("%s: tasks capability %v, want %v (%v)", version, got, wantTasks, c)
		}
		if ext, _ := c["extensions"].(map[string]any); ext["io.example/x"] != nil {
			t.Errorf("%s: a modern extension in initialize: %v", version, c)
		}
	}
	p := serve(t, newSrv())
	p.send(`{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`)
	c := caps(p.recv())
	ext, _ := c["extensions"].(map[string]any)
	if c["tasks"] != nil || ext["io.example/x"] == nil || ext["io.example/y"] == nil {
		t.Errorf("server/discover capabilities %v: want both extensions and no tasks", c)
	}
}
