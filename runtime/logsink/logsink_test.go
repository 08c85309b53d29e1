package logsink

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"strings"
	"sync"
	"testing"

	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// blockingWriter blocks every Write until released: a stderr nobody drains.
type blockingWriter struct {
	release chan struct{}
	mu      sync.Mutex
	buf     bytes.Buffer
}

func (w *blockingWriter) Write(p []byte) (int, error) {
	<-w.release
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.buf.Write(p)
}

// A stuck sink never blocks the logger: records beyond the queue are dropped
// and counted, and once the sink moves the drop count is logged.
func TestStuckSinkDropsWithCount(t *testing.T) {
	w := &blockingWriter{release: make(chan struct{})}
	h := NewHandler(slog.NewTextHandler(w, nil), 4)
	log := slog.New(h)
	for i := 0; i < 100; i++ { // would block forever if Handle waited
		log.Info("m", "i", i)
	}
	// At most the queue plus the one record being written got through.
	if d := h.Dropped(); d < 100-5 {
		t.Fatalf("dropped %d of 100 with a queue of 4", d)
	}
	close(w.release)
	if err := h.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	out := w.buf.String()
	if !strings.Contains(out, "log records dropped") || strings.Count(out, "msg=m") != int(100-h.Dropped()) {
		t.Fatalf("output:\n%s", out)
	}
}

// Close gives up on a sink that never moves.
func TestCloseBounded(t *testing.T) {
	w := &blockingWriter{release: make(chan struct{})}
	h := NewHandler(slog.NewTextHandler(w, nil), 4)
	slog.New(h).Info("stuck")
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := h.Close(ctx); err == nil {
		t.Fatal("Close returned nil with a stuck sink")
	}
	close(w.release)
	h.Close(context.Background())
}

func BenchmarkHandle(b *testing.B) {
	h := NewHandler(slog.NewTextHandler(io.Discard, nil), 0)
	log := slog.New(h)
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		log.Info("m", "i", i)
	}
	h.Close(context.Background())
}
