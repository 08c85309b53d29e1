package tasks

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpgen/mcpgen/runtime/jsonrpc2"
)

// result is a tools/call result as the requestor decodes it.
type result struct {
	Content []struct {
		Text string `json:"text"`
	} `json:"content"`
	Meta map[string]json.RawMessage `json:"_meta"`
}

// duo is a requestor Conn and a receiver Conn with a Manager, joined by a
// pipe (or by the caller's transports).
type duo struct {
	client, server *jsonrpc2.Conn
	mgr            *Manager
	sent           *sentLog
}

// sentLog records the cancellation events the requestor's Conn reports.
type sentLog struct {
	mu     sync.Mutex
	events []jsonrpc2.Event
}

func (l *sentLog) observe(e jsonrpc2.Event) {
	l.mu.Lock()
	l.events = append(l.events, e)
	l.mu.Unlock()
}

func (l *sentLog) sentCancellations() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	n := 0
	for _, e := range l.events {
		if e.Kind == jsonrpc2.EventSent {
			n++
		}
	}
	return n
}

func newDuo(t *testing.T, ta, tb jsonrpc2.Transport, cfg Config, serverHandlers, clientHandlers map[string]jsonrpc2.Handler, beforeStart ...func(*duo)) *duo {
	t.Helper()
	d := &duo{sent: &sentLog{}}
	d.server = jsonrpc2.NewConn(ta, jsonrpc2.WithPolicy(taskPolicy(jsonrpc2.SideServer)), jsonrpc2.WithLogger(quiet()))
	d.client = jsonrpc2.NewConn(tb, jsonrpc2.WithPolicy(taskPolicy(jsonrpc2.SideClient)), jsonrpc2.WithLogger(quiet()), jsonrpc2.WithObserver(d.sent.observe))
	for m, h := range serverHandlers {
		d.server.Handle(m, h)
	}
	for m, h := range clientHandlers {
		d.client.Handle(m, h)
	}
	if cfg.Logger == nil {
		cfg.Logger = quiet()
	}
	if cfg.Methods == nil {
		cfg.Methods = []string{"tools/call"}
	}
	d.mgr = NewManager(cfg)
	if err := d.mgr.Serve(d.server); err != nil {
		t.Fatal(err)
	}
	for _, f := range beforeStart {
		f(d) // interceptors are added before the Conns start
	}
	d.server.Start()
	d.client.Start()
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		d.client.Close(ctx)
		d.server.Close(ctx)
		d.mgr.Close(ctx)
	})
	return d
}

// fakeTimer hands Result's poll waits to the test.
type fakeTimer struct {
	asked chan time.Duration
	fire  chan time.Time
}

func newFakeTimer() *fakeTimer {
	return &fakeTimer{asked: make(chan time.Duration, 16), fire: make(chan time.Time)}
}

func (f *fakeTimer) after(d time.Duration) <-chan time.Time {
	f.asked <- d
	return f.fire
}

// Result polls tasks/get at the receiver's pollInterval (not its own), then
// fetches the result with tasks/result.
func TestHandleResultHonoursPollInterval(t *testing.T) {
	g := newGate()
	a, b := jsonrpc2.NewPipe()
	d := newDuo(t, a, b, Config{PollInterval: 70 * time.Millisecond}, map[string]jsonrpc2.Handler{"tools/call": g.handler}, nil)
	ft := newFakeTimer()
	h, err := Start[result](context.Background(), d.client, "tools/call", map[string]any{"name": "t", "arguments": map[string]any{}}, WithTimer(ft.after))
	if err != nil {
		t.Fatal(err)
	}
	g.waitStart(t)
	done := make(chan error, 1)
	var got *result
	go func() {
		var err error
		got, err = h.Result(context.Background())
		done <- err
	}()
	for i := 0; i < 2; i++ {
		if wait := <-ft.asked; wait != 70*time.Millisecond {
			t.Fatalf("poll wait %v, want the receiver's 70ms", wait)
		}
		if i == 1 {
			g.release <- gateOutcome{result: textResult("slept")}
			// The task is terminal before the next poll.
			waitFor(t, func() bool {
				rec, _ := d.mgr.store.Get(context.Background(), h.ID())
				return rec.Task.Status.Terminal()
			})
		}
		ft.fire <- time.Time{}
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if got.Content[0].Text != "slept" || h.Task().Status != Completed {
		t.Fatalf("result %+v, status %s", got, h.Task().Status)
	}
	if id, ok := relatedTaskOf(mustRaw(got.Meta)); !ok || id != h.ID() {
		t.Fatalf("result _meta %v", got.Meta)
	}
}

func mustRaw(meta map[string]json.RawMessage) json.RawMessage {
	b, _ := json.Marshal(map[string]any{"_meta": meta})
	return b
}

// cancellation.mdx: for task-augmented requests the requestor MUST use
// tasks/cancel, not notifications/cancelled: ending the ctx given to Start
// after the task exists sends tasks/cancel.
func TestMUST_CreatingCtxCancelSendsTasksCancelNotNotification(t *testing.T) {
	g := newGate()
	a, b := jsonrpc2.NewPipe()
	d := newDuo(t, a, b, Config{}, map[string]jsonrpc2.Handler{"tools/call": g.handler}, nil)
	ctx, cancel := context.WithCancel(context.Background())
	h, err := Start[result](ctx, d.client, "tools/call", map[string]any{"name": "t", "arguments": map[string]any{}})
	if err != nil {
		t.Fatal(err)
	}
	g.waitStart(t)
	cancel()
	var ce *jsonrpc2.CancelError
	if cause := <-g.ctxErr; !errors.As(cause, &ce) || ce.Source != jsonrpc2.SourceTaskCancel {
		t.Fatalf("work cause %v", cause)
	}
	if st, err := h.Status(context.Background()); err != nil || st.Status != Cancelled {
		t.Fatalf("status %v %v", st.Status, err)
	}
	if n := d.sent.sentCancellations(); n != 0 {
		t.Fatalf("%d notifications/cancelled sent for a task", n)
	}
	if _, err := h.Result(context.Background()); err == nil {
		t.Fatal("result of a cancelled task")
	}
}

// Cancel sends tasks/cancel; a second Cancel gets -32602; a Result whose ctx
// ends stops waiting without cancelling the task.
func TestHandleCancelAndResultGivingUp(t *testing.T) {
	g := newGate()
	a, b := jsonrpc2.NewPipe()
	d := newDuo(t, a, b, Config{}, map[string]jsonrpc2.Handler{"tools/call": g.handler}, nil)
	h, err := Start[result](context.Background(), d.client, "tools/call", map[string]any{"name": "t"}, WithTTL(time.Minute))
	if err != nil {
		t.Fatal(err)
	}
	if ttl := h.Task().TTL; ttl == nil || *ttl != 60000 {
		t.Fatalf("ttl %v", ttl)
	}
	g.waitStart(t)
	ctx, stop := context.WithCancel(context.Background())
	ft := newFakeTimer()
	h.timer = ft.after
	errc := make(chan error, 1)
	go func() { _, err := h.Result(ctx); errc <- err }()
	<-ft.asked
	stop()
	if err := <-errc; !errors.Is(err, context.Canceled) {
		t.Fatalf("Result: %v", err)
	}
	if st, _ := h.Status(context.Background()); st.Status != Working {
		t.Fatalf("giving up changed the task: %s", st.Status)
	}
	st, err := h.Cancel(context.Background())
	if err != nil || st.Status != Cancelled {
		t.Fatalf("Cancel: %v %v", st.Status, err)
	}
	<-g.ctxErr
	var rpcErr *jsonrpc2.Error
	if _, err := h.Cancel(context.Background()); !errors.As(err, &rpcErr) || rpcErr.Code != jsonrpc2.CodeInvalidParams {
		t.Fatalf("second Cancel: %v", err)
	}
}

// input_required: the requestor calls tasks/result at once (no more
// polling), the receiver's elicitation arrives with related-task metadata
// and is answered with it, and the result follows.
func TestInputRequiredPreemptiveResultAndRelatedAnswers(t *testing.T) {
	answered := make(chan json.RawMessage, 1)
	tool := func(ctx context.Context, req *jsonrpc2.Request) (any, error) {
		var ans json.RawMessage
		if err := Ask(ctx, "elicitation/create", map[string]any{"message": "name?"}, &ans); err != nil {
			return nil, err
		}
		answered <- ans
		return textResult("hello"), nil
	}
	elicit := make(chan json.RawMessage, 1)
	release := make(chan struct{})
	client := map[string]jsonrpc2.Handler{"elicitation/create": func(ctx context.Context, req *jsonrpc2.Request) (any, error) {
		elicit <- req.Params
		<-release
		return map[string]any{"action": "accept", "content": map[string]any{"name": "Ada"}}, nil
	}}
	a, b := jsonrpc2.NewPipe()
	resultCalled := make(chan struct{}, 1)
	d := newDuo(t, a, b, Config{}, map[string]jsonrpc2.Handler{"tools/call": tool}, client, func(d *duo) {
		AnswerRelated(d.client, "elicitation/create")
		d.server.Intercept(jsonrpc2.Interceptor{Request: func(ctx context.Context, req *jsonrpc2.Request, next jsonrpc2.Handler) (any, error) {
			if req.Method == MethodResult {
				resultCalled <- struct{}{}
			}
			return next(ctx, req)
		}})
	})
	ft := newFakeTimer()
	h, err := Start[result](context.Background(), d.client, "tools/call", map[string]any{"name": "t"}, WithTimer(ft.after))
	if err != nil {
		t.Fatal(err)
	}
	params := <-elicit
	if id, ok := relatedTaskOf(params); !ok || id != h.ID() {
		t.Fatalf("elicitation params %s", params)
	}
	errc := make(chan error, 1)
	var got *result
	go func() { var err error; got, err = h.Result(context.Background()); errc <- err }()
	select {
	case <-resultCalled: // input_required seen on the first poll
	case <-ft.asked:
		t.Fatal("polled on instead of calling tasks/result for input_required")
	}
	close(release)
	if id, ok := relatedTaskOf(<-answered); !ok || id != h.ID() {
		t.Fatal("the elicitation answer lacks related-task metadata")
	}
	if err := <-errc; err != nil || got.Content[0].Text != "hello" {
		t.Fatalf("%v %+v", err, got)
	}
}

// Requestors MUST NOT rely on notifications/tasks/status: with none sent,
// Result still ends by polling.
func TestMUST_RequestorDoesNotRelyOnStatusNotifications(t *testing.T) {
	g := newGate()
	a, b := jsonrpc2.NewPipe()
	d := newDuo(t, a, b, Config{StatusNotifications: false, PollInterval: time.Millisecond}, map[string]jsonrpc2.Handler{"tools/call": g.handler}, nil)
	h, err := Start[result](context.Background(), d.client, "tools/call", map[string]any{"name": "t"})
	if err != nil {
		t.Fatal(err)
	}
	g.waitStart(t)
	g.release <- gateOutcome{result: textResult("ok")}
	if r, err := h.Result(context.Background()); err != nil || r.Content[0].Text != "ok" {
		t.Fatalf("%v %+v", err, r)
	}
}

// Client-side tasks: the server is the requestor of a task-augmented
// elicitation/create, the client runs it as a task.
func TestClientSideElicitationTask(t *testing.T) {
	g := newGate()
	a, b := jsonrpc2.NewPipe()
	// Here the Manager sits on the "server" Conn of the duo, which plays the
	// MCP client: the roles are symmetric at this level.
	d := newDuo(t, a, b, Config{Methods: []string{"elicitation/create", "sampling/createMessage"}}, map[string]jsonrpc2.Handler{"elicitation/create": g.handler, "sampling/createMessage": g.handler}, nil)
	if !strings.Contains(string(d.mgr.Capability()), `"elicitation":{"create":{}}`) {
		t.Fatalf("capability %s", d.mgr.Capability())
	}
	h, err := Start[map[string]any](context.Background(), d.client, "elicitation/create", map[string]any{"message": "ok?", "requestedSchema": map[string]any{"type": "object"}})
	if err != nil {
		t.Fatal(err)
	}
	g.waitStart(t)
	g.release <- gateOutcome{result: map[string]any{"action": "decline"}}
	r, err := h.Result(context.Background())
	if err != nil || (*r)["action"] != "decline" {
		t.Fatalf("%v %v", err, r)
	}
}

// If the ctx given to Start ends before the CreateTaskResult arrives, Start
// returns at once, and the task is cancelled with tasks/cancel as soon as
// its id is known; no notifications/cancelled is ever written.
func TestStartCtxEndsBeforeCreateTaskResult(t *testing.T) {
	a, b := jsonrpc2.NewPipe()
	client := jsonrpc2.NewConn(b, jsonrpc2.WithPolicy(taskPolicy(jsonrpc2.SideClient)), jsonrpc2.WithLogger(quiet()))
	client.Start()
	peer := newRawPeer(t, a)
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		client.Close(ctx)
		a.Close()
	})
	ctx, cancel := context.WithCancel(context.Background())
	errc := make(chan error, 1)
	go func() {
		_, err := Start[result](ctx, client, "tools/call", map[string]any{"name": "t"})
		errc <- err
	}()
	req := peer.request("tools/call")
	if !strings.Contains(string(req.Params), `"task":{`) {
		t.Fatalf("params %s", req.Params)
	}
	cancel()
	if err := <-errc; !errors.Is(err, context.Canceled) {
		t.Fatalf("Start: %v", err)
	}
	peer.write(`{"jsonrpc":"2.0","id":` + string(req.ID) + `,"result":{"task":{"taskId":"T1","status":"working","createdAt":"2025-11-25T10:30:00Z","lastUpdatedAt":"2025-11-25T10:30:00Z","ttl":null}}}`)
	c := peer.request("tasks/cancel")
	if string(c.Params) != `{"taskId":"T1"}` {
		t.Fatalf("tasks/cancel params %s", c.Params)
	}
	peer.write(`{"jsonrpc":"2.0","id":` + string(c.ID) + `,"result":{"taskId":"T1","status":"cancelled","createdAt":"2025-11-25T10:30:00Z","lastUpdatedAt":"2025-11-25T10:30:00Z","ttl":null}}`)
	// Flush: a ping round trip after which any notification would be here.
	peer.write(`{"jsonrpc":"2.0","id":"p","method":"ping"}`)
	peer.next("ping answer", func(m msg) bool { return string(m.ID) == `"p"` })
	peer.mu.Lock()
	defer peer.mu.Unlock()
	for _, m := range peer.stash {
		if m.Method == "notifications/cancelled" {
			t.Fatalf("sent %s", m.Params)
		}
	}
}
