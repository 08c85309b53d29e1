package jsonrpc2

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// Issue 11, must-show 1: over WithMaxInFlight a request is answered at once
// with CodeServerBusy instead of being queued; the admitted ones still
// complete; ping gets through a full house and never waits for a handler
// slot (must-show 5).
func TestWireAdmissionBusyAndPing(t *testing.T) {
	p := newRawPeer(t, WithMaxInFlight(3), WithMaxConcurrentHandlers(1))
	release := make(chan struct{})
	started := make(chan struct{}, 8)
	p.conn.Handle("hold", func(ctx context.Context, req *Request) (any, error) {
		started <- struct{}{}
		<-release
		return "ok", nil
	})
	p.conn.Handle("ping", func(ctx context.Context, req *Request) (any, error) { return nil, nil })
	for i := 1; i <= 3; i++ {
		p.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"hold"}`, i))
	}
	<-started // the one handler slot is taken; two requests wait for it
	p.send(`{"jsonrpc":"2.0","id":4,"method":"hold"}`)
	m := p.nextJSON()
	e, _ := m["error"].(map[string]any)
	if m["id"] != json.Number("4") || e == nil || e["code"] != json.Number(fmt.Sprint(CodeServerBusy)) || !strings.Contains(e["message"].(string), "busy") {
		t.Fatalf("request over the limit answered with %v", m)
	}
	p.send(`{"jsonrpc":"2.0","id":"p","method":"ping"}`)
	if l := p.next(); l != `{"jsonrpc":"2.0","id":"p","result":{}}` {
		t.Fatalf("ping with every slot busy answered with %s", l)
	}
	close(release)
	got := map[string]bool{}
	for i := 0; i < 3; i++ {
		got[p.next()] = true
	}
	for i := 1; i <= 3; i++ {
		if l := fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"result":"ok"}`, i); !got[l] {
			t.Errorf("missing %s in %v", l, got)
		}
	}
}

// The byte budget admits one request whatever its size, and refuses the
// next while the first holds the budget.
func TestWireAdmissionByBytes(t *testing.T) {
	p := newRawPeer(t, WithMaxInFlightBytes(1000))
	release := make(chan struct{})
	started := make(chan struct{}, 1)
	p.conn.Handle("hold", func(ctx context.Context, req *Request) (any, error) {
		started <- struct{}{}
		<-release
		return "ok", nil
	})
	big := strings.Repeat("x", 4000)
	p.send(`{"jsonrpc":"2.0","id":1,"method":"hold","params":{"s":"` + big + `"}}`)
	<-started
	p.send(`{"jsonrpc":"2.0","id":2,"method":"hold","params":{}}`)
	if l := p.next(); !strings.Contains(l, `"id":2,"error":{"code":-31429`) {
		t.Fatalf("second request answered with %s", l)
	}
	close(release)
	if l := p.next(); l != `{"jsonrpc":"2.0","id":1,"result":"ok"}` {
		t.Fatalf("first request answered with %s", l)
	}
}

// Must-show 1: with a tiny sender budget, a flood of invalid lines is still
// answered line for line (the read loop waits for the budget rather than
// dropping), and the budget is never overrun. That the waiting bounds memory
// when the peer does not read is measured on a subprocess in e2e.
func TestWireFloodOfInvalidLinesIsBounded(t *testing.T) {
	p := newRawPeer(t, WithMaxQueuedBytes(4096))
	const n = 2000
	sent := make(chan struct{})
	go func() {
		defer close(sent)
		for i := 0; i < n; i++ {
			if _, err := p.toC.Write([]byte("x\n")); err != nil {
				return
			}
		}
	}()
	// Nothing reads yet; the writes above must block once the budget is
	// spent (io.Pipe is unbuffered, so a blocked send means an unread line).
	got := 0
	for got < n {
		l := p.next()
		if !strings.Contains(l, "-32700") {
			t.Fatalf("line %d: %s", got, l)
		}
		got++
	}
	<-sent
	p.conn.sender.mu.Lock()
	b := p.conn.sender.bytes
	p.conn.sender.mu.Unlock()
	if b > 4096+200 {
		t.Fatalf("sender budget overrun: %d bytes", b)
	}
}

// gatedWrites is a transport whose writes of messages longer than min block
// until release is closed, as a write to a peer that does not read does;
// stuck is signalled when such a write starts.
type gatedWrites struct {
	Transport
	min     int
	stuck   chan struct{}
	release chan struct{}
}

func (g *gatedWrites) Write(ctx context.Context, msg []byte) error {
	if len(msg) > g.min {
		g.stuck <- struct{}{}
		<-g.release
	}
	return g.Transport.Write(ctx, msg)
}

// countingReads counts the messages its Conn has read.
type countingReads struct {
	Transport
	n atomic.Int64
}

func (r *countingReads) Read(ctx context.Context) ([]byte, error) {
	m, err := r.Transport.Read(ctx)
	if err == nil {
		r.n.Add(1)
	}
	return m, err
}

// Issue 25, must-show 3: a response waiting to be written does not count
// against admission, it stops the read loop: behind a 20 KB response the
// peer does not read (over an 8,000-byte budget), later requests are not
// refused as busy but left unread until the peer reads; then every one is
// answered with its result, and nothing stays charged.
func TestWireUnwrittenResponseStopsReadingNotAdmission(t *testing.T) {
	a, b := NewPipe()
	g := &gatedWrites{Transport: a, min: 1000, stuck: make(chan struct{}, 1), release: make(chan struct{})}
	r := &countingReads{Transport: g}
	c := NewConn(r, WithLogger(quietLogger()), WithPolicy(testPolicy(SideAny)), WithMaxInFlightBytes(8000))
	waiting := make(chan struct{}, 1)
	c.outputWaitHook = func() { signal(waiting) }
	big := json.RawMessage(`"` + strings.Repeat("x", 20000) + `"`)
	c.Handle("big", func(context.Context, *Request) (any, error) { return big, nil })
	c.Handle("small", func(context.Context, *Request) (any, error) { return "ok", nil })
	c.Start()
	defer b.Close()
	read := func() string {
		t.Helper()
		m, err := b.Read(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		return string(m)
	}
	b.Write(context.Background(), []byte(`{"jsonrpc":"2.0","id":1,"method":"big"}`))
	<-g.stuck // its handler returned; the response waits for the peer
	const n = 10
	for i := 2; i <= n; i++ {
		b.Write(context.Background(), []byte(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"small"}`, i)))
	}
	<-waiting // the read loop stopped reading
	// It may have been inside the read that took request 2 when the output
	// filled up; it reads nothing after that until the output drains.
	if got := r.n.Load(); got > 2 {
		t.Fatalf("read loop read %d of %d messages with the output full", got, n)
	}
	c.mu.Lock()
	running, unwritten := c.running, c.unwritten
	c.mu.Unlock()
	if running > 1 || unwritten < 1 { // request 2's handler may still run
		t.Fatalf("with only a response waiting: %d handlers counted as running, %d responses as unwritten", running, unwritten)
	}
	close(g.release)
	got := map[string]bool{}
	for i := 1; i <= n; i++ {
		l := read()
		if strings.Contains(l, "-31429") {
			t.Fatalf("request refused as busy behind an unwritten response: %s", l)
		}
		got[l[:min(len(l), 40)]] = true
	}
	if !got[`{"jsonrpc":"2.0","id":1,"result":"xxxxxx`] || !got[fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"result":"ok"}`, n)] {
		t.Fatalf("answers: %v", got)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := c.Close(ctx); err != nil {
		t.Fatal(err)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.runBytes != 0 || c.unwrBytes != 0 || c.running != 0 || c.unwritten != 0 {
		t.Fatalf("still charged after every handler exited: %d running (%d bytes), %d unwritten (%d bytes)", c.running, c.runBytes, c.unwritten, c.unwrBytes)
	}
}

// A busy refusal reaches the Observer as EventBusy (issue 23: metrics count
// refusals, which no interceptor sees), and LogCancellations does not take
// it for a cancellation.
func TestWireAdmissionBusyEvent(t *testing.T) {
	events := make(chan Event, 4)
	var logged, reports atomic.Uint64
	log := LogCancellations(slog.New(countingHandler{slog.DiscardHandler, &logged, &reports}))
	p := newRawPeer(t, WithMaxInFlight(1), WithObserver(func(e Event) { log(e); events <- e }))
	release := make(chan struct{})
	started := make(chan struct{}, 1)
	p.conn.Handle("hold", func(ctx context.Context, req *Request) (any, error) {
		started <- struct{}{}
		<-release
		return "ok", nil
	})
	p.send(`{"jsonrpc":"2.0","id":1,"method":"hold"}`)
	<-started
	p.send(`{"jsonrpc":"2.0","id":"b","method":"hold"}`)
	if l := p.next(); !strings.Contains(l, `"id":"b","error":{"code":-31429`) {
		t.Fatalf("second request answered with %s", l)
	}
	select {
	case e := <-events:
		if e.Kind != EventBusy || e.Direction != Incoming || e.ID != StringID("b") || e.Method != "hold" || e.Kind.String() != "busy" {
			t.Errorf("event %+v, want busy for request \"b\" (hold)", e)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("no event for the busy refusal")
	}
	close(release)
	p.next()
	if n := logged.Load(); n != 0 {
		t.Errorf("LogCancellations wrote %d records for a busy refusal", n)
	}
}
