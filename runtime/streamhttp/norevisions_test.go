package streamhttp

import (
	"context"
	"errors"
	"testing"

	"github.com/mcpgen/mcpgen/runtime/jsonrpc2"
)

// TestNoRevisions: streamhttp has no revision data of its own, so a
// Handler or a client without any is a clear error, not a silent default:
// Dial, Detect and ListenAndServe return ErrNoRevisions, and the
// constructors that cannot return an error panic with it.
func TestNoRevisions(t *testing.T) {
	ctx := context.Background()
	if _, err := Dial(ctx, "http://127.0.0.1:1/mcp", ClientOptions{Era: EraModern}); !errors.Is(err, ErrNoRevisions) {
		t.Errorf("Dial: %v, want ErrNoRevisions", err)
	}
	if _, err := Detect(ctx, "http://127.0.0.1:1/mcp", ClientOptions{}); !errors.Is(err, ErrNoRevisions) {
		t.Errorf("Detect: %v, want ErrNoRevisions", err)
	}
	lc := refusing{read: make(chan []byte, 1)} // a Lifecycle that lists no revisions
	if err := ListenAndServe(ctx, "127.0.0.1:0", lc, Options{Logger: quiet()}); !errors.Is(err, ErrNoRevisions) {
		t.Errorf("ListenAndServe: %v, want ErrNoRevisions", err)
	}
	panics := func(name string, f func()) {
		t.Helper()
		defer func() {
			if r := recover(); r != ErrNoRevisions {
				t.Errorf("%s: recovered %v, want ErrNoRevisions", name, r)
			}
		}()
		f()
	}
	panics("newHandler", func() {
		newHandler(func(context.Context, jsonrpc2.Transport, Era) *jsonrpc2.Conn { return nil }, Options{})
	})
	panics("NewHandler", func() { NewHandler(lc, Options{}) })
	panics("NewClientTransport", func() { NewClientTransport("http://127.0.0.1:1/mcp", ClientOptions{}) })
}
