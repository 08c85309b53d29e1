package jsonrpc2

import (
	"bytes"
	"context"
	"io"
	"sync"
	"testing"
)

// gatedWriter records every write. The first write holding a cancellation
// blocks until release is closed, so that what the sender queues behind it
// piles up.
type gatedWriter struct {
	mu      sync.Mutex
	writes  [][]byte
	gated   bool
	blocked chan struct{} // closed when the first cancellation write blocks
	release chan struct{}
	want    int // after this many writes, all is closed
	all     chan struct{}
}

func (w *gatedWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	w.writes = append(w.writes, bytes.Clone(p))
	gate := !w.gated && bytes.Contains(p, []byte("notifications/cancelled"))
	w.gated = w.gated || gate
	if len(w.writes) == w.want {
		close(w.all)
	}
	w.mu.Unlock()
	if gate {
		close(w.blocked)
		<-w.release
	}
	return len(p), nil
}

// Issue 9: 1,000 queued notifications/cancelled are not 1,000 writes. Every
// cancellation is written exactly once, whole, in order of queueing, and
// the ones that queued up behind a write go out together.
func TestQueuedCancellationsShareWrites(t *testing.T) {
	const n = 1000
	w := &gatedWriter{blocked: make(chan struct{}), release: make(chan struct{}), want: n, all: make(chan struct{})}
	pr, pw := io.Pipe() // the peer never answers
	defer pw.Close()
	c := NewConn(NewStdioTransport(pr, w, StdioOptions{}), WithLogger(quietLogger()), WithPolicy(testPolicy(SideAny)))
	c.Start()
	ctxs := make([]context.CancelFunc, n)
	var returned sync.WaitGroup
	for i := range n {
		ctx, cancel := context.WithCancel(context.Background())
		ctxs[i] = cancel
		returned.Add(1)
		go func() {
			defer returned.Done()
			_ = c.Call(ctx, "block", nil, nil)
		}()
	}
	<-w.all // every request is written: cancelling now puts each on the wire
	for _, cancel := range ctxs {
		cancel()
	}
	<-w.blocked
	returned.Wait() // every cancellation is queued behind the blocked write
	close(w.release)
	if err := c.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	seen := map[string]int{}
	cancelWrites := 0
	for _, p := range w.writes {
		if !bytes.Contains(p, []byte("notifications/cancelled")) {
			continue
		}
		cancelWrites++
		if p[len(p)-1] != '\n' {
			t.Fatalf("write does not end a line: %q", p[max(0, len(p)-40):])
		}
		for _, line := range bytes.Split(bytes.TrimSuffix(p, []byte("\n")), []byte("\n")) {
			m, err := DecodeMessage(line)
			if err != nil || m.Method != "notifications/cancelled" {
				t.Fatalf("line %q: %v", line, err)
			}
			id, _, _ := bytes.Cut(bytes.TrimPrefix(m.Params, []byte(`{"requestId":`)), []byte(","))
			seen[string(id)]++
		}
	}
	if len(seen) != n {
		t.Fatalf("%d distinct cancellations written, want %d", len(seen), n)
	}
	for id, k := range seen {
		if k != 1 {
			t.Fatalf("cancellation of %s written %d times", id, k)
		}
	}
	// One blocked write, then the other 999 in batches of at most 256.
	if want := 1 + (n-1+maxBatchMessages-1)/maxBatchMessages; cancelWrites > want {
		t.Fatalf("%d writes for %d cancellations, want at most %d", cancelWrites, n, want)
	}
	t.Logf("%d cancellations in %d writes", n, cancelWrites)
}
