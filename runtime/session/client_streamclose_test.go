package session_test

import (
	"context"
	"testing"
	"time"

	mcp "github.com/mcpgen/mcpgen/generated/mcp20260728"
	"github.com/mcpgen/mcpgen/runtime/jsonrpc2"
	"github.com/mcpgen/mcpgen/runtime/session"
)

// streamCloser is a client transport whose requests each have a stream
// that closing cancels (as Streamable HTTP's does at 2026-07-28); here it
// records the ids closed and notifications written.
type streamCloser struct {
	jsonrpc2.Transport
	closed chan jsonrpc2.RequestID
	wrote  chan string
}

func (s *streamCloser) WriteMessage(ctx context.Context, m *jsonrpc2.OutMessage) error {
	if !m.CloseStream {
		return s.Write(ctx, m.Data)
	}
	s.closed <- m.ID
	return nil
}

func (s *streamCloser) Write(ctx context.Context, msg []byte) error {
	if m, err := jsonrpc2.DecodeMessage(msg); err == nil && m.Kind == jsonrpc2.KindNotification {
		select {
		case s.wrote <- m.Method:
		default:
		}
	}
	return s.Transport.Write(ctx, msg)
}

// TestModernCancelClosesStream: through Connect, a cancelled modern call
// over a transport with request streams closes the call's stream, and sends
// no notifications/cancelled.
func TestModernCancelClosesStream(t *testing.T) {
	a, b := jsonrpc2.NewPipe()
	ts := &toolServer{started: make(chan struct{}, 1)}
	srv := newServer(nil, ts)
	done := make(chan error, 1)
	ctx, stop := context.WithCancel(context.Background())
	defer stop()
	go func() { done <- srv.Serve(ctx, a) }()
	tr := &streamCloser{Transport: b, closed: make(chan jsonrpc2.RequestID, 1), wrote: make(chan string, 8)}
	s, err := mcp.Connect(ctx, tr, session.Implementation{Name: "client", Version: "2"}, nil,
		session.WithClientLegacy(legacyRevisions...), session.WithVersion("2026-07-28"))
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		s.Close(context.Background())
		stop()
		<-done
	}()
	callCtx, cancel := context.WithCancel(ctx)
	returned := make(chan error, 1)
	go func() {
		_, err := s.CallTool(callCtx, &mcp.CallToolRequestParams{Name: "block"})
		returned <- err
	}()
	select {
	case <-ts.started:
	case <-time.After(5 * time.Second):
		t.Fatal("the block handler did not start")
	}
	cancel()
	select {
	case <-tr.closed:
	case m := <-tr.wrote:
		t.Fatalf("wrote %s instead of closing the request's stream", m)
	case <-time.After(5 * time.Second):
		t.Fatal("the cancelled call's stream was not closed")
	}
	if err := <-returned; err == nil {
		t.Error("the cancelled call returned no error")
	}
}
