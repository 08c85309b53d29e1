package tasks

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpgen/mcpgen/runtime/internal/jsonscan"
	"github.com/mcpgen/mcpgen/runtime/jsonrpc2"
)

// modernDuo is a duo whose requestor stamps the 2026-07-28 protocol version
// in every request's _meta, as a modern session's transport does, and
// records the methods it sends.
func modernDuo(t *testing.T, cfg Config, handlers map[string]jsonrpc2.Handler) (*duo, func() []string) {
	var mu sync.Mutex
	var sent []string
	a, b := jsonrpc2.NewPipe()
	d := newDuo(t, a, b, cfg, handlers, nil, func(d *duo) {
		d.client.Intercept(jsonrpc2.Interceptor{Call: func(ctx context.Context, method string, params, result any, next jsonrpc2.Caller, opts ...jsonrpc2.CallOption) error {
			raw, _ := rawParams(params)
			stamped, err := jsonscan.EditObject(raw, "_meta", func(meta map[string]json.RawMessage) bool {
				meta["io.modelcontextprotocol/protocolVersion"] = json.RawMessage(`"2026-07-28"`)
				return true
			})
			if err != nil {
				return err
			}
			mu.Lock()
			sent = append(sent, method+" "+string(stamped))
			mu.Unlock()
			return next(ctx, method, stamped, result, opts...)
		}})
	})
	return d, func() []string { mu.Lock(); defer mu.Unlock(); return append([]string(nil), sent...) }
}

// Requestor side of the extension: Start(Extension()) opts in on the
// request (no "task" member), Result polls tasks/get at the receiver's
// pollIntervalMs and returns the result inline in the completed task; every
// task request carries the opt-in (else the receiver would answer -32021).
func TestMUST_ExtRequestorStartPollsAtPollIntervalMs(t *testing.T) {
	g := newGate()
	d, sent := modernDuo(t, Config{PollInterval: 70 * time.Millisecond}, map[string]jsonrpc2.Handler{"tools/call": g.handler})
	ft := newFakeTimer()
	h, err := Start[result](context.Background(), d.client, "tools/call", map[string]any{"name": "t"}, Extension(), WithTimer(ft.after))
	if err != nil {
		t.Fatal(err)
	}
	if h.ID() == "" || g.waitStart(t) != h.ID() {
		t.Fatalf("no task: %+v", h.Task())
	}
	done := make(chan error, 1)
	var got *result
	go func() {
		var err error
		got, err = h.Result(context.Background())
		done <- err
	}()
	if wait := <-ft.asked; wait != 70*time.Millisecond {
		t.Fatalf("poll wait %v, want the receiver's 70ms", wait)
	}
	g.release <- gateOutcome{result: textResult("slept")}
	waitIdle(t, d.mgr)
	ft.fire <- time.Time{}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if got.Content[0].Text != "slept" || h.Task().Status != Completed {
		t.Fatalf("result %+v, status %s", got, h.Task().Status)
	}
	for _, line := range sent() {
		if strings.Contains(line, `"task":`) || !strings.Contains(line, `"extensions":{"io.modelcontextprotocol/tasks":{}}`) {
			t.Errorf("sent %s", line)
		}
		if strings.HasPrefix(line, "tasks/result") || strings.HasPrefix(line, "tasks/list") {
			t.Errorf("the extension has no %s", line)
		}
	}
}

// Task Cancellation: ending the ctx given to Start sends tasks/cancel
// (notifications/cancelled MUST NOT be used), which ends the work with a
// cause naming the task; Result then reports ErrTaskCancelled.
func TestMUST_ExtCreatingCtxCancelSendsTasksCancelNotNotification(t *testing.T) {
	g := newGate()
	d, sent := modernDuo(t, Config{}, map[string]jsonrpc2.Handler{"tools/call": g.handler})
	ctx, cancel := context.WithCancel(context.Background())
	h, err := Start[result](ctx, d.client, "tools/call", map[string]any{"name": "t"}, Extension())
	if err != nil {
		t.Fatal(err)
	}
	g.waitStart(t)
	cancel()
	cause := <-g.ctxErr
	var ce *jsonrpc2.CancelError
	if !errors.As(cause, &ce) || ce.Source != jsonrpc2.SourceTaskCancel || !strings.Contains(ce.Reason, h.ID()) {
		t.Fatalf("work ended with %v", cause)
	}
	if _, err := h.Result(context.Background()); !errors.Is(err, ErrTaskCancelled) {
		t.Fatalf("Result after cancel: %v", err)
	}
	if n := d.sent.sentCancellations(); n != 0 {
		t.Fatalf("%d notifications/cancelled sent for a task", n)
	}
	found := false
	for _, line := range sent() {
		found = found || strings.HasPrefix(line, "tasks/cancel ")
	}
	if !found {
		t.Fatal("no tasks/cancel sent")
	}
}

// Task Update Requests, requestor side: WithInputHandler answers each
// inputRequest once with tasks/update while Result waits.
func TestExtHandleAnswersInputRequests(t *testing.T) {
	h := func(ctx context.Context, req *jsonrpc2.Request) (any, error) {
		var res struct {
			Content map[string]string `json:"content"`
		}
		if err := Ask(ctx, "elicitation/create", map[string]any{"message": "name?"}, &res); err != nil {
			return nil, err
		}
		return textResult("hello " + res.Content["name"]), nil
	}
	d, _ := modernDuo(t, Config{PollInterval: time.Millisecond}, map[string]jsonrpc2.Handler{"tools/call": h})
	var asked []string
	hd, err := Start[result](context.Background(), d.client, "tools/call", map[string]any{"name": "t"}, Extension(),
		WithInputHandler(func(_ context.Context, method string, params json.RawMessage) (any, error) {
			asked = append(asked, method+" "+string(params))
			return map[string]any{"action": "accept", "content": map[string]string{"name": "Luca"}}, nil
		}))
	if err != nil {
		t.Fatal(err)
	}
	got, err := hd.Result(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if got.Content[0].Text != "hello Luca" || len(asked) != 1 || !strings.Contains(asked[0], "name?") {
		t.Fatalf("result %+v, asked %q", got, asked)
	}
}

// Capability Negotiation, requestor side: a receiver that answers an
// opted-in request with the result itself (no task) is handled: the Handle
// has no id and Result returns that result.
func TestExtHandleWithoutTask(t *testing.T) {
	d, _ := modernDuo(t, Config{ToolSupport: func(string) Support { return Forbidden }}, map[string]jsonrpc2.Handler{
		"tools/call": func(context.Context, *jsonrpc2.Request) (any, error) { return textResult("now"), nil }})
	h, err := Start[result](context.Background(), d.client, "tools/call", map[string]any{"name": "t"}, Extension())
	if err != nil {
		t.Fatal(err)
	}
	got, err := h.Result(context.Background())
	if err != nil || h.ID() != "" || got.Content[0].Text != "now" {
		t.Fatalf("id %q result %+v err %v", h.ID(), got, err)
	}
}
