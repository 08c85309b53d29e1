package session_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpgen/mcpgen/generated/mcp20241105"
	"github.com/mcpgen/mcpgen/generated/mcp20250326"
	"github.com/mcpgen/mcpgen/generated/mcp20250618"
	"github.com/mcpgen/mcpgen/generated/mcp20251125"
	mcp "github.com/mcpgen/mcpgen/generated/mcp20260728"
	"github.com/mcpgen/mcpgen/runtime/jsonrpc2"
	"github.com/mcpgen/mcpgen/runtime/session"
)

var legacyRevisions = []session.Revision{mcp20251125.Revision(), mcp20250618.Revision(), mcp20250326.Revision(), mcp20241105.Revision()}

// toolServer is a server written once, against the newest package.
type toolServer struct {
	started chan struct{} // "block" signals here, then waits for ctx
}

func (toolServer) ListTools(ctx context.Context, _ *mcp.PaginatedRequestParams) (*mcp.ListToolsResult, error) {
	return &mcp.ListToolsResult{Tools: []mcp.Tool{}}, nil
}

func (s *toolServer) CallTool(ctx context.Context, p *mcp.CallToolRequestParams) (*mcp.CallToolResult, error) {
	switch p.Name {
	case "echo":
		return mcp.TextResult("echo " + session.ProtocolVersion(ctx)), nil
	case "fail":
		return nil, errors.New("secret detail")
	case "rpcfail":
		return nil, jsonrpc2.NewError(-32000, "visible")
	case "toolfail":
		return mcp.ToolError(errors.New("bad input")), nil
	case "chatty":
		_ = mcp.Progress(ctx, 1, 2, "half")
		_ = mcp.Log(ctx, "debug", "too low")
		_ = mcp.Log(ctx, "warning", "careful")
		return mcp.TextResult("done"), nil
	case "roots":
		r, err := mcp.AskListRoots(ctx, &mcp.ListRootsRequestParams{})
		if err != nil {
			return nil, err
		}
		return mcp.TextResult(fmt.Sprintf("%d roots, first %s", len(r.Roots), r.Roots[0].URI)), nil
	case "roots2":
		a, err := mcp.AskListRoots(ctx, &mcp.ListRootsRequestParams{})
		if err != nil {
			return nil, err
		}
		b, err := mcp.AskListRoots(ctx, &mcp.ListRootsRequestParams{})
		if err != nil {
			return nil, err
		}
		return mcp.TextResult(a.Roots[0].URI + " " + b.Roots[0].URI), nil
	case "greedy": // never satisfied
		for {
			if _, err := mcp.AskListRoots(ctx, &mcp.ListRootsRequestParams{}); err != nil {
				return nil, err
			}
		}
	case "unmappable": // a result kind a legacy client cannot be sent
		return &mcp.CallToolResult{ResultType: "input_required"}, nil
	case "block":
		close(s.started)
		<-ctx.Done()
		return nil, context.Cause(ctx)
	}
	return mcp.ToolError(fmt.Errorf("no tool %q", p.Name)), nil
}

// rawPeer is the client side of a pipe, speaking JSON by hand.
type rawPeer struct {
	t  *testing.T
	tr jsonrpc2.Transport
}

func (p *rawPeer) send(format string, args ...any) {
	p.t.Helper()
	if err := p.tr.Write(context.Background(), []byte(fmt.Sprintf(format, args...))); err != nil {
		p.t.Fatal(err)
	}
}

func (p *rawPeer) recv() map[string]any {
	p.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	msg, err := p.tr.Read(ctx)
	if err != nil {
		p.t.Fatalf("reading: %v", err)
	}
	var m map[string]any
	if err := json.Unmarshal(msg, &m); err != nil {
		p.t.Fatal(err)
	}
	return m
}

func str(v any) string { b, _ := json.Marshal(v); return string(b) }

// serve runs srv on one end of a pipe and returns the other as a raw peer.
func serve(t *testing.T, srv *session.Server) *rawPeer {
	a, b := jsonrpc2.NewPipe()
	done := make(chan error, 1)
	go func() { done <- srv.Serve(context.Background(), a) }()
	t.Cleanup(func() {
		b.Close()
		if err := <-done; err != nil {
			t.Errorf("Serve: %v", err)
		}
	})
	return &rawPeer{t: t, tr: b}
}

func newServer(log *slog.Logger, impl any) *session.Server {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return mcp.NewServer(session.Implementation{Name: "test", Version: "1"}, impl,
		session.WithLegacy(legacyRevisions...), session.WithLogger(log))
}

const modernMeta = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"roots":{}},"io.modelcontextprotocol/logLevel":"info"}`

// TestLegacyLifecycle: every legacy revision is negotiated through
// initialize, an unknown one gets the newest, capabilities follow the
// implementation, and tools/call reaches the modern handler with the
// modern resultType removed.
func TestLegacyLifecycle(t *testing.T) {
	for _, c := range []struct{ asked, want string }{
		{"2024-11-05", "2024-11-05"}, {"2025-03-26", "2025-03-26"}, {"2025-06-18", "2025-06-18"},
		{"2025-11-25", "2025-11-25"}, {"1999-01-01", "2025-11-25"}, {"2026-07-28", "2025-11-25"},
	} {
		t.Run(c.asked, func(t *testing.T) {
			p := serve(t, newServer(nil, &toolServer{}))
			p.send(`{"jsonrpc":"2.0","id":0,"method":"ping"}`)
			if got := str(p.recv()); got != `{"id":0,"jsonrpc":"2.0","result":{}}` {
				t.Errorf("ping before initialize: %s", got)
			}
			p.send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":%q,"capabilities":{},"clientInfo":{"name":"raw","version":"0"}}}`, c.asked)
			res := p.recv()["result"].(map[string]any)
			if res["protocolVersion"] != c.want {
				t.Errorf("protocolVersion %v, want %s", res["protocolVersion"], c.want)
			}
			if got := str(res["capabilities"]); got != `{"logging":{},"tools":{}}` {
				t.Errorf("capabilities %s", got)
			}
			if got := str(res["serverInfo"]); got != `{"name":"test","version":"1"}` {
				t.Errorf("serverInfo %s", got)
			}
			p.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
			p.send(`{"jsonrpc":"2.0","id":2,"method":"ping"}`)
			if got := str(p.recv()); got != `{"id":2,"jsonrpc":"2.0","result":{}}` {
				t.Errorf("ping: %s", got)
			}
			p.send(`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"echo"}}`)
			if got, want := str(p.recv()), `{"id":3,"jsonrpc":"2.0","result":{"content":[{"text":"echo `+c.want+`","type":"text"}]}}`; got != want {
				t.Errorf("tools/call:\n got %s\nwant %s", got, want)
			}
		})
	}
}

// TestModernLifecycle: server/discover, per-request _meta, -32022.
func TestModernLifecycle(t *testing.T) {
	p := serve(t, newServer(nil, &toolServer{}))
	p.send(`{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{%s}}`, modernMeta)
	res := p.recv()["result"].(map[string]any)
	if got := str(res["supportedVersions"]); got != `["2026-07-28","2025-11-25","2025-06-18","2025-03-26","2024-11-05"]` {
		t.Errorf("supportedVersions %s", got)
	}
	if got := str(res["capabilities"]); got != `{"logging":{},"tools":{}}` {
		t.Errorf("capabilities %s", got)
	}
	if res["resultType"] != "complete" || str(res["_meta"]) != `{"io.modelcontextprotocol/serverInfo":{"name":"test","version":"1"}}` {
		t.Errorf("discover result %s", str(res))
	}
	p.send(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{%s,"name":"echo"}}`, modernMeta)
	if got, want := str(p.recv()), `{"id":2,"jsonrpc":"2.0","result":{"content":[{"text":"echo 2026-07-28","type":"text"}],"resultType":"complete"}}`; got != want {
		t.Errorf("tools/call:\n got %s\nwant %s", got, want)
	}
	bad := strings.Replace(modernMeta, "2026-07-28", "2030-01-01", 1)
	for id, method := range []string{"tools/call", "server/discover"} {
		p.send(`{"jsonrpc":"2.0","id":%d,"method":%q,"params":{%s,"name":"echo"}}`, 10+id, method, bad)
		want := fmt.Sprintf(`{"error":{"code":-32022,"data":{"requested":"2030-01-01","supported":["2026-07-28","2025-11-25","2025-06-18","2025-03-26","2024-11-05"]},"message":"Unsupported protocol version"},"id":%d,"jsonrpc":"2.0"}`, 10+id)
		if got := str(p.recv()); got != want {
			t.Errorf("%s with an unsupported version:\n got %s\nwant %s", method, got, want)
		}
	}
	p.send(`{"jsonrpc":"2.0","id":20,"method":"tools/call","params":{"name":"echo"}}`)
	if e := p.recv()["error"].(map[string]any); e["code"] != float64(-32602) {
		t.Errorf("no version and no initialize: %v", e)
	}
}

// TestUnsupportedFirstRequest: a modern request with a version the server
// does not speak, before anything else, is answered -32022 and the era is
// still open (the probe of a client that then falls back).
func TestUnsupportedFirstRequest(t *testing.T) {
	p := serve(t, newServer(nil, &toolServer{}))
	p.send(`{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2031-01-01","io.modelcontextprotocol/clientCapabilities":{}}}}`)
	if e := p.recv()["error"].(map[string]any); e["code"] != float64(-32022) {
		t.Fatalf("got %v", e)
	}
	p.send(`{"jsonrpc":"2.0","id":2,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"0"}}}`)
	if v := p.recv()["result"].(map[string]any)["protocolVersion"]; v != "2025-06-18" {
		t.Errorf("protocolVersion %v", v)
	}
}

// TestHandlerErrors: a Go error reaches the peer as a generic -32603 and
// the log with its detail; a *jsonrpc2.Error passes through; ToolError is
// an isError result.
func TestHandlerErrors(t *testing.T) {
	var logBuf bytes.Buffer
	var mu sync.Mutex
	lw := &lockedWriter{w: &logBuf, mu: &mu, wrote: make(chan struct{}, 1)}
	log := slog.New(slog.NewTextHandler(lw, nil))
	p := serve(t, newServer(log, &toolServer{}))
	p.send(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{%s,"name":"fail"}}`, modernMeta)
	if got := str(p.recv()); got != `{"error":{"code":-32603,"message":"internal error"},"id":1,"jsonrpc":"2.0"}` {
		t.Errorf("plain error: %s", got)
	}
	logged := lw.waitLogged(t, "secret detail")
	if !strings.Contains(logged, "secret detail") || !strings.Contains(logged, "level=ERROR") {
		t.Errorf("log lacks the detail: %q", logged)
	}
	p.send(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{%s,"name":"rpcfail"}}`, modernMeta)
	if got := str(p.recv()); got != `{"error":{"code":-32000,"message":"visible"},"id":2,"jsonrpc":"2.0"}` {
		t.Errorf("jsonrpc2.Error: %s", got)
	}
	p.send(`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{%s,"name":"toolfail"}}`, modernMeta)
	if got := str(p.recv()); got != `{"id":3,"jsonrpc":"2.0","result":{"content":[{"text":"bad input","type":"text"}],"isError":true,"resultType":"complete"}}` {
		t.Errorf("ToolError: %s", got)
	}
}

type lockedWriter struct {
	w     *bytes.Buffer
	mu    *sync.Mutex
	wrote chan struct{} // optional: signalled after each write
}

func (l *lockedWriter) Write(b []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	defer func() {
		select {
		case l.wrote <- struct{}{}:
		default:
		}
	}()
	return l.w.Write(b)
}

// waitLogged returns what l holds once it contains sub: the runtime hands
// records to the handler on the Conn's dispatch goroutine, after the
// response may already have been read.
func (l *lockedWriter) waitLogged(t *testing.T, sub string) string {
	t.Helper()
	deadline := time.After(10 * time.Second)
	for {
		l.mu.Lock()
		s := l.w.String()
		l.mu.Unlock()
		if strings.Contains(s, sub) {
			return s
		}
		select {
		case <-l.wrote:
		case <-deadline:
			t.Fatalf("log never contained %q: %q", sub, s)
		}
	}
}

// TestProgressAndLog: progress goes to the token's owner; log messages
// respect the level the client set (legacy: logging/setLevel; modern:
// _meta logLevel, none without it).
func TestProgressAndLog(t *testing.T) {
	t.Run("modern", func(t *testing.T) {
		p := serve(t, newServer(nil, &toolServer{}))
		meta := strings.Replace(modernMeta, `"_meta":{`, `"_meta":{"progressToken":"tok",`, 1)
		p.send(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{%s,"name":"chatty"}}`, meta)
		if got := str(p.recv()); got != `{"jsonrpc":"2.0","method":"notifications/progress","params":{"message":"half","progress":1,"progressToken":"tok","total":2}}` {
			t.Errorf("progress: %s", got)
		}
		if got := str(p.recv()); got != `{"jsonrpc":"2.0","method":"notifications/message","params":{"data":"careful","level":"warning"}}` {
			t.Errorf("log: %s", got)
		}
		if got := p.recv(); got["id"] != float64(1) {
			t.Errorf("result: %v", got)
		}
		noLevel := strings.Replace(modernMeta, `,"io.modelcontextprotocol/logLevel":"info"`, "", 1)
		p.send(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{%s,"name":"chatty"}}`, noLevel)
		if got := p.recv(); got["id"] != float64(2) {
			t.Errorf("without logLevel and progressToken the result comes first: %v", got)
		}
	})
	t.Run("legacy", func(t *testing.T) {
		p := serve(t, newServer(nil, &toolServer{}))
		p.send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-03-26","capabilities":{},"clientInfo":{"name":"raw","version":"0"}}}`)
		p.recv()
		p.send(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"chatty"}}`)
		if got := p.recv(); got["id"] != float64(2) {
			t.Errorf("before setLevel no log message: %v", got)
		}
		p.send(`{"jsonrpc":"2.0","id":3,"method":"logging/setLevel","params":{"level":"warning"}}`)
		p.recv()
		p.send(`{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"chatty"}}`)
		if got := str(p.recv()); got != `{"jsonrpc":"2.0","method":"notifications/message","params":{"data":"careful","level":"warning"}}` {
			t.Errorf("log: %s", got)
		}
		if got := p.recv(); got["id"] != float64(4) {
			t.Errorf("result: %v", got)
		}
	})
}

// TestMRTRWire: the same handler asks for roots; a modern client gets an
// InputRequiredResult and retries with inputResponses, a legacy client
// gets an ordinary roots/list request.
func TestMRTRWire(t *testing.T) {
	t.Run("modern", func(t *testing.T) {
		p := serve(t, newServer(nil, &toolServer{}))
		p.send(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{%s,"name":"roots"}}`, modernMeta)
		first := p.recv()
		res, _ := first["result"].(map[string]any)
		state, _ := res["requestState"].(string)
		delete(res, "requestState")
		if got := str(first); got != `{"id":1,"jsonrpc":"2.0","result":{"inputRequests":{"input-1":{"method":"roots/list","params":{}}},"resultType":"input_required"}}` || !strings.HasPrefix(state, "mcpgen-inputs:") {
			t.Fatalf("first round: %s (requestState %q)", got, state)
		}
		// A tampered requestState is refused (mrtr.mdx: integrity).
		p.send(`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{%s,"name":"roots","requestState":%q,"inputResponses":{"input-1":{"roots":[]}}}}`, modernMeta, state+"-TAMPERED")
		if got := p.recv(); got["error"] == nil {
			t.Errorf("tampered requestState accepted: %v", got)
		}
		p.send(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{%s,"name":"roots","requestState":%q,"inputResponses":{"input-1":{"roots":[{"uri":"file:///a"}]}}}}`, modernMeta, state)
		if got := str(p.recv()); got != `{"id":2,"jsonrpc":"2.0","result":{"content":[{"text":"1 roots, first file:///a","type":"text"}],"resultType":"complete"}}` {
			t.Errorf("retry: %s", got)
		}
	})
	t.Run("legacy", func(t *testing.T) {
		p := serve(t, newServer(nil, &toolServer{}))
		p.send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{"roots":{}},"clientInfo":{"name":"raw","version":"0"}}}`)
		p.recv()
		p.send(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"roots"}}`)
		req := p.recv()
		if req["method"] != "roots/list" {
			t.Fatalf("want a roots/list request, got %v", req)
		}
		p.send(`{"jsonrpc":"2.0","id":%s,"result":{"roots":[{"uri":"file:///b"}]}}`, str(req["id"]))
		if got := str(p.recv()); got != `{"id":2,"jsonrpc":"2.0","result":{"content":[{"text":"1 roots, first file:///b","type":"text"}]}}` {
			t.Errorf("result: %s", got)
		}
	})
	t.Run("legacy without the capability", func(t *testing.T) {
		p := serve(t, newServer(nil, &toolServer{}))
		p.send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"raw","version":"0"}}}`)
		p.recv()
		p.send(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"roots"}}`)
		if e, ok := p.recv()["error"].(map[string]any); !ok || !strings.Contains(e["message"].(string), `"roots"`) {
			t.Errorf("want an error naming the capability, got %v", e)
		}
	})
}

// listener serves subscriptions/listen: it acknowledges, sends one
// tools/list_changed, then ends as told ("cancel", "return") or waits
// for the client to cancel.
type listener struct {
	toolServer
	end     chan string
	stopped chan error
}

func (l *listener) SubscriptionsListen(ctx context.Context, p *mcp.SubscriptionsListenRequestParams) (*mcp.SubscriptionsListenResult, error) {
	sub, err := session.Listen(ctx, p.Notifications)
	if err != nil {
		return nil, err
	}
	if err := sub.Notify(ctx, mcp.MethodToolListChanged, nil); err != nil {
		return nil, err
	}
	select {
	case how := <-l.end:
		if how == "cancel" {
			_ = sub.Cancel("server shutting down")
			<-ctx.Done()
			l.stopped <- context.Cause(ctx)
			return nil, context.Cause(ctx)
		}
		return &mcp.SubscriptionsListenResult{}, nil
	case <-ctx.Done():
		l.stopped <- context.Cause(ctx)
		return nil, context.Cause(ctx)
	}
}

// TestSubscriptionsListen: acknowledged first, notifications carry the
// subscription id, and the stream ends each of the three ways.
func TestSubscriptionsListen(t *testing.T) {
	open := func(t *testing.T, l *listener) *rawPeer {
		p := serve(t, newServer(nil, l))
		p.send(`{"jsonrpc":"2.0","id":"sub-1","method":"subscriptions/listen","params":{%s,"notifications":{"toolsListChanged":true}}}`, modernMeta)
		if got := str(p.recv()); got != `{"jsonrpc":"2.0","method":"notifications/subscriptions/acknowledged","params":{"_meta":{"io.modelcontextprotocol/subscriptionId":"sub-1"},"notifications":{"toolsListChanged":true}}}` {
			t.Fatalf("first message: %s", got)
		}
		if got := str(p.recv()); got != `{"jsonrpc":"2.0","method":"notifications/tools/list_changed","params":{"_meta":{"io.modelcontextprotocol/subscriptionId":"sub-1"}}}` {
			t.Fatalf("notification: %s", got)
		}
		return p
	}
	t.Run("server returns", func(t *testing.T) {
		l := &listener{end: make(chan string, 1), stopped: make(chan error, 1)}
		p := open(t, l)
		l.end <- "return"
		if got := str(p.recv()); got != `{"id":"sub-1","jsonrpc":"2.0","result":{"_meta":{"io.modelcontextprotocol/subscriptionId":"sub-1"},"resultType":"complete"}}` {
			t.Errorf("graceful end: %s", got)
		}
	})
	t.Run("server cancels", func(t *testing.T) {
		l := &listener{end: make(chan string, 1), stopped: make(chan error, 1)}
		p := open(t, l)
		l.end <- "cancel"
		if got := str(p.recv()); got != `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"reason":"server shutting down","requestId":"sub-1"}}` {
			t.Errorf("server teardown: %s", got)
		}
		if err := <-l.stopped; err == nil {
			t.Error("handler ctx not ended")
		}
		p.send(`{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{%s,"name":"echo"}}`, modernMeta)
		if got := p.recv(); got["id"] != float64(9) {
			t.Errorf("no listen response may follow the cancellation; got %v", got)
		}
	})
	t.Run("client cancels", func(t *testing.T) {
		l := &listener{end: make(chan string, 1), stopped: make(chan error, 1)}
		p := open(t, l)
		p.send(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"sub-1","reason":"closing the view"}}`)
		var ce *jsonrpc2.CancelError
		if err := <-l.stopped; !errors.As(err, &ce) || ce.Reason != "closing the view" {
			t.Errorf("handler cause: %v", err)
		}
		p.send(`{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{%s,"name":"echo"}}`, modernMeta)
		if got := p.recv(); got["id"] != float64(9) {
			t.Errorf("no listen response after the client's cancel; got %v", got)
		}
	})
}

// discoverer has a Discover of its own: the session owns server/discover,
// so it is never called.
type discoverer struct{ toolServer }

func (discoverer) Discover(ctx context.Context, _ *mcp.RequestParams) (*mcp.DiscoverResult, error) {
	return &mcp.DiscoverResult{SupportedVersions: []string{"2026-07-28"}, CacheScope: "private"}, nil
}

// TestLifecycleNotShadowed: an implementation's own lifecycle method never
// replaces the session's answer, which declares what the implementation
// serves.
func TestLifecycleNotShadowed(t *testing.T) {
	p := serve(t, mcp.NewServer(session.Implementation{Name: "test", Version: "1"}, &discoverer{}, session.WithLegacy(legacyRevisions...)))
	p.send(`{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{%s}}`, modernMeta)
	res, _ := p.recv()["result"].(map[string]any)
	if res["cacheScope"] != "public" || str(res["capabilities"]) != `{"logging":{},"tools":{}}` {
		t.Errorf("discover answered by the implementation, not the session: %s", str(res))
	}
}

// TestLifecycleOverrides: an interceptor and a WithHandler initialize
// replace the session's answers; the session still checks the version
// first and follows the version the override answered.
func TestLifecycleOverrides(t *testing.T) {
	srv := mcp.NewServer(session.Implementation{Name: "test", Version: "1"}, &toolServer{},
		session.WithLegacy(legacyRevisions...),
		session.WithInterceptors(jsonrpc2.Interceptor{Request: func(ctx context.Context, req *jsonrpc2.Request, next jsonrpc2.Handler) (any, error) {
			if req.Method == "server/discover" {
				return &mcp.DiscoverResult{SupportedVersions: []string{"2026-07-28"}, CacheScope: "private", ResultType: "complete"}, nil
			}
			return next(ctx, req)
		}}),
		session.WithHandler("initialize", func(ctx context.Context, req *jsonrpc2.Request) (any, error) {
			return json.RawMessage(`{"protocolVersion":"2025-03-26","capabilities":{"custom":{}},"serverInfo":{"name":"mine","version":"9"}}`), nil
		}))
	p := serve(t, srv)
	p.send(`{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{%s}}`, modernMeta)
	if got := str(p.recv()["result"]); got != `{"cacheScope":"private","capabilities":{},"resultType":"complete","supportedVersions":["2026-07-28"],"ttlMs":0}` {
		t.Errorf("discover: %s", got)
	}
	p.send(`{"jsonrpc":"2.0","id":4,"method":"server/discover","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2099-01-01"}}}`)
	if e, _ := p.recv()["error"].(map[string]any); e["code"] != float64(session.CodeUnsupportedProtocolVersion) {
		t.Errorf("an unsupported version passed the interceptor: %v", e)
	}
	p.send(`{"jsonrpc":"2.0","id":2,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"raw","version":"0"}}}`)
	if got := str(p.recv()["result"]); got != `{"capabilities":{"custom":{}},"protocolVersion":"2025-03-26","serverInfo":{"name":"mine","version":"9"}}` {
		t.Errorf("initialize: %s", got)
	}
	p.send(`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"echo"}}`)
	if got := str(p.recv()["result"]); got != `{"content":[{"text":"echo 2025-03-26","type":"text"}]}` {
		t.Errorf("the session follows the version the override answered: %s", got)
	}
}

// TestInterceptorsSeeEverything: the interceptors of WithInterceptors see
// every request (the lifecycle's and unknown methods included) and
// notification the server receives, in order, with the session's view of
// the request in ctx, and every call the server makes to its client.
func TestInterceptorsSeeEverything(t *testing.T) {
	var mu sync.Mutex
	var seen []string
	// Notifications run in order on their own goroutine, requests on
	// workers: the test waits for the notification to have passed both
	// interceptors before it sends the next request, so the order it checks
	// is the order of the wire.
	initialized := make(chan struct{})
	record := func(s string) {
		mu.Lock()
		seen = append(seen, s)
		mu.Unlock()
		if s == "b notifications/initialized" {
			close(initialized)
		}
	}
	trace := func(name string) jsonrpc2.Interceptor {
		return jsonrpc2.Interceptor{
			Request: func(ctx context.Context, req *jsonrpc2.Request, next jsonrpc2.Handler) (any, error) {
				record(name + " " + req.Method + " " + session.ProtocolVersion(ctx))
				return next(ctx, req)
			},
			Notification: func(ctx context.Context, n *jsonrpc2.Notification, next jsonrpc2.NotificationHandler) {
				record(name + " " + n.Method)
				next(ctx, n)
			},
			Call: func(ctx context.Context, method string, params, result any, next jsonrpc2.Caller, opts ...jsonrpc2.CallOption) error {
				record(name + " call " + method)
				return next(ctx, method, params, result, opts...)
			},
		}
	}
	srv := mcp.NewServer(session.Implementation{Name: "test", Version: "1"}, &toolServer{},
		session.WithLegacy(legacyRevisions...), session.WithInterceptors(trace("a"), trace("b")))
	p := serve(t, srv)
	p.send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{"roots":{}},"clientInfo":{"name":"raw","version":"0"}}}`)
	p.recv()
	p.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	<-initialized
	p.send(`{"jsonrpc":"2.0","id":2,"method":"ping"}`)
	p.recv()
	p.send(`{"jsonrpc":"2.0","id":3,"method":"logging/setLevel","params":{"level":"info"}}`)
	p.recv()
	p.send(`{"jsonrpc":"2.0","id":4,"method":"nope"}`)
	if e, _ := p.recv()["error"].(map[string]any); e["code"] != float64(jsonrpc2.CodeMethodNotFound) {
		t.Errorf("unknown method: %v", e)
	}
	p.send(`{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"roots"}}`)
	ask := p.recv() // the server's roots/list
	p.send(`{"jsonrpc":"2.0","id":%s,"result":{"roots":[{"uri":"file:///x"}]}}`, str(ask["id"]))
	p.recv()
	mu.Lock()
	defer mu.Unlock()
	want := []string{
		"a initialize ", "b initialize ",
		"a notifications/initialized", "b notifications/initialized",
		// A modern server answers ping and logging/setLevel, which its
		// revision lacks, without the session's view (as before).
		"a ping ", "b ping ",
		"a logging/setLevel ", "b logging/setLevel ",
		"a nope ", "b nope ",
		"a tools/call 2025-11-25", "b tools/call 2025-11-25",
		"a call roots/list", "b call roots/list",
	}
	if !slices.Equal(seen, want) {
		t.Errorf("interceptors saw\n%q\nwant\n%q", seen, want)
	}
}

// TestQuietAtInfo: by default a cancellation, which the runtime logs at
// Info, does not reach the server's logger; handler failures do.
func TestQuietAtInfo(t *testing.T) {
	var buf bytes.Buffer
	var mu sync.Mutex
	log := slog.New(slog.NewTextHandler(&lockedWriter{w: &buf, mu: &mu}, &slog.HandlerOptions{Level: slog.LevelDebug}))
	impl := &toolServer{started: make(chan struct{})}
	a, b := jsonrpc2.NewPipe()
	served := make(chan error, 1)
	go func() { served <- newServer(log, impl).Serve(context.Background(), a) }()
	p := &rawPeer{t: t, tr: b}
	p.send(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{%s,"name":"block"}}`, modernMeta)
	<-impl.started
	p.send(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1,"reason":"stop"}}`)
	p.send(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{%s,"name":"fail"}}`, modernMeta)
	p.recv() // the -32603, after the cancellation was applied
	// Records reach the handler on the Conn's dispatch goroutine; Serve
	// returns after Close has delivered them.
	b.Close()
	if err := <-served; err != nil {
		t.Fatalf("Serve: %v", err)
	}
	mu.Lock()
	logged := buf.String()
	mu.Unlock()
	if strings.Contains(logged, "level=INFO") || strings.Contains(logged, "level=DEBUG") {
		t.Errorf("logged below Warn by default:\n%s", logged)
	}
	if !strings.Contains(logged, "secret detail") {
		t.Errorf("the handler failure was not logged:\n%s", logged)
	}
}

// TestLegacyInputCancelled: cancelling the handler's request cancels its
// server-to-client request too, with notifications/cancelled.
func TestLegacyInputCancelled(t *testing.T) {
	p := serve(t, newServer(nil, &toolServer{}))
	p.send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{"roots":{}},"clientInfo":{"name":"raw","version":"0"}}}`)
	p.recv()
	p.send(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"roots"}}`)
	req := p.recv()
	if req["method"] != "roots/list" {
		t.Fatalf("want roots/list, got %v", req)
	}
	p.send(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":2,"reason":"user stop"}}`)
	got := p.recv()
	params, _ := got["params"].(map[string]any)
	if got["method"] != "notifications/cancelled" || str(params["requestId"]) != str(req["id"]) {
		t.Errorf("want the roots/list request cancelled, got %s", str(got))
	}
}

// TestModernOnlyRefusesInitialize: a server without legacy revisions
// answers initialize with an error naming the versions it speaks
// (versioning.mdx: legacy clients have no other diagnostic).
func TestModernOnlyRefusesInitialize(t *testing.T) {
	p := serve(t, mcp.NewServer(session.Implementation{Name: "m", Version: "1"}, &toolServer{}))
	p.send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"raw","version":"0"}}}`)
	e, _ := p.recv()["error"].(map[string]any)
	if e == nil || e["code"] != float64(-32022) || !strings.Contains(e["message"].(string), "2026-07-28") {
		t.Errorf("initialize on a modern-only server: %v", e)
	}
}

// blocker's tool waits for its ctx and reports the cause.
type blocker struct {
	started chan struct{}
	cause   chan error
}

func (b *blocker) CallTool(ctx context.Context, _ *mcp.CallToolRequestParams) (*mcp.CallToolResult, error) {
	close(b.started)
	<-ctx.Done()
	b.cause <- context.Cause(ctx)
	return nil, context.Cause(ctx)
}

// TestAcceptedConnStreamClosed: on the Conn that Accept builds, a dropped
// request stream reported by its transport (Conn.StreamClosed) cancels the
// handler under the modern policy (what the HTTP transport relies on).
func TestAcceptedConnStreamClosed(t *testing.T) {
	a, b := jsonrpc2.NewPipe()
	impl := &blocker{started: make(chan struct{}), cause: make(chan error, 1)}
	srv := newServer(nil, impl)
	go func() {
		_ = b.Write(context.Background(), []byte(`{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{`+modernMeta+`,"name":"block"}}`))
	}()
	conn, err := srv.Accept(context.Background(), a)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { b.Close(); conn.Close(context.Background()) }()
	<-impl.started
	conn.StreamClosed(jsonrpc2.Int64ID(5))
	var ce *jsonrpc2.CancelError
	select {
	case err := <-impl.cause:
		if !errors.As(err, &ce) || ce.Source != jsonrpc2.SourceStreamClosed {
			t.Errorf("handler cause %v, want a disconnect", err)
		}
	case <-time.After(5 * time.Second):
		t.Error("the disconnect did not reach the handler")
	}
}

// TestLegacyUnmappableResult: a modern result a legacy client cannot be
// sent (resultType input_required) is answered as a handler's failure,
// -32603 "internal error" with the detail logged, when the session maps
// the result as the response is written.
func TestLegacyUnmappableResult(t *testing.T) {
	logged := make(chan string, 16) // the runtime logs off the read loop: wait for the line
	log := slog.New(lineHandler{logged})
	p := serve(t, newServer(log, &toolServer{}))
	p.send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"raw","version":"0"}}}`)
	p.recv()
	p.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	p.send(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"unmappable"}}`)
	if got, want := str(p.recv()), `{"error":{"code":-32603,"message":"internal error"},"id":2,"jsonrpc":"2.0"}`; got != want {
		t.Errorf("tools/call:\n got %s\nwant %s", got, want)
	}
	p.send(`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"echo"}}`)
	if got, want := str(p.recv()), `{"id":3,"jsonrpc":"2.0","result":{"content":[{"text":"echo 2025-11-25","type":"text"}]}}`; got != want {
		t.Errorf("tools/call after it:\n got %s\nwant %s", got, want)
	}
	timeout := time.After(5 * time.Second)
	for {
		select {
		case line := <-logged:
			if strings.Contains(line, "has no legacy form") {
				return
			}
		case <-timeout:
			t.Fatal("the detail was not logged")
		}
	}
}

// lineHandler sends each record's message and attributes to a channel.
type lineHandler struct{ lines chan<- string }

func (h lineHandler) Enabled(context.Context, slog.Level) bool { return true }
func (h lineHandler) Handle(_ context.Context, r slog.Record) error {
	line := r.Message
	r.Attrs(func(a slog.Attr) bool { line += " " + a.String(); return true })
	select {
	case h.lines <- line:
	default:
	}
	return nil
}
func (h lineHandler) WithAttrs([]slog.Attr) slog.Handler { return h }
func (h lineHandler) WithGroup(string) slog.Handler      { return h }
