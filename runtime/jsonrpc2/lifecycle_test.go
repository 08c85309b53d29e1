package jsonrpc2

import (
	"context"
	"errors"
	"io"
	"strconv"
	"strings"
	"testing"
	"time"
)

// Must-show 7: the server calls the client with the same cancellation, and
// the client runs incoming requests under their own cancellable context with
// no deadline imposed. The chain: the client cancels tools/call → the server
// handler's ctx ends → its sampling call to the client is abandoned and
// cancelled on the wire → the client's sampling handler sees SourcePeer.
func TestBothDirectionsCancellationChain(t *testing.T) {
	server, client := pair(t, nil, nil)
	samplingCause := make(chan error, 1)
	samplingStarted := make(chan struct{})
	client.Handle("sampling/createMessage", func(ctx context.Context, req *Request) (any, error) {
		if _, ok := ctx.Deadline(); ok {
			t.Error("client handler context has a deadline")
		}
		close(samplingStarted)
		<-ctx.Done()
		samplingCause <- context.Cause(ctx)
		return nil, ctx.Err()
	})
	serverCallErr := make(chan error, 1)
	server.Handle("tools/call", func(ctx context.Context, req *Request) (any, error) {
		err := server.Call(ctx, "sampling/createMessage", map[string]any{"maxTokens": 10}, nil)
		serverCallErr <- err
		return nil, err
	})
	server.Start()
	client.Start()
	ctx, cancel := context.WithCancelCause(context.Background())
	errc := callAsync(client, ctx, "tools/call", map[string]any{"name": "ask"})
	within(t, samplingStarted, "sampling handler")
	cancel(errors.New("user closed the dialog"))
	if err := <-errc; err != context.Canceled {
		t.Fatalf("client Call: %v", err)
	}
	if err := <-serverCallErr; !errors.Is(err, context.Canceled) {
		t.Fatalf("server's sampling call: %v", err)
	}
	var ce *CancelError
	if err := <-samplingCause; !errors.As(err, &ce) || ce.Source != SourcePeer || ce.Method != "sampling/createMessage" {
		t.Fatalf("sampling handler cause: %v", err)
	}
	// The server's reason is the cause of its handler context: the client's
	// cancellation of tools/call, reason included.
	if want := "user closed the dialog"; !strings.Contains(ce.Reason, want) {
		t.Fatalf("reason %q does not carry %q", ce.Reason, want)
	}
}

// Must-show 8: EOF cancels every in-flight handler (cause says so) and fails
// every outgoing call; Done closes.
func TestTeardownOnEOF(t *testing.T) {
	p := newRawPeer(t, WithEOFGrace(20*time.Millisecond)) // the handler ignores the grace: it waits for ctx
	causes := make(chan error, 1)
	started := make(chan struct{})
	p.conn.Handle("work", func(ctx context.Context, req *Request) (any, error) {
		close(started)
		<-ctx.Done()
		causes <- context.Cause(ctx)
		return nil, nil
	})
	p.send(`{"jsonrpc":"2.0","id":1,"method":"work"}`)
	<-started
	errc := callAsync(p.conn, context.Background(), "tools/call", nil)
	p.next()
	p.toC.Close() // EOF
	var ce *CancelError
	if err := <-causes; !errors.As(err, &ce) || ce.Source != SourceTransportClosed || ce.ID != Int64ID(1) || !errors.Is(err, io.EOF) || !strings.Contains(ce.Reason, "grace period passed") {
		t.Fatalf("handler cause %v", err)
	}
	if err := <-errc; !errors.As(err, &ce) || ce.Source != SourceTransportClosed {
		t.Fatalf("call error %v", err)
	}
	within(t, p.conn.Done(), "Done")
	if err := p.conn.Call(context.Background(), "x", nil, nil); !errors.Is(err, ErrClosed) {
		t.Fatalf("Call after shutdown: %v", err)
	}
}

// failingTransport's Read fails once the test says so.
type failingTransport struct {
	Transport
	fail chan error
}

func (f *failingTransport) Read(ctx context.Context) ([]byte, error) {
	select {
	case err := <-f.fail:
		return nil, err
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// Must-show 8: a transport error cancels handlers with SourceTransportError
// and the error itself; Run returns it.
func TestTeardownOnTransportError(t *testing.T) {
	a, b := NewPipe()
	defer b.Close()
	ft := &failingTransport{Transport: a, fail: make(chan error)}
	c := NewConn(ft, WithLogger(quietLogger()), WithPolicy(testPolicy(SideAny)))
	defer c.Close(context.Background())
	errc := callAsync(c, context.Background(), "tools/call", nil)
	c.Start()
	if _, err := b.Read(context.Background()); err != nil {
		t.Fatal(err)
	}
	boom := errors.New("boom")
	ft.fail <- boom
	err := <-errc
	var ce *CancelError
	if !errors.As(err, &ce) || ce.Source != SourceTransportError || !errors.Is(err, boom) {
		t.Fatalf("call error %v", err)
	}
	if err := c.Run(context.Background()); !errors.Is(err, boom) {
		t.Fatalf("Run = %v", err)
	}
}

// Must-show 8: Close cancels handlers (SourceClose) and fails calls, waits
// for handlers until its ctx ends, then returns.
func TestCloseWaitsForHandlersUntilDeadline(t *testing.T) {
	server, client := pair(t, nil, nil)
	release := make(chan struct{})
	causes := make(chan error, 1)
	started := make(chan struct{})
	server.Handle("stubborn", func(ctx context.Context, req *Request) (any, error) {
		close(started)
		<-ctx.Done()
		causes <- context.Cause(ctx)
		<-release // keeps running after cancellation
		return nil, nil
	})
	rootsStarted := make(chan struct{})
	client.Handle("roots/list", func(ctx context.Context, req *Request) (any, error) {
		close(rootsStarted)
		<-ctx.Done()
		return nil, nil
	})
	server.Start()
	client.Start()
	defer close(release) // lets the stubborn handler end even if the test fails early
	errc := callAsync(client, context.Background(), "stubborn", nil)
	within(t, started, "handler")
	pending := callAsync(server, context.Background(), "roots/list", nil) // an outgoing call of the server
	within(t, rootsStarted, "the server's call to reach the client")

	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Millisecond)
	defer cancel()
	if err := server.Close(ctx); err != context.DeadlineExceeded {
		t.Fatalf("Close = %v, want DeadlineExceeded while the handler runs", err)
	}
	var ce *CancelError
	if err := <-causes; !errors.As(err, &ce) || ce.Source != SourceClose {
		t.Fatalf("handler cause %v", err)
	}
	if err := <-pending; !errors.As(err, &ce) || ce.Source != SourceClose {
		t.Fatalf("server's pending call: %v", err)
	}
	if err := <-errc; !errors.As(err, &ce) || ce.Source != SourceTransportClosed {
		t.Fatalf("client call: %v", err)
	}
	release <- struct{}{}
	if err := server.Close(context.Background()); err != nil {
		t.Fatalf("second Close = %v", err)
	}
}

// Run's context ending shuts the Conn down like Close.
func TestRunContextEnds(t *testing.T) {
	a, b := NewPipe()
	defer b.Close()
	c := NewConn(a, WithLogger(quietLogger()), WithPolicy(testPolicy(SideAny)))
	ctx, cancel := context.WithCancel(context.Background())
	runErr := make(chan error, 1)
	go func() { runErr <- c.Run(ctx) }()
	cancel()
	if err := <-runErr; err != context.Canceled {
		t.Fatalf("Run = %v", err)
	}
	var ce *CancelError
	if !errors.As(c.Err(), &ce) || ce.Source != SourceClose {
		t.Fatalf("Err = %v", c.Err())
	}
	if err := c.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
}

func TestCloseBeforeStart(t *testing.T) {
	a, b := NewPipe()
	defer b.Close()
	c := NewConn(a, WithLogger(quietLogger()), WithPolicy(testPolicy(SideAny)))
	if err := c.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	within(t, c.Done(), "Done")
}

// Must-show 9: the observer sees requested/sent on the calling side and
// received/applied on the handling side.
func TestObserverSeesBothSides(t *testing.T) {
	sev, cev := newEventLog(), newEventLog()
	server, client := pair(t, []Option{WithObserver(sev.observe)}, []Option{WithObserver(cev.observe)})
	started := make(chan struct{})
	server.Handle("work", func(ctx context.Context, req *Request) (any, error) {
		close(started)
		<-ctx.Done()
		return nil, nil
	})
	server.Start()
	client.Start()
	ctx, cancel := context.WithCancel(context.Background())
	errc := callAsync(client, ctx, "work", nil)
	within(t, started, "handler")
	cancel()
	<-errc
	applied := sev.waitFor(t, func(e Event) bool { return e.Kind == EventApplied })
	if applied.Method != "work" || applied.Source != SourcePeer || applied.Direction != Incoming || applied.Reason != "context canceled" {
		t.Errorf("applied %+v", applied)
	}
	// Events reach the observer on the dispatch goroutine: wait for the
	// last one of each side before comparing sequences.
	cev.waitFor(t, func(e Event) bool { return e.Kind == EventSent })
	kinds := func(evs []Event) (ks []EventKind) {
		for _, e := range evs {
			ks = append(ks, e.Kind)
		}
		return ks
	}
	if ks := kinds(cev.snapshot()); len(ks) != 2 || ks[0] != EventRequested || ks[1] != EventSent {
		t.Errorf("client events %v", ks)
	}
	if ks := kinds(sev.snapshot()); len(ks) != 2 || ks[0] != EventReceived || ks[1] != EventApplied {
		t.Errorf("server events %v", ks)
	}
}

// Notifications reach their handler in order and the runtime's own
// notifications are not passed on as unknown.
func TestNotificationsInOrder(t *testing.T) {
	server, client := pair(t, nil, nil)
	got := make(chan string, 100)
	server.HandleNotification("notifications/message", func(ctx context.Context, n *Notification) {
		got <- string(n.Params)
	})
	server.Start()
	client.Start()
	for i := 0; i < 50; i++ {
		if err := client.Notify(context.Background(), "notifications/message", map[string]int{"i": i}); err != nil {
			t.Fatal(err)
		}
	}
	for i := 0; i < 50; i++ {
		want := `{"i":` + strconv.Itoa(i) + `}`
		if g := <-got; g != want {
			t.Fatalf("notification %d: %s", i, g)
		}
	}
}

// A panicking handler answers -32603 and the session goes on.
func TestHandlerPanicAndErrors(t *testing.T) {
	server, client := pair(t, nil, nil)
	server.Handle("panic", func(ctx context.Context, req *Request) (any, error) { panic("boom") })
	server.Handle("rpcerr", func(ctx context.Context, req *Request) (any, error) {
		return nil, &Error{Code: CodeInvalidParams, Message: "bad", Data: []byte(`{"field":"x"}`)}
	})
	server.Handle("plain", func(ctx context.Context, req *Request) (any, error) { return nil, errors.New("disk full") })
	server.Handle("nil", func(ctx context.Context, req *Request) (any, error) { return nil, nil })
	server.Start()
	client.Start()
	var e *Error
	if err := client.Call(context.Background(), "panic", nil, nil); !errors.As(err, &e) || e.Code != CodeInternalError {
		t.Fatalf("panic: %v", err)
	}
	if err := client.Call(context.Background(), "rpcerr", nil, nil); !errors.As(err, &e) || e.Code != CodeInvalidParams || string(e.Data) != `{"field":"x"}` {
		t.Fatalf("rpcerr: %v", err)
	}
	if err := client.Call(context.Background(), "plain", nil, nil); !errors.As(err, &e) || e.Code != CodeInternalError || e.Message != "internal error: disk full" {
		t.Fatalf("plain: %v", err)
	}
	var raw map[string]any
	if err := client.Call(context.Background(), "nil", nil, &raw); err != nil || raw == nil || len(raw) != 0 {
		t.Fatalf("nil result: %v %v", raw, err)
	}
}
