package session_test

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpgen/mcpgen/generated/mcp20251125"
	mcp "github.com/mcpgen/mcpgen/generated/mcp20260728"
	"github.com/mcpgen/mcpgen/runtime/jsonrpc2"
	"github.com/mcpgen/mcpgen/runtime/session"
)

// inputs answers roots/list for MRTR (modern) and as a request (legacy).
type inputs struct {
	entered chan struct{} // when set, ListRoots blocks until ctx ends
	ended   chan error
}

func (h *inputs) ListRoots(ctx context.Context, _ *mcp.ListRootsRequestParams) (*mcp.ListRootsResult, error) {
	if h.entered != nil {
		close(h.entered)
		<-ctx.Done()
		h.ended <- ctx.Err()
		return nil, ctx.Err()
	}
	return &mcp.ListRootsResult{Roots: []mcp.Root{{URI: "file:///client"}}}, nil
}

// connect runs srv on a pipe and connects a newest-package client to it.
func connect(t *testing.T, srv *session.Server, h any, opts ...session.ClientOption) *mcp.ClientSession {
	t.Helper()
	a, b := jsonrpc2.NewPipe()
	done := make(chan error, 1)
	go func() { done <- srv.Serve(context.Background(), a) }()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	opts = append([]session.ClientOption{session.WithClientLegacy(legacyRevisions...)}, opts...)
	s, err := mcp.Connect(ctx, b, session.Implementation{Name: "client", Version: "2"}, h, opts...)
	if err != nil {
		b.Close()
		<-done
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := s.Close(context.Background()); err != nil {
			t.Errorf("Close: %v", err)
		}
		if err := <-done; err != nil {
			t.Errorf("Serve: %v", err)
		}
	})
	return s
}

func text(t *testing.T, r *mcp.CallToolResult) string {
	t.Helper()
	if r == nil || len(r.Content) != 1 {
		t.Fatalf("result %+v", r)
	}
	return r.Content[0].(*mcp.TextContent).Text
}

// TestConnectModern: the probe finds the dual-era server modern; the
// session reports what discover said and its calls carry _meta.
func TestConnectModern(t *testing.T) {
	s := connect(t, newServer(nil, &toolServer{}), &inputs{})
	if s.ProtocolVersion() != "2026-07-28" || !s.Modern() {
		t.Errorf("version %s modern %v", s.ProtocolVersion(), s.Modern())
	}
	if s.ServerInfo().Name != "test" || string(s.ClientSession.ServerCapabilities()) != `{"logging":{},"tools":{}}` {
		t.Errorf("info %+v caps %s", s.ServerInfo(), s.ClientSession.ServerCapabilities())
	}
	var srv mcp.ServerHandler = s // the session implements the generated Server
	r, err := srv.CallTool(context.Background(), &mcp.CallToolRequestParams{Name: "echo"})
	if err != nil || text(t, r) != "echo 2026-07-28" {
		t.Fatalf("echo: %v %v", r, err)
	}
	r, err = s.CallTool(context.Background(), &mcp.CallToolRequestParams{Name: "roots"})
	if err != nil || text(t, r) != "1 roots, first file:///client" {
		t.Fatalf("MRTR round trip: %v %v", r, err)
	}
	// Two inputs in turn: the first answer travels in requestState.
	r, err = s.CallTool(context.Background(), &mcp.CallToolRequestParams{Name: "roots2"})
	if err != nil || text(t, r) != "file:///client file:///client" {
		t.Fatalf("two MRTR rounds: %v %v", r, err)
	}
	// A server that never stops asking gets an error, not a hung call.
	if _, err := s.CallTool(context.Background(), &mcp.CallToolRequestParams{Name: "greedy"}); err == nil || !strings.Contains(err.Error(), "MRTR rounds") {
		t.Fatalf("endless MRTR: %v", err)
	}
}

// TestConnectLegacyForced: with 2025-11-25 forced, the same newest-package
// calls go through initialize and the legacy mapping, and the server's
// roots/list request reaches the same handler.
func TestConnectLegacyForced(t *testing.T) {
	s := connect(t, newServer(nil, &toolServer{}), &inputs{}, session.WithVersion("2025-11-25"))
	if s.ProtocolVersion() != "2025-11-25" || s.Modern() {
		t.Errorf("version %s modern %v", s.ProtocolVersion(), s.Modern())
	}
	r, err := s.CallTool(context.Background(), &mcp.CallToolRequestParams{Name: "echo"})
	if err != nil || text(t, r) != "echo 2025-11-25" {
		t.Fatalf("echo: %v %v", r, err)
	}
	r, err = s.CallTool(context.Background(), &mcp.CallToolRequestParams{Name: "roots"})
	if err != nil || text(t, r) != "1 roots, first file:///client" {
		t.Fatalf("roots over a legacy request: %v %v", r, err)
	}
}

// legacyTools is a legacy-only server (2025-11-25 package).
type legacyTools struct {
}

func (legacyTools) CallTool(ctx context.Context, p *mcp20251125.CallToolRequestParams) (*mcp20251125.CallToolResult, error) {
	return mcp20251125.TextResult("legacy " + session.ProtocolVersion(ctx)), nil
}

func (legacyTools) ListTools(ctx context.Context, _ *mcp20251125.PaginatedRequestParams) (*mcp20251125.ListToolsResult, error) {
	return &mcp20251125.ListToolsResult{Tools: []mcp20251125.Tool{{Name: "x", InputSchema: mcp20251125.ToolInputSchema{}}}}, nil
}

// TestConnectFallback: a legacy-only server answers the probe with -32601
// and the client falls back to initialize on the same connection.
func TestConnectFallback(t *testing.T) {
	srv := mcp20251125.NewServer(session.Implementation{Name: "old", Version: "0"}, legacyTools{})
	s := connect(t, srv, nil)
	if s.ProtocolVersion() != "2025-11-25" || s.Modern() || s.ServerInfo().Name != "old" {
		t.Errorf("version %s modern %v info %+v", s.ProtocolVersion(), s.Modern(), s.ServerInfo())
	}
	r, err := s.CallTool(context.Background(), &mcp.CallToolRequestParams{Name: "x"})
	if err != nil || text(t, r) != "legacy 2025-11-25" {
		t.Fatalf("call: %v %v", r, err)
	}
	// A legacy list result has no caching hints; the newest types need them.
	l, err := s.ListTools(context.Background(), &mcp.PaginatedRequestParams{})
	if err != nil || len(l.Tools) != 1 || l.CacheScope != "private" || l.TTLMs != 0 {
		t.Fatalf("tools/list: %+v %v", l, err)
	}
}

// TestMRTRCancel: cancelling the caller's ctx while the client is
// answering an input request ends the whole round trip: the call returns
// at once and the input handler's ctx ends.
func TestMRTRCancel(t *testing.T) {
	h := &inputs{entered: make(chan struct{}), ended: make(chan error, 1)}
	s := connect(t, newServer(nil, &toolServer{}), h)
	ctx, cancel := context.WithCancel(context.Background())
	errc := make(chan error, 1)
	go func() {
		_, err := s.CallTool(ctx, &mcp.CallToolRequestParams{Name: "roots"})
		errc <- err
	}()
	<-h.entered
	cancel()
	if err := <-errc; !errors.Is(err, context.Canceled) {
		t.Errorf("call: %v", err)
	}
	if err := <-h.ended; !errors.Is(err, context.Canceled) {
		t.Errorf("input handler ctx: %v", err)
	}
}

// TestCancelModernCall: cancelling a modern call cancels the handler on the
// server with the client's reason.
func TestCancelModernCall(t *testing.T) {
	impl := &toolServer{started: make(chan struct{})}
	s := connect(t, newServer(nil, impl), nil)
	ctx, cancel := context.WithCancelCause(context.Background())
	errc := make(chan error, 1)
	go func() {
		_, err := s.CallTool(ctx, &mcp.CallToolRequestParams{Name: "block"})
		errc <- err
	}()
	<-impl.started
	cancel(errors.New("user gave up"))
	if err := <-errc; err == nil || !strings.Contains(context.Cause(ctx).Error(), "user gave up") {
		t.Errorf("call: %v", err)
	}
}

// TestClientInterceptors: the client's interceptors see its calls (the
// lifecycle's initialize included) and the requests it answers, a legacy
// server's roots/list and ping included, and the session answers ping
// before any handler.
func TestClientInterceptors(t *testing.T) {
	var mu sync.Mutex
	var seen []string
	record := jsonrpc2.Interceptor{
		Request: func(ctx context.Context, req *jsonrpc2.Request, next jsonrpc2.Handler) (any, error) {
			mu.Lock()
			seen = append(seen, "in "+req.Method)
			mu.Unlock()
			return next(ctx, req)
		},
		Call: func(ctx context.Context, method string, params, result any, next jsonrpc2.Caller, opts ...jsonrpc2.CallOption) error {
			mu.Lock()
			seen = append(seen, "out "+method)
			mu.Unlock()
			return next(ctx, method, params, result, opts...)
		},
	}
	s := connect(t, newServer(nil, &toolServer{}), &inputs{}, session.WithVersion("2025-11-25"), session.WithClientInterceptors(record))
	r, err := s.CallTool(context.Background(), &mcp.CallToolRequestParams{Name: "roots"})
	if err != nil || text(t, r) != "1 roots, first file:///client" {
		t.Fatalf("roots: %v %v", r, err)
	}
	var res json.RawMessage
	if err := s.RuntimeConn().Call(context.Background(), "ping", nil, &res); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	want := []string{"out initialize", "out tools/call", "in roots/list", "out ping"}
	if !slices.Equal(seen, want) {
		t.Errorf("client interceptors saw %q, want %q", seen, want)
	}
}
