package e2e

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"os"
	"testing"

	"github.com/mcpgen/mcpgen/generated/mcp20241105"
	"github.com/mcpgen/mcpgen/generated/mcp20250326"
	"github.com/mcpgen/mcpgen/generated/mcp20250618"
	"github.com/mcpgen/mcpgen/generated/mcp20251125"
	"github.com/mcpgen/mcpgen/runtime/jsonrpc2"
)

// revision is one MCP revision the example server negotiates, with its
// generated client API reduced to the four calls the tests make.
type revision struct {
	version string
	policy  func(jsonrpc2.Side) jsonrpc2.Policy
	api     func(*jsonrpc2.Conn, ...jsonrpc2.CallOption) api
	// timeoutCancels: lifecycle.mdx says a sender whose request timed out
	// SHOULD send notifications/cancelled (from 2025-03-26; 2024-11-05 only
	// says to have timeouts).
	timeoutCancels bool
}

var revisions = []revision{
	{version: "2024-11-05", policy: mcp20241105.Policy, api: api20241105},
	{version: "2025-03-26", policy: mcp20250326.Policy, api: api20250326, timeoutCancels: true},
	{version: "2025-06-18", policy: mcp20250618.Policy, api: api20250618, timeoutCancels: true},
	{version: "2025-11-25", policy: mcp20251125.Policy, api: api20251125, timeoutCancels: true},
}

// forEachRevision runs f as a parallel subtest per revision.
func forEachRevision(t *testing.T, f func(t *testing.T, rev revision)) {
	for _, rev := range revisions {
		t.Run(rev.version, func(t *testing.T) {
			t.Parallel()
			f(t, rev)
		})
	}
}

// api is the slice of a generated ServerCaller the tests use. Each method is
// the generated one: ctx ending is the MCP cancellation.
type api struct {
	initialize  func(ctx context.Context, version string) (negotiated string, err error)
	initialized func(ctx context.Context) error
	callTool    func(ctx context.Context, name string, args map[string]json.RawMessage) (text string, err error)
	ping        func(ctx context.Context) error
}

// toolText extracts the text of the first content block from any revision's
// CallToolResult (their content types differ between revisions).
func toolText(res any) string {
	raw, err := json.Marshal(res)
	if err != nil {
		return "<" + err.Error() + ">"
	}
	var r struct {
		Content []struct {
			Text string `json:"text"`
		} `json:"content"`
	}
	if json.Unmarshal(raw, &r) != nil || len(r.Content) == 0 {
		return string(raw)
	}
	return r.Content[0].Text
}

func api20241105(c *jsonrpc2.Conn, opts ...jsonrpc2.CallOption) api {
	s := mcp20241105.NewServerCaller(c, opts...)
	return api{
		initialize: func(ctx context.Context, v string) (string, error) {
			r, err := s.Initialize(ctx, &mcp20241105.InitializeRequestParams{ProtocolVersion: v,
				ClientInfo: mcp20241105.Implementation{Name: "e2e", Version: "0"}})
			if err != nil {
				return "", err
			}
			return r.ProtocolVersion, nil
		},
		initialized: func(ctx context.Context) error { return s.Initialized(ctx, nil) },
		callTool: func(ctx context.Context, name string, args map[string]json.RawMessage) (string, error) {
			r, err := s.CallTool(ctx, &mcp20241105.CallToolRequestParams{Name: name, Arguments: args})
			if err != nil {
				return "", err
			}
			return toolText(r), nil
		},
		ping: func(ctx context.Context) error { _, err := s.Ping(ctx, nil); return err },
	}
}

func api20250326(c *jsonrpc2.Conn, opts ...jsonrpc2.CallOption) api {
	s := mcp20250326.NewServerCaller(c, opts...)
	return api{
		initialize: func(ctx context.Context, v string) (string, error) {
			r, err := s.Initialize(ctx, &mcp20250326.InitializeRequestParams{ProtocolVersion: v,
				ClientInfo: mcp20250326.Implementation{Name: "e2e", Version: "0"}})
			if err != nil {
				return "", err
			}
			return r.ProtocolVersion, nil
		},
		initialized: func(ctx context.Context) error { return s.Initialized(ctx, nil) },
		callTool: func(ctx context.Context, name string, args map[string]json.RawMessage) (string, error) {
			r, err := s.CallTool(ctx, &mcp20250326.CallToolRequestParams{Name: name, Arguments: args})
			if err != nil {
				return "", err
			}
			return toolText(r), nil
		},
		ping: func(ctx context.Context) error { _, err := s.Ping(ctx, nil); return err },
	}
}

func api20250618(c *jsonrpc2.Conn, opts ...jsonrpc2.CallOption) api {
	s := mcp20250618.NewServerCaller(c, opts...)
	return api{
		initialize: func(ctx context.Context, v string) (string, error) {
			r, err := s.Initialize(ctx, &mcp20250618.InitializeRequestParams{ProtocolVersion: v,
				ClientInfo: mcp20250618.Implementation{Name: "e2e", Version: "0"}})
			if err != nil {
				return "", err
			}
			return r.ProtocolVersion, nil
		},
		initialized: func(ctx context.Context) error { return s.Initialized(ctx, nil) },
		callTool: func(ctx context.Context, name string, args map[string]json.RawMessage) (string, error) {
			r, err := s.CallTool(ctx, &mcp20250618.CallToolRequestParams{Name: name, Arguments: args})
			if err != nil {
				return "", err
			}
			return toolText(r), nil
		},
		ping: func(ctx context.Context) error { _, err := s.Ping(ctx, nil); return err },
	}
}

func api20251125(c *jsonrpc2.Conn, opts ...jsonrpc2.CallOption) api {
	s := mcp20251125.NewServerCaller(c, opts...)
	return api{
		initialize: func(ctx context.Context, v string) (string, error) {
			r, err := s.Initialize(ctx, &mcp20251125.InitializeRequestParams{ProtocolVersion: v,
				ClientInfo: mcp20251125.Implementation{Name: "e2e", Version: "0"}})
			if err != nil {
				return "", err
			}
			return r.ProtocolVersion, nil
		},
		initialized: func(ctx context.Context) error { return s.Initialized(ctx, nil) },
		callTool: func(ctx context.Context, name string, args map[string]json.RawMessage) (string, error) {
			r, err := s.CallTool(ctx, &mcp20251125.CallToolRequestParams{Name: name, Arguments: args})
			if err != nil {
				return "", err
			}
			return toolText(r), nil
		},
		ping: func(ctx context.Context) error { _, err := s.Ping(ctx, nil); return err },
	}
}

// clientSession is an in-process client (the generated API of one revision over a
// jsonrpc2.Conn) talking to a server subprocess over its stdin and stdout.
type clientSession struct {
	p      *proc
	conn   *jsonrpc2.Conn
	rev    revision
	api    api
	sent   *watch[string]         // every line the client wrote to the server
	events *watch[jsonrpc2.Event] // the client Conn's cancellation events
}

// startSession starts the server command and connects a client Conn with
// rev's policy to it; it does not initialize.
func startSession(t *testing.T, rev revision, env []string, name string, args ...string) *clientSession {
	t.Helper()
	p := startProc(t, false, env, name, args...)
	spy := newSpyWriter(p.stdin)
	s := &clientSession{p: p, rev: rev, sent: spy.lines, events: newWatch[jsonrpc2.Event]()}
	// As in examples/stdio-client: the transport does not close the server's
	// stdout, so Close closes stdin and then waits for the server to exit.
	tr := jsonrpc2.NewStdioTransport(struct{ io.Reader }{p.stdout}, spy, jsonrpc2.StdioOptions{})
	s.conn = jsonrpc2.NewConn(tr,
		jsonrpc2.WithPolicy(rev.policy(jsonrpc2.SideClient)),
		jsonrpc2.WithLogger(slog.New(slog.NewTextHandler(io.Discard, nil))),
		jsonrpc2.WithObserver(s.events.add))
	s.conn.Start()
	s.api = rev.api(s.conn)
	t.Cleanup(func() { s.close(t) })
	return s
}

// initialize runs the handshake through the generated API.
func (s *clientSession) initialize(t *testing.T) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), guard)
	defer cancel()
	v, err := s.api.initialize(ctx, s.rev.version)
	if err != nil {
		t.Fatalf("initialize: %v", err)
	}
	if v != s.rev.version {
		t.Fatalf("negotiated %s, want %s", v, s.rev.version)
	}
	if err := s.api.initialized(ctx); err != nil {
		t.Fatalf("notifications/initialized: %v", err)
	}
}

// close closes the client Conn (which flushes queued cancellations, closes
// the server's stdin and waits for its stdout to end) and checks the server
// exits 0. It is idempotent.
func (s *clientSession) close(t testing.TB) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), guard)
	defer cancel()
	if err := s.conn.Close(ctx); err != nil {
		t.Errorf("client Close: %v", err)
	}
	s.p.waitExit(t)
	s.p.log.waitClosed(t, "server stderr EOF")
}

// args builds tool arguments from key, raw JSON value pairs.
func args(kv ...string) map[string]json.RawMessage {
	m := map[string]json.RawMessage{}
	for i := 0; i+1 < len(kv); i += 2 {
		m[kv[i]] = json.RawMessage(kv[i+1])
	}
	return m
}

// selfExe is this test binary, which runs as the fake server (fake_test.go).
func selfExe(t *testing.T) string {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return exe
}
