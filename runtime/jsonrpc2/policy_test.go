package jsonrpc2

import (
	"context"
	"errors"
	"strings"
	"testing"
)

// These literals are what generated packages construct: the revision's rules
// as data (must-show 11). No revision string appears in the runtime.

func policy20251125(side Side) Policy {
	all := CancelScope{OwnRequests: MethodSet{All: true}}
	return Policy{
		Side:             side,
		CancelledMethod:  "notifications/cancelled",
		ProgressMethod:   "notifications/progress",
		ClientCancels:    all,
		ServerCancels:    all,
		NeverCancellable: []string{"initialize"},
		Cancelled:        optionalIDDecoder,
		TaskCancelMethod: "tasks/cancel",
		TaskParamsMember: "task",
	}
}

func policy20260728(side Side) Policy {
	return Policy{
		Side:            side,
		CancelledMethod: "notifications/cancelled",
		ProgressMethod:  "notifications/progress",
		ClientCancels:   CancelScope{OwnRequests: MethodSet{All: true}},
		ServerCancels:   CancelScope{PeerRequests: MethodSet{Methods: []string{"subscriptions/listen"}}},
		Cancelled:       modernDecoder,
		// Streamable HTTP: the disconnect is the cancellation. Over stdio
		// (these tests) it changes nothing: the notification is still sent.
		DisconnectIsCancellation: true,
	}
}

// Must-show 4, 2025-11-25: a task-augmented request is not cancelled by the
// notification (tasks/cancel is the way), and a notification without
// requestId is "nothing to cancel", not malformed.
func TestWirePolicy20251125Tasks(t *testing.T) {
	events := newEventLog()
	p := newRawPeer(t, WithPolicy(policy20251125(SideServer)), WithObserver(events.observe))
	release := make(chan struct{})
	started := make(chan struct{})
	p.conn.AcceptTasks("tools/call")
	p.conn.Handle("tools/call", func(ctx context.Context, req *Request) (any, error) {
		close(started)
		select {
		case <-release:
			return map[string]any{"task": map[string]string{"taskId": "t1", "status": "working"}}, nil
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	})
	p.send(`{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"x","task":{"ttl":60000}}}`)
	<-started
	p.send(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":5}}`)
	if ev := events.waitFor(t, func(e Event) bool { return e.Kind == EventIgnored }); ev.Why != IgnoreTaskAugmented {
		t.Fatalf("event %+v", ev)
	}
	p.send(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"reason":"for a task"}}`)
	if ev := events.waitFor(t, func(e Event) bool { return e.Kind == EventIgnored }); ev.Why != IgnoreNoRequestID {
		t.Fatalf("event %+v", ev)
	}
	close(release)
	if l := p.next(); !strings.Contains(l, `"id":5,"result":{"task"`) {
		t.Fatalf("task-augmented request answered with %s", l)
	}
}

// 2025-11-25 tasks.mdx: a receiver that does not run a method's requests as
// tasks processes them normally, ignoring the task metadata, so such a
// request is cancelled with the notification like any other.
func TestWirePolicy20251125TaskMemberWithoutTaskSupport(t *testing.T) {
	events := newEventLog()
	p := newRawPeer(t, WithPolicy(policy20251125(SideServer)), WithObserver(events.observe))
	started := make(chan struct{})
	causes := make(chan error, 1)
	p.conn.Handle("tools/call", func(ctx context.Context, req *Request) (any, error) {
		close(started)
		<-ctx.Done()
		causes <- context.Cause(ctx)
		return map[string]any{"content": []any{}}, nil
	})
	p.send(`{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"x","task":{"ttl":60000}}}`)
	<-started
	p.send(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":5,"reason":"no tasks here"}}`)
	var ce *CancelError
	if err := <-causes; !errors.As(err, &ce) || ce.Source != SourcePeer || ce.Reason != "no tasks here" {
		t.Fatalf("cause %v", err)
	}
	if ev := events.waitFor(t, func(e Event) bool { return e.Kind == EventApplied || e.Kind == EventIgnored }); ev.Kind != EventApplied {
		t.Fatalf("event %+v", ev)
	}
	p.send(`{"jsonrpc":"2.0","id":6,"method":"ping"}`)
	if l := p.next(); !strings.Contains(l, `"id":6`) {
		t.Fatalf("after the cancelled request the peer got %s, want only the answer to 6", l)
	}
}

// 2025-11-25 client side: abandoning a task-augmented call sends no
// notification (the caller uses tasks/cancel on the task).
func TestWirePolicy20251125NoNotificationForTaskCall(t *testing.T) {
	events := newEventLog()
	p := newRawPeer(t, WithPolicy(policy20251125(SideClient)), WithObserver(events.observe))
	ctx, cancel := context.WithCancel(context.Background())
	errc := callAsync(p.conn, ctx, "tools/call", map[string]any{"name": "x", "task": map[string]any{}})
	p.next()
	cancel()
	<-errc
	if ev := events.waitFor(t, func(e Event) bool { return e.Kind == EventIgnored }); ev.Why != IgnoreTaskAugmented {
		t.Fatalf("event %+v", ev)
	}
	if rest := p.closeAndDrain(); len(rest) != 0 {
		t.Fatalf("written: %q", rest)
	}
}

// Must-show 4, 2026-07-28 client side: a server's cancellation that does not
// name our subscriptions/listen is ignored; one that does ends that call.
func TestWirePolicy20260728ServerCancels(t *testing.T) {
	events := newEventLog()
	p := newRawPeer(t, WithPolicy(policy20260728(SideClient)), WithObserver(events.observe))
	toolErr := callAsync(p.conn, context.Background(), "tools/call", nil)
	toolReq := p.nextJSON()
	listenErr := callAsync(p.conn, context.Background(), "subscriptions/listen", map[string]any{})
	listenReq := p.nextJSON()
	if toolReq["method"] != "tools/call" {
		toolReq, listenReq = listenReq, toolReq
	}
	p.send(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":` + toolReq["id"].(interface{ String() string }).String() + `,"reason":"server may not"}}`)
	if ev := events.waitFor(t, func(e Event) bool { return e.Kind == EventIgnored }); ev.Why != IgnoreNotPermitted || ev.Method != "tools/call" {
		t.Fatalf("event %+v", ev)
	}
	p.send(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":` + listenReq["id"].(interface{ String() string }).String() + `,"reason":"server shutting down"}}`)
	err := <-listenErr
	var ce *CancelError
	if !errors.As(err, &ce) || ce.Source != SourcePeer || ce.Reason != "server shutting down" || ce.Method != "subscriptions/listen" {
		t.Fatalf("listen ended with %v", err)
	}
	// The tool call is still alive: answer it.
	p.send(`{"jsonrpc":"2.0","id":` + toolReq["id"].(interface{ String() string }).String() + `,"result":{}}`)
	if err := <-toolErr; err != nil {
		t.Fatal(err)
	}
	// The client itself cancels anything cancellable.
	ctx, cancel := context.WithCancel(context.Background())
	errc := callAsync(p.conn, ctx, "tools/call", nil)
	p.next()
	cancel()
	<-errc
	if l := p.next(); !strings.Contains(l, "notifications/cancelled") {
		t.Fatalf("client cancel: %s", l)
	}
}

// 2026-07-28 server side: the server may end a client's listen with the
// notification (CancelIncoming), and nothing else; its own outgoing calls are
// never cancelled by notification.
func TestWirePolicy20260728ServerEndsListen(t *testing.T) {
	events := newEventLog()
	p := newRawPeer(t, WithPolicy(policy20260728(SideServer)), WithObserver(events.observe))
	started := make(chan RequestID, 2)
	causes := make(chan error, 2)
	hold := func(ctx context.Context, req *Request) (any, error) {
		started <- req.ID
		<-ctx.Done()
		causes <- context.Cause(ctx)
		return map[string]any{}, nil
	}
	p.conn.Handle("subscriptions/listen", hold)
	p.conn.Handle("tools/call", hold)
	p.send(`{"jsonrpc":"2.0","id":"L","method":"subscriptions/listen","params":{}}`)
	listenID := <-started
	p.send(`{"jsonrpc":"2.0","id":"T","method":"tools/call","params":{}}`)
	toolID := <-started
	if err := p.conn.CancelIncoming(toolID, "no"); !errors.Is(err, ErrNotPermitted) {
		t.Fatalf("CancelIncoming(tools/call) = %v", err)
	}
	if err := p.conn.CancelIncoming(listenID, "server shutting down"); err != nil {
		t.Fatal(err)
	}
	if l := p.next(); l != `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"L","reason":"server shutting down"}}` {
		t.Fatalf("got %s", l)
	}
	var ce *CancelError
	if err := <-causes; !errors.As(err, &ce) || ce.Source != SourceLocal {
		t.Fatalf("listen handler cause %v", err)
	}
	// The client cancels its tool call.
	p.send(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"T"}}`)
	if err := <-causes; !errors.As(err, &ce) || ce.Source != SourcePeer {
		t.Fatalf("tool handler cause %v", err)
	}
	// A server-side outgoing call (not allowed to cancel) is abandoned quietly.
	ctx, cancel := context.WithCancel(context.Background())
	errc := callAsync(p.conn, ctx, "roots/list", nil)
	p.next()
	cancel()
	<-errc
	if ev := events.waitFor(t, func(e Event) bool { return e.Kind == EventIgnored && e.Direction == Outgoing }); ev.Why != IgnoreNotPermitted {
		t.Fatalf("event %+v", ev)
	}
	for _, l := range p.closeAndDrain() {
		t.Errorf("unexpected line %s", l)
	}
}

func TestPolicyHelpers(t *testing.T) {
	if !(MethodSet{All: true}).Has("x") || (MethodSet{}).Has("x") || !(MethodSet{Methods: []string{"a", "x"}}).Has("x") {
		t.Error("MethodSet.Has")
	}
	cp := compilePolicy(policy20260728(SideClient))
	if cp.peerSendsOwnCancels() || !cp.peerEndsOurRequests() || !cp.own.OwnRequests.All {
		t.Error("2026 client policy resolved wrongly")
	}
	cp = compilePolicy(policy20251125(SideServer))
	if !cp.isTask([]byte(`{"name":"x","task":{}}`)) || cp.isTask([]byte(`{"name":"task"}`)) || cp.isTask(nil) {
		t.Error("isTask")
	}
	if compilePolicy(DefaultPolicy()).isTask([]byte(`{"task":{}}`)) {
		t.Error("DefaultPolicy has no tasks")
	}
}
