package jsonrpc2

import (
	"context"
	"encoding/json"
	"log/slog"
	"testing"
)

func (s *serialQueue) hasGoroutine() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.lazy.running
}

func (d *dispatcher) hasGoroutine() bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.lazy.running
}

// A queue costs no goroutine until something is queued after start; what
// was queued before start runs, in order, once it starts; an idle queue
// stops without ever having had a goroutine; nothing is taken after stop.
func TestSerialQueueStartsWithFirstEntry(t *testing.T) {
	q := newSerialQueue(1 << 20)
	var order []int
	ran := make(chan struct{})
	q.push(func(context.Context) { order = append(order, 1) })
	q.push(func(context.Context) { order = append(order, 2); close(ran) })
	if q.hasGoroutine() {
		t.Fatal("a queue that was not started runs a goroutine")
	}
	q.start()
	within(t, ran, "entries queued before start")
	if len(order) != 2 || order[0] != 1 || order[1] != 2 {
		t.Fatalf("ran %v, want [1 2]", order)
	}
	q.stop()
	within(t, q.exited, "the goroutine's exit")

	idle := newSerialQueue(1 << 20)
	idle.start()
	if idle.hasGoroutine() {
		t.Fatal("a started queue with nothing queued runs a goroutine")
	}
	idle.stop()
	within(t, idle.exited, "exited of a queue that never ran")
	idle.stop() // idempotent: exited is not closed twice
	if idle.push(func(context.Context) { t.Error("ran after stop") }) {
		t.Fatal("push after stop was accepted")
	}
	if idle.hasGoroutine() {
		t.Fatal("push after stop started a goroutine")
	}

	late := newSerialQueue(1 << 20)
	late.start()
	done := make(chan struct{})
	late.push(func(context.Context) { close(done) })
	within(t, done, "the first entry after start")
	late.stop()
	within(t, late.exited, "the goroutine's exit")
}

// A Conn serving plain requests with no observer and a quiet logger starts
// none of its queue goroutines (sender, notification runner, dispatcher): a
// modern HTTP request's Conn is one of these per open stream. Each starts
// when first needed, and Close still waits for what they were given.
func TestConnStartsQueueGoroutinesWhenNeeded(t *testing.T) {
	a, b := NewPipe()
	server := NewConn(a, WithLogger(quietLogger()), WithPolicy(testPolicy(SideAny)))
	client := NewConn(b, WithLogger(quietLogger()), WithPolicy(testPolicy(SideAny)))
	server.Handle("echo", func(ctx context.Context, req *Request) (any, error) { return json.RawMessage(req.Params), nil })
	got := make(chan struct{})
	server.HandleNotification("notifications/note", func(ctx context.Context, n *Notification) { close(got) })
	server.Start()
	client.Start()
	var out json.RawMessage
	if err := client.Call(context.Background(), "echo", map[string]int{"x": 1}, &out); err != nil {
		t.Fatal(err)
	}
	for _, c := range []*Conn{server, client} {
		if c.sender.hasGoroutine() || c.notifier.hasGoroutine() || c.disp.hasGoroutine() {
			t.Fatalf("after one round trip: sender %v, notifier %v, dispatcher %v; want no goroutine",
				c.sender.hasGoroutine(), c.notifier.hasGoroutine(), c.disp.hasGoroutine())
		}
	}
	if err := client.Notify(context.Background(), "notifications/note", nil); err != nil {
		t.Fatal(err)
	}
	within(t, got, "the notification handler")
	if !server.notifier.hasGoroutine() {
		t.Fatal("the notification ran without the notifier's goroutine")
	}
	if err := client.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	if err := server.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
}

// A dispatcher that never had anything to deliver is settled by Close with
// no goroutine; a record queued after that is dropped and counted, as it is
// after a drain goroutine has finished.
func TestDispatcherSettledWithoutGoroutine(t *testing.T) {
	a, _ := NewPipe()
	c := NewConn(a, WithLogger(quietLogger()), WithPolicy(testPolicy(SideAny)))
	c.Start()
	if err := c.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	if c.disp.hasGoroutine() {
		t.Fatal("Close started the dispatcher with nothing to deliver")
	}
	within(t, c.disp.exited, "exited of a dispatcher that never ran")
	if err := c.Close(context.Background()); err != nil { // idempotent
		t.Fatal(err)
	}
	l := slog.New(slog.NewTextHandler(discard{}, nil))
	c.QueuedLogger(l).Info("late")
	if s := c.DispatchStats(); s.Records != 1 || s.RecordsDropped != 1 {
		t.Fatalf("stats %+v, want the late record counted and dropped", s)
	}
}

type discard struct{}

func (discard) Write(p []byte) (int, error) { return len(p), nil }
