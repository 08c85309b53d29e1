package session_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/mcpgen/mcpgen/generated/mcp20251125"
	mcp "github.com/mcpgen/mcpgen/generated/mcp20260728"
	"github.com/mcpgen/mcpgen/runtime/cluster"
	"github.com/mcpgen/mcpgen/runtime/jsonrpc2"
	"github.com/mcpgen/mcpgen/runtime/session"
)

// versionTool answers tools/call with the request's protocol version and
// client capabilities, as the session sees them.
type versionTool struct{}

func (versionTool) CallTool(ctx context.Context, _ *mcp.CallToolRequestParams) (*mcp.CallToolResult, error) {
	return mcp.TextResult(session.ProtocolVersion(ctx)), nil
}

// adopt serves an adopted legacy session of srv on a pipe.
func adopt(t *testing.T, srv *session.Server, st session.LegacyState) *rawPeer {
	t.Helper()
	a, b := jsonrpc2.NewPipe()
	conn, err := srv.Adopt(context.Background(), a, st)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		b.Close()
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = conn.Close(ctx)
	})
	return &rawPeer{t: t, tr: b}
}

// TestAdopt: an adopted legacy session serves requests in the recorded
// state without an initialize; a version the server does not serve is
// refused.
func TestAdopt(t *testing.T) {
	srv := newServer(nil, versionTool{})
	if _, err := srv.Adopt(context.Background(), nil, session.LegacyState{Version: "2026-07-28"}); err == nil {
		t.Fatal("adopted a session of a modern version")
	}
	p := adopt(t, srv, session.LegacyState{Version: "2025-06-18", ClientCapabilities: json.RawMessage(`{}`)})
	p.send(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"v","arguments":{}}}`)
	if got := str(p.recv()); !strings.Contains(got, `"text":"2025-06-18"`) {
		t.Fatalf("tools/call on an adopted session: %s", got)
	}
	p.send(`{"jsonrpc":"2.0","id":2,"method":"ping"}`)
	if got := str(p.recv()); !strings.Contains(got, `"result":{}`) {
		t.Fatalf("ping: %s", got)
	}
}

// TestWithBus: a change raised on one server reaches the legacy sessions of
// another on the same bus, and each server delivers its own changes once.
func TestWithBus(t *testing.T) {
	bus := cluster.NewMemoryBus()
	defer bus.Close()
	mk := func() *session.Server {
		return mcp.NewServer(session.Implementation{Name: "t", Version: "1"}, versionTool{},
			session.WithLegacy(legacyRevisions...), session.WithBus(bus),
			session.WithCapability("tools", json.RawMessage(`{"listChanged":true}`)))
	}
	a, b := mk(), mk()
	pa := adopt(t, a, session.LegacyState{Version: "2025-11-25"})
	pb := adopt(t, b, session.LegacyState{Version: "2025-11-25"})
	_ = a.NotifyListChanged("tools")
	_ = b.NotifyListChanged("prompts")
	for name, p := range map[string]*rawPeer{"a": pa, "b": pb} {
		if got := str(p.recv()); !strings.Contains(got, "notifications/tools/list_changed") {
			t.Fatalf("%s first got %s", name, got)
		}
		if got := str(p.recv()); !strings.Contains(got, "notifications/prompts/list_changed") {
			t.Fatalf("%s then got %s, want prompts", name, got)
		}
	}
	// A duplicate of either would come before this one.
	_ = a.NotifyListChanged("resources")
	for name, p := range map[string]*rawPeer{"a": pa, "b": pb} {
		if got := str(p.recv()); !strings.Contains(got, "notifications/resources/list_changed") {
			t.Fatalf("%s got %s, want resources (each change once)", name, got)
		}
	}
}

// subscriber accepts legacy resources/subscribe and unsubscribe.
type subscriber struct{}

func (subscriber) Subscribe(context.Context, *mcp20251125.SubscribeRequestParams) (*mcp20251125.EmptyResult, error) {
	return &mcp20251125.EmptyResult{}, nil
}

func (subscriber) Unsubscribe(context.Context, *mcp20251125.UnsubscribeRequestParams) (*mcp20251125.EmptyResult, error) {
	return &mcp20251125.EmptyResult{}, nil
}

// TestWithBusLegacySubscriptions: with WithBus the session tracks legacy
// resources/subscribe; resources/updated raised on one server reaches the
// subscribed legacy sessions of every server (an adopted one included),
// once, and not the others.
func TestWithBusLegacySubscriptions(t *testing.T) {
	bus := cluster.NewMemoryBus()
	defer bus.Close()
	mk := func() *session.Server {
		return mcp20251125.NewServer(session.Implementation{Name: "t", Version: "1"}, subscriber{}, session.WithBus(bus))
	}
	a, b := mk(), mk()
	pa := adopt(t, a, session.LegacyState{Version: "2025-11-25", ResourceSubscriptions: []string{"file:///x"}})
	pb := adopt(t, b, session.LegacyState{Version: "2025-11-25"})
	pb.send(`{"jsonrpc":"2.0","id":1,"method":"resources/subscribe","params":{"uri":"file:///y"}}`)
	if got := str(pb.recv()); !strings.Contains(got, `"result"`) {
		t.Fatalf("subscribe: %s", got)
	}
	_ = b.NotifyResourceUpdated("file:///x") // a's session only
	_ = a.NotifyResourceUpdated("file:///y") // b's session only
	if got := str(pa.recv()); !strings.Contains(got, `"uri":"file:///x"`) {
		t.Fatalf("a got %s", got)
	}
	if got := str(pb.recv()); !strings.Contains(got, `"uri":"file:///y"`) {
		t.Fatalf("b got %s", got)
	}
	pb.send(`{"jsonrpc":"2.0","id":2,"method":"resources/unsubscribe","params":{"uri":"file:///y"}}`)
	if got := str(pb.recv()); !strings.Contains(got, `"result"`) {
		t.Fatalf("unsubscribe: %s", got)
	}
	_ = a.NotifyResourceUpdated("file:///y") // nobody now
	_ = a.NotifyListChanged("tools")         // a marker: anything before it is a stray
	if got := str(pb.recv()); !strings.Contains(got, "list_changed") {
		t.Fatalf("b got %s after unsubscribing", got)
	}
	if got := str(pa.recv()); !strings.Contains(got, "list_changed") {
		t.Fatalf("a got %s, want only the marker", got)
	}
}
