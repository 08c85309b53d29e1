package session_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	mcp "github.com/mcpgen/mcpgen/generated/mcp20260728"
	"github.com/mcpgen/mcpgen/runtime/jsonrpc2"
	"github.com/mcpgen/mcpgen/runtime/session"
)

// TestConnSetup: WithConnSetup reaches every Conn before it starts, so what
// it registers answers, and what it intercepts runs inside the session's
// interceptors (a request the implementation serves already carries the
// session's view of it when the setup's interceptor sees it).
func TestConnSetup(t *testing.T) {
	var versions []string
	setup := func(c *jsonrpc2.Conn) error {
		c.Handle("x/echo", func(ctx context.Context, req *jsonrpc2.Request) (any, error) {
			return req.Params, nil
		})
		c.Intercept(jsonrpc2.Interceptor{Request: func(ctx context.Context, req *jsonrpc2.Request, next jsonrpc2.Handler) (any, error) {
			if req.Method == "tools/call" {
				versions = append(versions, session.ProtocolVersion(ctx))
			}
			return next(ctx, req)
		}})
		return nil
	}
	srv := mcp.NewServer(session.Implementation{Name: "test", Version: "1"}, &toolServer{},
		session.WithLegacy(legacyRevisions...), session.WithConnSetup(setup))
	p := serve(t, srv)
	p.send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"raw","version":"0"}}}`)
	p.recv()
	p.send(`{"jsonrpc":"2.0","id":2,"method":"x/echo","params":{"a":1}}`)
	if res, _ := p.recv()["result"].(map[string]any); res["a"] != float64(1) {
		t.Fatalf("x/echo answered %v", res)
	}
	p.send(`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"echo"}}`)
	p.recv()
	if len(versions) != 1 || versions[0] != "2025-11-25" {
		t.Errorf("the setup's interceptor saw versions %q, want the session's view [2025-11-25]", versions)
	}
}

// TestConnSetupError: a setup that fails fails Accept, naming why.
func TestConnSetupError(t *testing.T) {
	srv := mcp.NewServer(session.Implementation{Name: "test", Version: "1"}, &toolServer{},
		session.WithLegacy(legacyRevisions...),
		session.WithConnSetup(func(*jsonrpc2.Conn) error { return errors.New("no store") }))
	a, b := jsonrpc2.NewPipe()
	defer b.Close()
	go func() {
		_ = b.Write(context.Background(), []byte(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"raw","version":"0"}}}`))
	}()
	err := srv.Serve(context.Background(), a)
	if err == nil || !strings.Contains(err.Error(), "no store") {
		t.Fatalf("Serve = %v, want the setup's error", err)
	}
}
