package jsonrpc2

import (
	"context"
	"io"
	"log/slog"
	"os"
	"testing"
	"time"

	"go.uber.org/goleak"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

// quietLogger discards logs; tests that check logging use a capturing one.
func quietLogger() *slog.Logger {
	return slog.New(slog.NewTextHandler(io.Discard, &slog.HandlerOptions{Level: slog.LevelError}))
}

// osPipe opens an os.Pipe, failing tb if it cannot.
func osPipe(tb testing.TB) (r, w *os.File) {
	tb.Helper()
	r, w, err := os.Pipe()
	if err != nil {
		tb.Fatal(err)
	}
	return r, w
}

// pair returns two started Conns joined by an in-memory pipe, closed at the
// end of the test (Close waits for every handler, so goleak stays quiet).
func pair(t testing.TB, serverOpts, clientOpts []Option) (server, client *Conn) {
	t.Helper()
	a, b := NewPipe()
	sp, cp := testPolicy(SideServer), testPolicy(SideClient)
	server = NewConn(a, append([]Option{WithPolicy(sp), WithLogger(quietLogger())}, serverOpts...)...)
	client = NewConn(b, append([]Option{WithPolicy(cp), WithLogger(quietLogger())}, clientOpts...)...)
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if err := client.Close(ctx); err != nil {
			t.Errorf("client Close: %v", err)
		}
		if err := server.Close(ctx); err != nil {
			t.Errorf("server Close: %v", err)
		}
	})
	return server, client
}

// within fails the test if ch is not ready within a generous bound; the bound
// only guards against hangs, it is not what the test measures.
func within(t testing.TB, ch <-chan struct{}, what string) {
	t.Helper()
	select {
	case <-ch:
	case <-time.After(10 * time.Second):
		t.Fatalf("timed out waiting for %s", what)
	}
}
