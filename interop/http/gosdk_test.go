package interophttp

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	mcp20251125 "github.com/mcpgen/mcpgen/generated/mcp20251125"
	mcp20260728 "github.com/mcpgen/mcpgen/generated/mcp20260728"
	"github.com/mcpgen/mcpgen/runtime/jsonrpc2"
	"github.com/mcpgen/mcpgen/runtime/session"
	"github.com/mcpgen/mcpgen/runtime/streamhttp"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func quiet() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

// ours is an mcpgen server with a sleep tool that reports how its context
// ended, and an echo tool.
type ours struct {
	started chan struct{}
	ended   chan error
}

func newOurs() *ours {
	return &ours{started: make(chan struct{}, 8), ended: make(chan error, 8)}
}

// ours is a streamhttp.Lifecycle: a legacy session's Conn reads its
// initialize itself, and one Conn serves the modern requests.
func (o *ours) Accept(_ context.Context, t jsonrpc2.Transport) (*jsonrpc2.Conn, error) {
	c := o.factory(t, streamhttp.EraLegacy)
	c.Start()
	return c, nil
}

func (o *ours) Dispatcher(t jsonrpc2.Transport) (*jsonrpc2.Conn, error) {
	c := o.factory(t, streamhttp.EraModern)
	c.Start()
	return c, nil
}

func (o *ours) Adopt(context.Context, jsonrpc2.Transport, session.LegacyState) (*jsonrpc2.Conn, error) {
	return nil, errors.New("one replica: nothing to adopt")
}

func (o *ours) RefreshLegacy(*jsonrpc2.Conn, session.LegacyState) bool { return false }

func (o *ours) Revisions() []session.Revision { return httpRevisions }

func (o *ours) factory(t jsonrpc2.Transport, era streamhttp.Era) *jsonrpc2.Conn {
	pol := mcp20251125.Policy(jsonrpc2.SideServer)
	if era == streamhttp.EraModern {
		pol = mcp20260728.Policy(jsonrpc2.SideServer)
	}
	conn := jsonrpc2.NewConn(t, jsonrpc2.WithPolicy(pol), jsonrpc2.WithLogger(quiet()))
	info := map[string]string{"name": "mcpgen", "version": "0"}
	caps := map[string]any{"tools": map[string]any{}}
	conn.Handle("initialize", func(ctx context.Context, r *jsonrpc2.Request) (any, error) {
		var p struct {
			ProtocolVersion string `json:"protocolVersion"`
		}
		_ = json.Unmarshal(r.Params, &p)
		return map[string]any{"protocolVersion": p.ProtocolVersion, "capabilities": caps, "serverInfo": info}, nil
	})
	conn.Handle("server/discover", func(ctx context.Context, r *jsonrpc2.Request) (any, error) {
		return map[string]any{"supportedVersions": []string{"2026-07-28", "2025-11-25"}, "capabilities": caps, "serverInfo": info, "cacheScope": "public"}, nil
	})
	conn.HandleNotification("notifications/initialized", func(context.Context, *jsonrpc2.Notification) {})
	conn.Handle("tools/list", func(ctx context.Context, r *jsonrpc2.Request) (any, error) {
		return map[string]any{"tools": []any{
			map[string]any{"name": "sleep", "inputSchema": map[string]any{"type": "object"}},
			map[string]any{"name": "echo", "inputSchema": map[string]any{"type": "object"}},
		}}, nil
	})
	conn.Handle("tools/call", func(ctx context.Context, r *jsonrpc2.Request) (any, error) {
		var p struct {
			Name string `json:"name"`
		}
		_ = json.Unmarshal(r.Params, &p)
		if p.Name == "sleep" {
			o.started <- struct{}{}
			<-ctx.Done()
			o.ended <- context.Cause(ctx)
			return map[string]any{"content": []any{map[string]string{"type": "text", "text": "late"}}}, nil
		}
		return map[string]any{"content": []any{map[string]string{"type": "text", "text": "echo"}}}, nil
	})
	return conn
}

func wait[T any](t *testing.T, ch <-chan T, what string) T {
	t.Helper()
	select {
	case v := <-ch:
		return v
	case <-time.After(10 * time.Second):
		t.Fatalf("timed out waiting for %s", what)
	}
	var z T
	return z
}

// go-sdk's client against the mcpgen server: a cancelled CallTool cancels
// our handler by the era's rule (legacy: its notifications/cancelled with
// its reason; modern: the closed stream), and no result comes back.
func TestGoSDKClientToMcpgenServer(t *testing.T) {
	for _, tc := range []struct {
		version string
		source  jsonrpc2.CancelSource
	}{
		{"2025-11-25", jsonrpc2.SourcePeer},
		{"2026-07-28", jsonrpc2.SourceStreamClosed},
	} {
		t.Run(tc.version, func(t *testing.T) {
			o := newOurs()
			h := streamhttp.NewHandler(o, streamhttp.Options{Logger: quiet()})
			srv := httptest.NewServer(h)
			defer func() {
				srv.CloseClientConnections()
				ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
				defer cancel()
				h.Close(ctx)
				srv.Close()
			}()
			client := mcp.NewClient(&mcp.Implementation{Name: "go-sdk", Version: "1.8"}, nil)
			cs, err := client.Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: srv.URL}, &mcp.ClientSessionOptions{ProtocolVersion: tc.version})
			if err != nil {
				t.Fatalf("connect: %v", err)
			}
			defer cs.Close()
			if _, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "echo"}); err != nil {
				t.Fatalf("echo: %v", err)
			}
			ctx, cancel := context.WithCancel(context.Background())
			res := make(chan error, 1)
			go func() {
				_, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "sleep"})
				res <- err
			}()
			wait(t, o.started, "handler start")
			cancel()
			if err := wait(t, res, "CallTool return"); err == nil {
				t.Fatal("a cancelled call returned a result")
			}
			cause := wait(t, o.ended, "handler cancellation")
			var ce *jsonrpc2.CancelError
			if !errors.As(cause, &ce) || ce.Source != tc.source {
				t.Fatalf("handler cause %v, want source %v", cause, tc.source)
			}
			t.Logf("go-sdk %s cancel reached mcpgen as: %v", tc.version, cause)
		})
	}
}

// The mcpgen client against go-sdk's StreamableHTTPHandler: cancelling the
// caller's ctx cancels go-sdk's tool handler (legacy: our
// notifications/cancelled; modern: our closed stream, which go-sdk honours
// only with PropagateRequestCancellation, go-sdk issue #1093).
func TestMcpgenClientToGoSDKServer(t *testing.T) {
	for _, tc := range []struct {
		name string
		era  streamhttp.Era
		opts *mcp.StreamableHTTPOptions
	}{
		{"legacy-stateful", streamhttp.EraLegacy, &mcp.StreamableHTTPOptions{}},
		{"modern-stateless", streamhttp.EraModern, &mcp.StreamableHTTPOptions{Stateless: true, PropagateRequestCancellation: true}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			started, ended := make(chan struct{}, 1), make(chan error, 1)
			server := mcp.NewServer(&mcp.Implementation{Name: "go-sdk", Version: "1.8"}, nil)
			mcp.AddTool(server, &mcp.Tool{Name: "sleep"}, func(ctx context.Context, _ *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, any, error) {
				started <- struct{}{}
				<-ctx.Done()
				ended <- ctx.Err()
				return nil, nil, ctx.Err()
			})
			tc.opts.Logger = quiet()
			srv := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return server }, tc.opts))
			defer srv.Close()
			defer srv.CloseClientConnections()

			tr, err := streamhttp.Dial(context.Background(), srv.URL, streamhttp.ClientOptions{Era: tc.era, Revisions: httpRevisions, Logger: quiet()})
			if err != nil {
				t.Fatal(err)
			}
			pol := mcp20251125.Policy(jsonrpc2.SideClient)
			if tc.era == streamhttp.EraModern {
				pol = mcp20260728.Policy(jsonrpc2.SideClient)
			}
			events := make(chan jsonrpc2.Event, 16)
			conn := jsonrpc2.NewConn(tr, jsonrpc2.WithPolicy(pol), jsonrpc2.WithLogger(quiet()),
				jsonrpc2.WithObserver(func(e jsonrpc2.Event) { events <- e }))
			conn.Start()
			defer func() {
				ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
				defer cancel()
				conn.Close(ctx)
			}()
			if tc.era == streamhttp.EraLegacy {
				if err := conn.Call(context.Background(), "initialize", map[string]any{"protocolVersion": "2025-11-25", "capabilities": map[string]any{},
					"clientInfo": map[string]string{"name": "mcpgen", "version": "0"}}, nil); err != nil {
					t.Fatalf("initialize: %v", err)
				}
				if err := conn.Notify(context.Background(), "notifications/initialized", nil); err != nil {
					t.Fatal(err)
				}
			}
			ctx, cancel := context.WithCancelCause(context.Background())
			res := make(chan error, 1)
			go func() {
				res <- conn.Call(ctx, "tools/call", map[string]any{"name": "sleep", "arguments": map[string]any{}}, nil)
			}()
			wait(t, started, "go-sdk handler start")
			cancel(errors.New("mcpgen interop gave up"))
			if err := wait(t, res, "call return"); !errors.Is(err, context.Canceled) {
				t.Fatalf("call: %v", err)
			}
			if err := wait(t, ended, "go-sdk handler cancellation"); !errors.Is(err, context.Canceled) {
				t.Fatalf("go-sdk handler ended with %v", err)
			}
			for e := range events {
				if e.Kind == jsonrpc2.EventSent {
					if tc.era == streamhttp.EraLegacy && !strings.Contains(e.Reason, "gave up") {
						t.Errorf("reason %q", e.Reason)
					}
					break
				}
			}
		})
	}
}
