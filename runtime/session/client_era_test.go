package session_test

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcpgen/mcpgen/generated/mcp20251125"
	mcp "github.com/mcpgen/mcpgen/generated/mcp20260728"
	"github.com/mcpgen/mcpgen/runtime/jsonrpc2"
	"github.com/mcpgen/mcpgen/runtime/session"
)

// legacyCapable is a pipe end that, like streamhttp.ClientTransport, says
// which legacy versions it speaks.
type legacyCapable struct{ jsonrpc2.Transport }

func (legacyCapable) LegacyVersions() []string { return []string{"2025-11-25", "2025-06-18"} }

// TestConnectFallbackByTransport: bindings of the modern revision, with no
// WithClientLegacy, fall back to a legacy version their transport speaks
// (session.LegacyFallback), and calls work under the modern types.
func TestConnectFallbackByTransport(t *testing.T) {
	srv := mcp20251125.NewServer(session.Implementation{Name: "old", Version: "0"}, legacyTools{})
	a, b := jsonrpc2.NewPipe()
	done := make(chan error, 1)
	go func() { done <- srv.Serve(context.Background(), a) }()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	s, err := mcp.Connect(ctx, legacyCapable{b}, session.Implementation{Name: "client", Version: "2"}, nil, session.WithProbeTimeout(time.Second))
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		s.Close(context.Background())
		<-done
	}()
	if s.ProtocolVersion() != "2025-11-25" || s.Modern() {
		t.Fatalf("version %s modern %v", s.ProtocolVersion(), s.Modern())
	}
	r, err := s.CallTool(ctx, &mcp.CallToolRequestParams{Name: "x"})
	if err != nil || text(t, r) != "legacy 2025-11-25" {
		t.Fatalf("call: %v %v", r, err)
	}
	// Without the fallback the same client speaks only its own revision.
	a2, b2 := jsonrpc2.NewPipe()
	go func() { done <- srv.Serve(context.Background(), a2) }()
	if _, err := mcp.Connect(ctx, legacyCapable{b2}, session.Implementation{Name: "client", Version: "2"}, nil,
		session.WithProbeTimeout(time.Second), session.WithoutLegacyFallback()); err == nil {
		t.Fatal("connected to a legacy server without any legacy revision")
	}
	b2.Close()
	<-done
}

// TestVersionRetry: a modern request refused with -32022 is sent again,
// once, at a version the error lists, and the caller gets that answer.
func TestVersionRetry(t *testing.T) {
	a, b := jsonrpc2.NewPipe()
	server := jsonrpc2.NewConn(a, jsonrpc2.WithPolicy(mcp.Policy(jsonrpc2.SideServer)), jsonrpc2.WithLogger(slog.New(slog.NewTextHandler(io.Discard, nil))))
	var refused atomic.Bool
	retried := make(chan string, 1)
	server.Handle("server/discover", func(ctx context.Context, r *jsonrpc2.Request) (any, error) {
		return json.RawMessage(`{"resultType":"complete","supportedVersions":["2026-07-28"],"capabilities":{"tools":{}},"cacheScope":"public","ttlMs":0}`), nil
	})
	server.Handle("tools/call", func(ctx context.Context, r *jsonrpc2.Request) (any, error) {
		if !refused.Swap(true) {
			return nil, &jsonrpc2.Error{Code: session.CodeUnsupportedProtocolVersion, Message: "Unsupported protocol version",
				Data: json.RawMessage(`{"supported":["2026-07-28"],"requested":"2026-07-28"}`)}
		}
		var p struct {
			Meta map[string]json.RawMessage `json:"_meta"`
		}
		_ = json.Unmarshal(r.Params, &p)
		retried <- string(p.Meta[session.MetaProtocolVersion])
		return json.RawMessage(`{"resultType":"complete","content":[{"type":"text","text":"second"}]}`), nil
	})
	server.Start()
	defer server.Close(context.Background())
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	s, err := mcp.Connect(ctx, b, session.Implementation{Name: "client", Version: "2"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close(context.Background())
	r, err := s.CallTool(ctx, &mcp.CallToolRequestParams{Name: "x"})
	if err != nil || text(t, r) != "second" {
		t.Fatalf("call: %v %v", r, err)
	}
	if v := <-retried; v != `"2026-07-28"` {
		t.Fatalf("retry carried version %s", v)
	}
}

// TestProbeAnsweredLate: a server that answers server/discover only after
// the probe gave up (here: once initialize arrived) leaves the probe's
// read outstanding. The Conn's read loop must take that read's message
// (the late answer, dropped as unknown) before reading the transport
// itself; two readers of the one pipe would lose initialize's answer.
func TestProbeAnsweredLate(t *testing.T) {
	a, b := jsonrpc2.NewPipe()
	server := jsonrpc2.NewConn(a, jsonrpc2.WithPolicy(mcp20251125.Policy(jsonrpc2.SideServer)), jsonrpc2.WithLogger(slog.New(slog.NewTextHandler(io.Discard, nil))))
	initSeen := make(chan struct{})
	server.Handle("server/discover", func(ctx context.Context, r *jsonrpc2.Request) (any, error) {
		<-initSeen
		return nil, &jsonrpc2.Error{Code: jsonrpc2.CodeMethodNotFound, Message: "Method not found"}
	})
	server.Handle("initialize", func(ctx context.Context, r *jsonrpc2.Request) (any, error) {
		close(initSeen)
		return json.RawMessage(`{"protocolVersion":"2025-11-25","capabilities":{"tools":{}},"serverInfo":{"name":"late","version":"0"}}`), nil
	})
	server.Handle("tools/call", func(ctx context.Context, r *jsonrpc2.Request) (any, error) {
		return json.RawMessage(`{"content":[{"type":"text","text":"answered"}]}`), nil
	})
	server.Start()
	defer server.Close(context.Background())
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	s, err := mcp.Connect(ctx, legacyCapable{b}, session.Implementation{Name: "client", Version: "2"}, nil, session.WithProbeTimeout(20*time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close(context.Background())
	if s.Modern() {
		t.Fatal("modern after a probe that timed out")
	}
	r, err := s.CallTool(ctx, &mcp.CallToolRequestParams{Name: "x"})
	if err != nil || text(t, r) != "answered" {
		t.Fatalf("call: %v %v", r, err)
	}
}
