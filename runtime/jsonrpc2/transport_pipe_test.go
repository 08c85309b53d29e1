package jsonrpc2

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sync"
	"testing"
)

// TestPipeBlocksAtCapacity: a writer that outpaces its reader stops at
// pipeCapacity unread messages, and one read lets exactly one more in.
func TestPipeBlocksAtCapacity(t *testing.T) {
	a, b := NewPipe()
	defer a.Close()
	ctx := context.Background()
	for i := 0; i < pipeCapacity; i++ {
		if err := a.Write(ctx, []byte{byte(i)}); err != nil {
			t.Fatalf("write %d: %v", i, err)
		}
	}
	written := make(chan error, 1)
	go func() { written <- a.Write(ctx, []byte("last")) }()
	// The write past capacity can only finish once a message is read.
	select {
	case err := <-written:
		t.Fatalf("write past capacity returned %v before any read", err)
	default:
	}
	if m, err := b.Read(ctx); err != nil || m[0] != 0 {
		t.Fatalf("first read = %v, %v", m, err)
	}
	within(t, errDone(written), "the blocked write after a read")
	for i := 1; i < pipeCapacity; i++ {
		if m, err := b.Read(ctx); err != nil || m[0] != byte(i) {
			t.Fatalf("read %d = %v, %v", i, m, err)
		}
	}
	if m, err := b.Read(ctx); err != nil || string(m) != "last" {
		t.Fatalf("last read = %q, %v", m, err)
	}
}

// errDone turns the result of a write into a channel within can wait on,
// failing nothing itself: the caller checks order, not the error.
func errDone(ch <-chan error) <-chan struct{} {
	done := make(chan struct{})
	go func() { <-ch; close(done) }()
	return done
}

// TestPipeManyBlockedWriters: with many writers blocked on a full pipe, a
// reader that keeps reading gets every message (no writer misses its
// wake-up), each writer's in its own order.
func TestPipeManyBlockedWriters(t *testing.T) {
	a, b := NewPipe()
	defer a.Close()
	ctx := context.Background()
	const writers, each = 16, pipeCapacity / 2
	var wg sync.WaitGroup
	for w := 0; w < writers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < each; i++ {
				if err := a.Write(ctx, []byte(fmt.Sprintf("%d %d", w, i))); err != nil {
					t.Errorf("writer %d: %v", w, err)
					return
				}
			}
		}()
	}
	next := make([]int, writers)
	for n := 0; n < writers*each; n++ {
		m, err := b.Read(ctx)
		if err != nil {
			t.Fatalf("read %d: %v", n, err)
		}
		var w, i int
		if _, err := fmt.Sscanf(string(m), "%d %d", &w, &i); err != nil || i != next[w] {
			t.Fatalf("read %q, want writer %d's message %d", m, w, next[w])
		}
		next[w]++
	}
	wg.Wait()
}

// TestPipeBlockedWriterGivesUp: a write blocked on a full pipe returns when
// its ctx ends or the pipe closes, and the reader still gets what was
// written, then io.EOF.
func TestPipeBlockedWriterGivesUp(t *testing.T) {
	a, b := NewPipe()
	for i := 0; i < pipeCapacity; i++ {
		if err := a.Write(context.Background(), []byte("m")); err != nil {
			t.Fatal(err)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := a.Write(ctx, []byte("x")); !errors.Is(err, context.Canceled) {
		t.Fatalf("blocked write with a cancelled ctx = %v", err)
	}
	closed := make(chan error, 1)
	go func() { closed <- a.Write(context.Background(), []byte("x")) }()
	a.Close()
	if err := <-closed; !errors.Is(err, ErrTransportClosed) {
		t.Fatalf("blocked write at Close = %v", err)
	}
	for i := 0; i < pipeCapacity; i++ {
		if _, err := b.Read(context.Background()); err != nil {
			t.Fatalf("read %d after close: %v", i, err)
		}
	}
	if _, err := b.Read(context.Background()); !errors.Is(err, io.EOF) {
		t.Fatalf("read past the written messages = %v, want io.EOF", err)
	}
}

// TestPipeReleasesBurst: once a burst has been read, the queue does not
// keep its slots.
func TestPipeReleasesBurst(t *testing.T) {
	a, b := NewPipe()
	defer a.Close()
	ctx := context.Background()
	for i := 0; i < 1000; i++ {
		a.Write(ctx, []byte("m"))
	}
	for i := 0; i < 1000; i++ {
		b.Read(ctx)
	}
	q := a.(*pipeTransport).out
	q.mu.Lock()
	defer q.mu.Unlock()
	if cap(q.q) > 256 {
		t.Fatalf("queue keeps %d slots after the burst was read", cap(q.q))
	}
}

// tryWrite queues when there is room and otherwise declines without
// queueing or being counted as a waiting writer: a writer blocked at
// capacity is still the one let in by the next read.
func TestPipeTryWrite(t *testing.T) {
	a, b := NewPipe()
	defer a.Close()
	ctx := context.Background()
	end := a.(*pipeTransport)
	if !end.tryWrite([]byte("first")) {
		t.Fatal("tryWrite declined an empty pipe")
	}
	for i := 1; i < pipeCapacity; i++ {
		if err := a.Write(ctx, []byte{byte(i)}); err != nil {
			t.Fatalf("write %d: %v", i, err)
		}
	}
	if end.tryWrite([]byte("over")) {
		t.Fatal("tryWrite queued past capacity")
	}
	if w := end.out.waiters; w != 0 {
		t.Fatalf("a declined tryWrite left %d waiters", w)
	}
	if m, err := b.Read(ctx); err != nil || string(m) != "first" {
		t.Fatalf("first read = %q, %v", m, err)
	}
	for i := 1; i < pipeCapacity; i++ {
		if m, err := b.Read(ctx); err != nil || m[0] != byte(i) {
			t.Fatalf("read %d = %v, %v", i, m, err)
		}
	}
	a.Close()
	if end.tryWrite([]byte("closed")) {
		t.Fatal("tryWrite queued after Close")
	}
}
