package jsonrpc2

import (
	"context"
	"errors"
	"strings"
	"testing"
)

// Must-show 3: the peer's notifications/cancelled ends the handler's context
// with a *CancelError carrying reason, id and source; the reason is logged;
// the handler's late result is not written.
func TestWirePeerCancelStopsHandler(t *testing.T) {
	logs := &logCapture{}
	events := newEventLog()
	p := newRawPeer(t, WithLogger(slogOf(logs)), WithObserver(events.observe))
	causes := make(chan error, 1)
	started := make(chan struct{})
	p.conn.Handle("tools/call", func(ctx context.Context, req *Request) (any, error) {
		close(started)
		<-ctx.Done()
		causes <- context.Cause(ctx)
		return map[string]string{"text": "late result after cancel"}, nil
	})
	p.send(`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"sleep"}}`)
	<-started
	p.send(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":7,"reason":"User requested cancellation"}}`)
	cause := <-causes
	var ce *CancelError
	if !errors.As(cause, &ce) {
		t.Fatalf("cause %T %v is not a *CancelError", cause, cause)
	}
	if !errors.Is(cause, context.Canceled) || errors.Is(cause, context.DeadlineExceeded) {
		t.Errorf("errors.Is wrong for %v", cause)
	}
	if ce.ID != Int64ID(7) || ce.Method != "tools/call" || ce.Reason != "User requested cancellation" || ce.Source != SourcePeer {
		t.Errorf("cause %+v", ce)
	}
	// The handler's context ends first; the log line and the observer event
	// follow (cancelling is not delayed by logging).
	events.waitFor(t, func(e Event) bool { return e.Kind == EventApplied })
	if !logs.contains("request cancelled by peer", "id=7", "reason=User requested cancellation") {
		t.Errorf("reason not logged: %q", logs.records)
	}
	for _, l := range p.closeAndDrain() {
		if strings.Contains(l, "late result") || strings.Contains(l, `"id":7`) {
			t.Errorf("response written after cancellation: %s", l)
		}
	}
}

// encodeSpy records whether a result was encoded.
type encodeSpy struct{ encoded chan struct{} }

func (s encodeSpy) MarshalJSON() ([]byte, error) {
	close(s.encoded)
	return []byte(`{}`), nil
}

// A handler that returns after the peer's cancellation was applied has its
// result dropped without being encoded: nobody will read it.
func TestCancelledHandlerResultNotEncoded(t *testing.T) {
	p := newRawPeer(t)
	spy := encodeSpy{encoded: make(chan struct{})}
	started, returned := make(chan struct{}), make(chan struct{})
	p.conn.Handle("tools/call", func(ctx context.Context, req *Request) (any, error) {
		defer close(returned)
		close(started)
		<-ctx.Done()
		return spy, nil
	})
	p.send(`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"sleep"}}`)
	<-started
	p.send(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":7}}`)
	<-returned
	for _, l := range p.closeAndDrain() {
		if strings.Contains(l, `"id":7`) {
			t.Errorf("response written after cancellation: %s", l)
		}
	}
	select {
	case <-spy.encoded:
		t.Error("the cancelled handler's result was encoded")
	default:
	}
}

// Must-show 3: a cancellation arriving after the response was written is
// ignored, and the session goes on.
func TestWireCancelAfterResponseIgnored(t *testing.T) {
	events := newEventLog()
	p := newRawPeer(t, WithObserver(events.observe))
	p.conn.Handle("quick", func(ctx context.Context, req *Request) (any, error) { return map[string]int{"n": 1}, nil })
	p.send(`{"jsonrpc":"2.0","id":1,"method":"quick"}`)
	if l := p.next(); l != `{"jsonrpc":"2.0","id":1,"result":{"n":1}}` {
		t.Fatal(l)
	}
	p.send(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1,"reason":"too late"}}`)
	ev := events.waitFor(t, func(e Event) bool { return e.Kind == EventIgnored })
	if ev.Why != IgnoreUnknownID || ev.ID != Int64ID(1) || ev.Reason != "too late" {
		t.Errorf("event %+v", ev)
	}
	p.send(`{"jsonrpc":"2.0","id":2,"method":"quick"}`)
	if l := p.next(); l != `{"jsonrpc":"2.0","id":2,"result":{"n":1}}` {
		t.Fatal(l)
	}
}

// Must-show 2: requests are registered when read, so a cancellation reaches
// a request queued behind a busy handler and it never starts; and a
// cancellation is never stuck behind a running handler that ignores its
// context.
func TestWireCancelReachesQueuedRequest(t *testing.T) {
	events := newEventLog()
	p := newRawPeer(t, WithMaxConcurrentHandlers(1), WithObserver(events.observe))
	release := make(chan struct{})
	ran := make(chan string, 4)
	p.conn.Handle("stubborn", func(ctx context.Context, req *Request) (any, error) {
		ran <- req.ID.String()
		<-release // ignores ctx on purpose
		return "first", nil
	})
	p.conn.Handle("queued", func(ctx context.Context, req *Request) (any, error) {
		ran <- req.ID.String()
		return "must not run", nil
	})
	p.send(`{"jsonrpc":"2.0","id":1,"method":"stubborn"}`)
	if got := <-ran; got != "1" {
		t.Fatal(got)
	}
	p.send(`{"jsonrpc":"2.0","id":2,"method":"queued"}`)
	p.send(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":2,"reason":"not needed"}}`)
	ev := events.waitFor(t, func(e Event) bool { return e.Kind == EventApplied || e.Kind == EventIgnored })
	if ev.Kind != EventApplied || ev.ID != Int64ID(2) {
		t.Fatalf("cancel of queued request: %+v", ev)
	}
	close(release) // the handler of 1 was still running when 2 was cancelled
	if l := p.next(); l != `{"jsonrpc":"2.0","id":1,"result":"first"}` {
		t.Fatal(l)
	}
	for _, l := range p.closeAndDrain() {
		t.Errorf("unexpected line %s", l)
	}
	close(ran)
	for id := range ran {
		t.Errorf("handler for %s ran", id)
	}
}

// Must-show 4: cancellations that must be ignored are ignored, logged, and
// reported with why; the session goes on and a valid cancellation still
// works afterwards.
func TestWireIgnoredCancellations(t *testing.T) {
	logs := &logCapture{}
	events := newEventLog()
	p := newRawPeer(t, WithLogger(slogOf(logs)), WithObserver(events.observe))
	release := make(chan struct{})
	started := make(chan struct{}, 2)
	p.conn.Handle("initialize", func(ctx context.Context, req *Request) (any, error) {
		started <- struct{}{}
		select {
		case <-release:
			return map[string]string{"protocolVersion": "2025-06-18"}, nil
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	})
	p.conn.Handle("work", func(ctx context.Context, req *Request) (any, error) {
		started <- struct{}{}
		<-ctx.Done()
		return "late", nil
	})
	p.conn.Handle("quick", func(ctx context.Context, req *Request) (any, error) { return "done", nil })
	p.send(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{}}`)
	p.send(`{"jsonrpc":"2.0","id":"w","method":"work"}`)
	<-started
	<-started
	p.send(`{"jsonrpc":"2.0","id":"done","method":"quick"}`)
	if l := p.next(); !strings.Contains(l, `"id":"done"`) {
		t.Fatal(l)
	}
	cases := []struct {
		params string
		why    IgnoreReason
		detail string
	}{
		{`{"requestId":999}`, IgnoreUnknownID, ""},
		{`{"requestId":"done"}`, IgnoreUnknownID, ""}, // completed
		{`{"requestId":0,"reason":"nope"}`, IgnoreNotCancellable, ""},
		// The details are the generated decoder's: the JSON pointer in the
		// notification and what the schema says is wrong there.
		{``, IgnoreMalformed, `(root): missing required member "params"`},
		{`null`, IgnoreMalformed, `(root): missing required member "params"`}, // null is absent
		{`[1]`, IgnoreMalformed, "/params: must be an object"},
		{`"w"`, IgnoreMalformed, "params must be an object"}, // refused by the message layer
		{`{}`, IgnoreMalformed, `/params: missing required member "requestId"`},
		{`{"reason":"x"}`, IgnoreMalformed, `/params: missing required member "requestId"`},
		{`{"requestId":true}`, IgnoreMalformed, "/params/requestId: must be a string or an integer"},
		{`{"requestId":1.5}`, IgnoreMalformed, "/params/requestId: must be a string or an integer"},
		{`{"requestId":{"id":"w"}}`, IgnoreMalformed, "/params/requestId: must be a string or an integer"},
		{`{"requestId":"w","reason":42}`, IgnoreMalformed, "/params/reason: must be a string"},
		{`{"requestId":"w","reason":null}`, IgnoreMalformed, "/params/reason: must be a string"},
	}
	for _, c := range cases {
		msg := `{"jsonrpc":"2.0","method":"notifications/cancelled"`
		if c.params != "" {
			msg += `,"params":` + c.params
		}
		p.send(msg + `}`)
		ev := events.waitFor(t, func(e Event) bool { return e.Kind == EventIgnored || e.Kind == EventApplied })
		if ev.Kind != EventIgnored || ev.Why != c.why || !strings.Contains(ev.Detail, c.detail) {
			t.Errorf("params %s: got %v why=%v detail=%q, want ignored %v %q", c.params, ev.Kind, ev.Why, ev.Detail, c.why, c.detail)
		}
	}
	if !logs.contains("cancellation ignored", "why=method is never cancellable", "method=initialize") {
		t.Errorf("initialize cancel not logged: %q", logs.records)
	}
	// The session goes on: initialize answers, and "w" is still cancellable.
	close(release)
	if l := p.next(); !strings.Contains(l, `"id":0,"result"`) {
		t.Fatalf("initialize answered with %s", l)
	}
	p.send(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"w"}}`)
	if ev := events.waitFor(t, func(e Event) bool { return e.Kind == EventApplied }); ev.ID != StringID("w") {
		t.Fatalf("applied %+v", ev)
	}
	if rest := p.sync("s"); len(rest) != 0 {
		t.Errorf("unexpected lines %q", rest)
	}
}

// A Policy without a Cancelled decoder (DefaultPolicy) applies no
// cancellation from the peer: the runtime has no definition of a valid one
// of its own. Each is ignored as IgnoreNoDecoder and the request runs on.
func TestWireNoDecoderIgnoresCancellations(t *testing.T) {
	events := newEventLog()
	p := newRawPeer(t, WithPolicy(DefaultPolicy()), WithObserver(events.observe))
	release := make(chan struct{})
	p.conn.Handle("work", func(ctx context.Context, req *Request) (any, error) {
		select {
		case <-release:
			return "done", nil
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	})
	p.send(`{"jsonrpc":"2.0","id":1,"method":"work"}`)
	p.send(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}}`)
	if ev := events.waitFor(t, func(e Event) bool { return e.Kind == EventIgnored || e.Kind == EventApplied }); ev.Kind != EventIgnored || ev.Why != IgnoreNoDecoder {
		t.Fatalf("got %+v, want ignored: %v", ev, IgnoreNoDecoder)
	}
	close(release)
	if l := p.next(); !strings.Contains(l, `"id":1,"result":"done"`) {
		t.Fatalf("the request was not left running: %s", l)
	}
}
