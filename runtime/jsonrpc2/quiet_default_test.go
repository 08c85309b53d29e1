package jsonrpc2

import (
	"bytes"
	"context"
	"log/slog"
	"testing"
)

// TestDefaultLoggerQuietAtInfo: without WithLogger the runtime writes
// nothing at Info to slog.Default (issue 7: a library must not fill its
// users' logs with one line per cancellation), but still warns.
func TestDefaultLoggerQuietAtInfo(t *testing.T) {
	var buf bytes.Buffer
	old := slog.Default()
	slog.SetDefault(slog.New(slog.NewTextHandler(&buf, &slog.HandlerOptions{Level: slog.LevelDebug})))
	defer slog.SetDefault(old)

	a, b := NewPipe()
	c := NewConn(a)
	defer b.Close()
	c.info("cancellation", slog.String("id", "1"))
	c.warn("protocol error", slog.String("id", "2"))
	// Records reach the handler on the dispatch goroutine; Close waits
	// until they have.
	if err := c.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	if bytes.Contains([]byte(out), []byte("cancellation")) {
		t.Errorf("Info line written by default: %s", out)
	}
	if !bytes.Contains([]byte(out), []byte("protocol error")) {
		t.Errorf("Warn line missing: %q", out)
	}
}
