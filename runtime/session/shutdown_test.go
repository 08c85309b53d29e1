package session_test

import (
	"context"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	mcp "github.com/mcpgen/mcpgen/generated/mcp20260728"
	"github.com/mcpgen/mcpgen/runtime/jsonrpc2"
	"github.com/mcpgen/mcpgen/runtime/session"
)

// stubbornServer's only tool ignores its ctx until release is closed.
type stubbornServer struct {
	started chan struct{}
	release chan struct{}
	exited  chan struct{}
}

func (stubbornServer) ListTools(context.Context, *mcp.PaginatedRequestParams) (*mcp.ListToolsResult, error) {
	return &mcp.ListToolsResult{Tools: []mcp.Tool{}}, nil
}

func (s stubbornServer) CallTool(ctx context.Context, _ *mcp.CallToolRequestParams) (*mcp.CallToolResult, error) {
	defer close(s.exited)
	close(s.started)
	<-s.release
	return mcp.TextResult("too late"), nil
}

// warnings collects the messages of Warn records and signals each.
type warnings struct {
	mu   sync.Mutex
	msgs []string
	got  chan struct{}
}

func (w *warnings) Enabled(_ context.Context, l slog.Level) bool { return l >= slog.LevelWarn }
func (w *warnings) Handle(_ context.Context, r slog.Record) error {
	var b strings.Builder
	b.WriteString(r.Message)
	r.Attrs(func(a slog.Attr) bool { b.WriteString(" " + a.Key + "=" + a.Value.String()); return true })
	w.mu.Lock()
	w.msgs = append(w.msgs, b.String())
	w.mu.Unlock()
	select {
	case w.got <- struct{}{}:
	default:
	}
	return nil
}
func (w *warnings) WithAttrs([]slog.Attr) slog.Handler { return w }
func (w *warnings) WithGroup(string) slog.Handler      { return w }

// Issue 26, must-show 4: Serve's shutdown bound holds. A tool that ignores
// its cancelled ctx does not keep Serve from returning: once Serve's ctx
// ends, it returns within its shutdown grace, with an error saying handlers
// were left running, and the runtime has logged the handler (method and id)
// as ignoring its context.
func TestServeShutdownBoundWithStubbornHandler(t *testing.T) {
	impl := stubbornServer{started: make(chan struct{}), release: make(chan struct{}), exited: make(chan struct{})}
	defer func() { close(impl.release); <-impl.exited }() // before goleak looks
	w := &warnings{got: make(chan struct{}, 1)}
	const grace = 300 * time.Millisecond
	srv := mcp.NewServer(session.Implementation{Name: "test", Version: "1"}, impl,
		session.WithLegacy(legacyRevisions...), session.WithLogger(slog.New(slog.DiscardHandler)),
		session.WithShutdownGrace(grace),
		session.WithConnOptions(jsonrpc2.WithLogger(slog.New(w)), jsonrpc2.WithCancelGrace(50*time.Millisecond)))
	a, b := jsonrpc2.NewPipe()
	defer b.Close()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ctx, a) }()
	p := &rawPeer{t: t, tr: b}
	p.send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)
	p.recv()
	p.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	p.send(`{"jsonrpc":"2.0","id":"slow","method":"tools/call","params":{"name":"x","arguments":{}}}`)
	<-impl.started
	start := time.Now()
	cancel()
	var err error
	select {
	case err = <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("Serve did not return 10 s after its ctx ended")
	}
	took := time.Since(start)
	t.Logf("Serve returned %v after its ctx ended (grace %v): %v", took.Round(time.Millisecond), grace, err)
	if took > grace+time.Second {
		t.Errorf("Serve took %v, want about the %v grace", took, grace)
	}
	if err == nil || !strings.Contains(err.Error(), "still running") {
		t.Errorf("Serve returned %v, want an error saying handlers are still running", err)
	}
	for found := false; !found; {
		w.mu.Lock()
		for _, m := range w.msgs {
			if strings.Contains(m, "ignores its cancelled context") && strings.Contains(m, `id="slow"`) && strings.Contains(m, "method=tools/call") {
				found = true
			}
		}
		msgs := w.msgs
		w.mu.Unlock()
		if found {
			break
		}
		select {
		case <-w.got:
		case <-time.After(10 * time.Second):
			t.Fatalf("no warning naming the stubborn handler; warnings: %q", msgs)
		}
	}
}
