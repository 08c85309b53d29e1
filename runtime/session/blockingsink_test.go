package session_test

import (
	"context"
	"fmt"
	"log/slog"
	"sync/atomic"
	"testing"

	mcp "github.com/mcpgen/mcpgen/generated/mcp20260728"
	"github.com/mcpgen/mcpgen/runtime/jsonrpc2"
	"github.com/mcpgen/mcpgen/runtime/session"
)

// blockingHandler is a slog.Handler whose Handle blocks until release is
// closed: a stderr nobody drains, a log shipper that hangs.
type blockingHandler struct {
	release <-chan struct{}
	calls   *atomic.Int64
}

func (blockingHandler) Enabled(context.Context, slog.Level) bool { return true }
func (h blockingHandler) Handle(context.Context, slog.Record) error {
	h.calls.Add(1)
	<-h.release
	return nil
}
func (h blockingHandler) WithAttrs([]slog.Attr) slog.Handler { return h }
func (h blockingHandler) WithGroup(string) slog.Handler      { return h }

// Issue 25, must-show 4, through the documented path: whatever the user
// gives the server as its logger (session.WithLogger), the runtime's logger
// and the observer (through WithConnOptions), all blocking forever, no
// request waits for them: 2,000 tool calls that fail (each logged by the
// session at Error) and 2,000 cancellations of unknown requests (each an
// observer event and a runtime log line) are all routed, and every call is
// answered, while the sinks are stuck.
func TestBlockingLoggerAndObserverDoNotStallServer(t *testing.T) {
	release := make(chan struct{})
	defer close(release)
	var logCalls, obsCalls atomic.Int64
	blocking := slog.New(blockingHandler{release, &logCalls})
	srv := newServerOpts(blocking, &toolServer{},
		session.WithConnOptions(
			jsonrpc2.WithLogger(blocking),
			jsonrpc2.WithObserver(func(jsonrpc2.Event) { obsCalls.Add(1); <-release }),
		))
	p := serve(t, srv)
	p.send(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)
	p.recv()
	p.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	const n = 2000
	sent := make(chan struct{})
	go func() {
		defer close(sent)
		for i := 1; i <= n; i++ {
			p.send(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"fail","arguments":{}}}`, i)
			p.send(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"unknown-%d"}}`, i)
		}
	}()
	seen := map[string]bool{}
	for len(seen) < n {
		m := p.recv()
		if m["error"] == nil {
			t.Fatalf("tools/call fail answered with %v", m)
		}
		seen[fmt.Sprint(m["id"])] = true
	}
	<-sent
	p.send(`{"jsonrpc":"2.0","id":"ping","method":"ping"}`)
	if m := p.recv(); m["id"] != "ping" {
		t.Fatalf("ping answered with %v", m)
	}
	t.Logf("%d calls answered with the sinks stuck: the logger was entered %d times, the observer %d", n, logCalls.Load(), obsCalls.Load())
	if logCalls.Load() > 2 || obsCalls.Load() > 1 {
		// One goroutine per Conn delivers, one item at a time: once stuck,
		// nothing else enters the sinks (the session's log and the Conn's
		// share the Conn's queue).
		t.Errorf("sinks entered %d and %d times while stuck", logCalls.Load(), obsCalls.Load())
	}
}

// newServerOpts is newServer with more options.
func newServerOpts(log *slog.Logger, impl any, opts ...session.ServerOption) *session.Server {
	return mcp.NewServer(session.Implementation{Name: "test", Version: "1"}, impl,
		append([]session.ServerOption{session.WithLegacy(legacyRevisions...), session.WithLogger(log)}, opts...)...)
}
