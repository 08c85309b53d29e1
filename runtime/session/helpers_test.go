package session_test

import (
	"bytes"
	"context"
	"errors"
	"os/exec"
	"strings"
	"testing"
	"time"

	mcp "github.com/mcpgen/mcpgen/generated/mcp20260728"
	"github.com/mcpgen/mcpgen/runtime/jsonrpc2"
	"github.com/mcpgen/mcpgen/runtime/session"
)

// stubborn has one tool whose handler ignores its cancelled ctx until the
// test releases it.
type stubborn struct{ started, release chan struct{} }

func (s *stubborn) CallTool(ctx context.Context, _ *mcp.CallToolRequestParams) (*mcp.CallToolResult, error) {
	close(s.started)
	<-s.release
	return mcp.TextResult("late"), nil
}

// TestServeStdioBound: when the session is stopped (a signal, ctx), a
// handler that ignores its cancellation holds ServeStdio up for the grace
// and no longer; the error says so.
func TestServeStdioBound(t *testing.T) {
	impl := &stubborn{started: make(chan struct{}), release: make(chan struct{})}
	defer close(impl.release)
	a, b := jsonrpc2.NewPipe()
	defer b.Close()
	ctx, stop := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- session.ServeBounded(newServer(nil, impl), ctx, a, 300*time.Millisecond) }()
	sess, err := mcp.Connect(context.Background(), b, session.Implementation{Name: "c", Version: "1"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	go func() { _, _ = sess.CallTool(context.Background(), &mcp.CallToolRequestParams{Name: "x"}) }()
	<-impl.started
	start := time.Now()
	stop()
	select {
	case err := <-done:
		if !errors.Is(err, session.ErrShutdownGrace) {
			t.Fatalf("ServeStdio returned %v, want ErrShutdownGrace", err)
		}
		if took := time.Since(start); took < 300*time.Millisecond {
			t.Fatalf("returned after %v, before the grace", took)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("ServeStdio did not return within its shutdown bound")
	}
}

// TestServeStdioEOF: the client going away is a clean end.
func TestServeStdioEOF(t *testing.T) {
	a, b := jsonrpc2.NewPipe()
	done := make(chan error, 1)
	go func() { done <- session.ServeBounded(newServer(nil, &toolServer{}), context.Background(), a, 0) }()
	sess, err := mcp.Connect(context.Background(), b, session.Implementation{Name: "c", Version: "1"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := sess.CallTool(context.Background(), &mcp.CallToolRequestParams{Name: "echo"}); err != nil {
		t.Fatal(err)
	}
	if err := sess.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	if err := <-done; err != nil {
		t.Fatalf("ServeStdio after EOF: %v", err)
	}
}

// TestCommandTransport: messages go to the subprocess's stdin and come back
// from its stdout (cat echoes them); Close ends a server that exits at EOF
// cleanly, and one that ignores EOF with SIGTERM after the grace.
func TestCommandTransport(t *testing.T) {
	if _, err := exec.LookPath("cat"); err != nil {
		t.Skip("no cat")
	}
	ct := &session.CommandTransport{Command: exec.Command("cat")}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := ct.Write(ctx, []byte(`{"jsonrpc":"2.0","method":"x"}`)); err != nil {
		t.Fatal(err)
	}
	if got, err := ct.Read(ctx); err != nil || string(got) != `{"jsonrpc":"2.0","method":"x"}` {
		t.Fatalf("read %q, %v", got, err)
	}
	if err := ct.Close(); err != nil {
		t.Fatalf("Close of a server that exits at EOF: %v", err)
	}

	stuck := &session.CommandTransport{Command: exec.Command("sleep", "30"), TerminateGrace: 100 * time.Millisecond}
	if err := stuck.Write(ctx, []byte("{}")); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	err := stuck.Close()
	if err == nil || !strings.Contains(err.Error(), "terminated") {
		t.Fatalf("Close of a server that ignores EOF: %v, want SIGTERM's exit", err)
	}
	if took := time.Since(start); took > 3*time.Second {
		t.Fatalf("Close took %v", took)
	}

	missing := &session.CommandTransport{Command: exec.Command("/nonexistent/server")}
	if err := missing.Write(ctx, []byte("{}")); err == nil || !strings.Contains(err.Error(), "/nonexistent/server") {
		t.Fatalf("starting a missing command: %v, want an error naming it", err)
	}
	if err := missing.Close(); err != nil {
		t.Fatalf("Close of a server that never started: %v", err)
	}
}

// TestProgressOptions: PrintProgress prints the progress of a call, and
// the generated WithProgress hands it over typed; the typed accessors
// decode what the server said about itself.
func TestProgressOptions(t *testing.T) {
	s := connect(t, newServer(nil, &toolServer{}), nil)
	var buf bytes.Buffer
	if _, err := s.WithCallOptions(session.PrintProgress(&buf)).CallTool(context.Background(), &mcp.CallToolRequestParams{Name: "chatty"}); err != nil {
		t.Fatal(err)
	}
	if buf.String() != "progress 1/2 half\n" {
		t.Fatalf("PrintProgress wrote %q", buf.String())
	}
	var got []*mcp.ProgressNotificationParams
	if _, err := s.WithCallOptions(mcp.WithProgress(func(p *mcp.ProgressNotificationParams) { got = append(got, p) })).CallTool(context.Background(), &mcp.CallToolRequestParams{Name: "chatty"}); err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || got[0].Progress != 1 || got[0].Total == nil || *got[0].Total != 2 || got[0].Message == nil || *got[0].Message != "half" {
		t.Fatalf("WithProgress got %+v", got)
	}
	if info := s.ServerInfo(); info.Name != "test" || info.Version != "1" {
		t.Fatalf("ServerInfo %+v", info)
	}
	if caps := s.ServerCapabilities(); caps.Tools == nil || caps.Prompts != nil {
		t.Fatalf("ServerCapabilities %+v", caps)
	}
}
