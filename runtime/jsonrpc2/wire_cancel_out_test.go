package jsonrpc2

import (
	"context"
	"encoding/json"
	"errors"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// callAsync runs Call on a goroutine and returns its error channel.
func callAsync(c *Conn, ctx context.Context, method string, params any, opts ...CallOption) <-chan error {
	errc := make(chan error, 1)
	go func() { errc <- c.Call(ctx, method, params, nil, opts...) }()
	return errc
}

// Must-show 5: when the caller's context ends, Call returns at once with the
// context's error; notifications/cancelled {requestId, reason from the cause}
// goes out exactly once; a late response is dropped silently.
func TestWireCallerCancelSendsNotificationOnce(t *testing.T) {
	events := newEventLog()
	p := newRawPeer(t, WithObserver(events.observe))
	ctx, cancel := context.WithCancelCause(context.Background())
	errc := callAsync(p.conn, ctx, "tools/call", map[string]any{"name": "slow"})
	req := p.nextJSON()
	if req["method"] != "tools/call" {
		t.Fatalf("request %v", req)
	}
	id := req["id"].(json.Number)
	cancel(errors.New("user pressed stop"))
	if err := <-errc; err != context.Canceled {
		t.Fatalf("Call returned %v, want context.Canceled", err)
	}
	want := `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":` + string(id) + `,"reason":"user pressed stop"}}`
	if l := p.next(); l != want {
		t.Fatalf("got %s\nwant %s", l, want)
	}
	// A late response is dropped silently: nothing is written back and the
	// session goes on.
	p.send(`{"jsonrpc":"2.0","id":` + string(id) + `,"result":{"content":[]}}`)
	if rest := p.sync("x"); len(rest) != 0 {
		t.Fatalf("unexpected lines %q", rest)
	}
	if rest := p.closeAndDrain(); len(rest) != 0 {
		t.Fatalf("more lines after the cancellation: %q", rest)
	}
	kinds := []EventKind{}
	for _, e := range events.snapshot() {
		kinds = append(kinds, e.Kind)
	}
	if len(kinds) != 2 || kinds[0] != EventRequested || kinds[1] != EventSent {
		t.Fatalf("observer saw %v, want [requested sent]", kinds)
	}
}

// Must-show 5: the notification is not lost when Close follows at once
// (go-sdk loses it 20/20, research E5).
func TestWireCancelNotLostOnImmediateClose(t *testing.T) {
	for i := 0; i < 20; i++ {
		p := newRawPeer(t)
		ctx, cancel := context.WithCancel(context.Background())
		errc := callAsync(p.conn, ctx, "tools/call", nil)
		p.next() // the request is on the wire
		cancel()
		<-errc
		rest := p.closeAndDrain()
		if len(rest) != 1 || !strings.Contains(rest[0], `"method":"notifications/cancelled"`) {
			t.Fatalf("run %d: lines after cancel+Close: %q", i, rest)
		}
	}
}

// Must-show 5: never for initialize (research E4).
func TestWireNoCancelForInitialize(t *testing.T) {
	events := newEventLog()
	p := newRawPeer(t, WithObserver(events.observe))
	ctx, cancel := context.WithCancel(context.Background())
	errc := callAsync(p.conn, ctx, "initialize", map[string]any{"protocolVersion": "2025-06-18"})
	p.next()
	cancel()
	if err := <-errc; !errors.Is(err, context.Canceled) {
		t.Fatal(err)
	}
	ev := events.waitFor(t, func(e Event) bool { return e.Kind == EventIgnored })
	if ev.Why != IgnoreNotCancellable || ev.Method != "initialize" {
		t.Fatalf("event %+v", ev)
	}
	if rest := p.closeAndDrain(); len(rest) != 0 {
		t.Fatalf("written after cancelling initialize: %q", rest)
	}
}

// gateTransport lets the first `pass` writes through and blocks later ones
// until released (or their ctx ends), recording what it wrote.
type gateTransport struct {
	Transport
	mu      sync.Mutex
	pass    int
	written []string
	release chan struct{}
	blocked chan struct{} // receives when a write starts blocking
}

func (g *gateTransport) Write(ctx context.Context, msg []byte) error {
	g.mu.Lock()
	open := g.pass > 0
	if open {
		g.pass--
	}
	g.mu.Unlock()
	if !open {
		select {
		case g.blocked <- struct{}{}:
		default:
		}
		select {
		case <-g.release:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	g.mu.Lock()
	g.written = append(g.written, string(msg))
	g.mu.Unlock()
	return g.Transport.Write(ctx, msg)
}

func (g *gateTransport) lines() []string {
	g.mu.Lock()
	defer g.mu.Unlock()
	return append([]string(nil), g.written...)
}

// Must-show 5: never for a request that was never written, and the caller is
// never blocked by the notification.
func TestNoCancelForUnwrittenRequestAndCallerNeverBlocks(t *testing.T) {
	a, b := NewPipe()
	defer b.Close()
	g := &gateTransport{Transport: a, release: make(chan struct{}), blocked: make(chan struct{}, 1)}
	events := newEventLog()
	c := NewConn(g, WithLogger(quietLogger()), WithPolicy(testPolicy(SideAny)), WithObserver(events.observe))
	c.Start()
	defer c.Close(context.Background())

	// Already-cancelled context: nothing is written at all.
	dead, cancel := context.WithCancel(context.Background())
	cancel()
	if err := c.Call(dead, "tools/call", nil, nil); err != context.Canceled {
		t.Fatal(err)
	}
	// The write blocks and the caller gives up: not written, so no cancel.
	ctx, cancel2 := context.WithCancel(context.Background())
	errc := callAsync(c, ctx, "tools/call", nil)
	<-g.blocked
	cancel2()
	if err := <-errc; err != context.Canceled {
		t.Fatal(err)
	}
	if ev := events.waitFor(t, func(e Event) bool { return e.Kind == EventIgnored }); ev.Why != IgnoreNotWritten {
		t.Fatalf("event %+v", ev)
	}
	if w := g.lines(); len(w) != 0 {
		t.Fatalf("written: %q", w)
	}
	// A written request whose cancellation cannot be written yet: Call
	// still returns at once; the notification follows when the transport
	// frees up.
	g.mu.Lock()
	g.pass = 1
	g.mu.Unlock()
	ctx3, cancel3 := context.WithCancel(context.Background())
	errc = callAsync(c, ctx3, "tools/call", nil)
	if _, err := b.Read(context.Background()); err != nil { // the request
		t.Fatal(err)
	}
	cancel3()
	if err := <-errc; err != context.Canceled {
		t.Fatal(err)
	}
	<-g.blocked // the notification is waiting on the transport, not on the caller
	close(g.release)
	msg, err := b.Read(context.Background())
	if err != nil || !strings.Contains(string(msg), "notifications/cancelled") {
		t.Fatalf("got %s, %v", msg, err)
	}
}

// Must-show 6: a per-call timeout cancels the call on the wire with a reason
// naming the limit, and Call's error says which limit fired.
func TestWireCallTimeout(t *testing.T) {
	p := newRawPeer(t)
	errc := callAsync(p.conn, context.Background(), "tools/call", nil, WithTimeout(20*time.Millisecond))
	req := p.nextJSON()
	err := <-errc
	var ce *CancelError
	if !errors.As(err, &ce) || ce.Source != SourceTimeout || !errors.Is(err, context.DeadlineExceeded) || !errors.Is(err, context.Canceled) {
		t.Fatalf("Call returned %v", err)
	}
	cn := p.nextJSON()
	params := cn["params"].(map[string]any)
	if cn["method"] != "notifications/cancelled" || params["requestId"] != req["id"] || !strings.Contains(params["reason"].(string), "20ms timeout") {
		t.Fatalf("notification %v", cn)
	}
}

// Must-show 6: with WithProgressReset the runtime injects a progress token,
// progress restarts the clock, silence fires it, and the hard maximum fires
// whatever the progress.
func TestWireProgressResetAndMaximum(t *testing.T) {
	p := newRawPeer(t)

	// 1. Progress paced at half the timeout, six times (three timeouts in
	// all), then the answer: only the reset keeps the call alive. Each
	// progress is sent after the previous one reached the callback, so a
	// slow machine stretches the pacing but not the ratio.
	const resetTimeout = 400 * time.Millisecond
	seen := make(chan float64, 16)
	resc := make(chan error, 1)
	go func() {
		var out map[string]any
		resc <- p.conn.Call(context.Background(), "tools/call",
			json.RawMessage(`{"name":"x","_meta":{"keep":"me"}}`), &out,
			WithTimeout(resetTimeout), WithProgressReset(), WithMaxTimeout(time.Minute),
			WithProgress(func(pp ProgressParams) { seen <- pp.Progress }))
	}()
	req := p.nextJSON()
	meta := req["params"].(map[string]any)["_meta"].(map[string]any)
	if meta["keep"] != "me" || meta["progressToken"] != req["id"] {
		t.Fatalf("params._meta = %v, want the kept member and progressToken = id %v", meta, req["id"])
	}
	tok := string(meta["progressToken"].(json.Number))
	for i := 1; i <= 6; i++ {
		<-time.After(resetTimeout / 2)
		p.send(`{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":` + tok + `,"progress":` + strconv.Itoa(i) + `}}`)
		if got := <-seen; got != float64(i) {
			t.Fatalf("progress callback got %v, want %d", got, i)
		}
	}
	p.send(`{"jsonrpc":"2.0","id":` + tok + `,"result":{"ok":true}}`)
	if err := <-resc; err != nil {
		t.Fatalf("call with steady progress failed: %v", err)
	}

	// 2. No progress: the reset timeout fires.
	errc := callAsync(p.conn, context.Background(), "tools/call", nil, WithTimeout(40*time.Millisecond), WithProgressReset())
	p.next()
	var ce *CancelError
	if err := <-errc; !errors.As(err, &ce) || ce.Source != SourceProgressTimeout {
		t.Fatalf("silent call returned %v", err)
	}
	if l := p.next(); !strings.Contains(l, "no response or progress within the 40ms timeout") {
		t.Fatalf("notification %s", l)
	}

	// 3. Progress keeps coming but the maximum fires.
	// The reset timeout is long so that only the maximum can fire.
	errc = callAsync(p.conn, context.Background(), "tools/call", nil, WithTimeout(time.Minute), WithProgressReset(), WithMaxTimeout(200*time.Millisecond))
	req = p.nextJSON()
	tok = string(req["id"].(json.Number))
	stop := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		tick := time.NewTicker(20 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-stop:
				return
			case <-tick.C:
				p.send(`{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":` + tok + `,"progress":1}}`)
			}
		}
	}()
	err := <-errc
	close(stop)
	<-done
	if !errors.As(err, &ce) || ce.Source != SourceMaxTimeout || !strings.Contains(ce.Reason, "maximum") {
		t.Fatalf("call with endless progress returned %v", err)
	}
	if l := p.next(); !strings.Contains(l, "200ms maximum timeout") {
		t.Fatalf("notification %s", l)
	}
}

// Must-show 5 over the in-memory pipe between two Conns: the peer's handler
// sees the cancellation from the notification (SourcePeer), not merely the
// connection closing, when Close follows the cancel at once.
func TestCancelThenImmediateCloseOverPipe(t *testing.T) {
	for i := 0; i < 20; i++ {
		a, b := NewPipe()
		server := NewConn(a, WithLogger(quietLogger()), WithPolicy(testPolicy(SideAny)))
		client := NewConn(b, WithLogger(quietLogger()), WithPolicy(testPolicy(SideAny)))
		started := make(chan struct{})
		causes := make(chan error, 1)
		server.Handle("work", func(ctx context.Context, req *Request) (any, error) {
			close(started)
			<-ctx.Done()
			causes <- context.Cause(ctx)
			return nil, nil
		})
		server.Start()
		client.Start()
		ctx, cancel := context.WithCancel(context.Background())
		errc := callAsync(client, ctx, "work", nil)
		<-started
		cancel()
		<-errc
		if err := client.Close(context.Background()); err != nil {
			t.Fatal(err)
		}
		var ce *CancelError
		if err := <-causes; !errors.As(err, &ce) || ce.Source != SourcePeer {
			t.Fatalf("run %d: server handler cause %v, want the peer's cancellation", i, err)
		}
		server.Close(context.Background())
	}
}
