package tasks

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/mcpgen/mcpgen/runtime/internal/jsonscan"
	"github.com/mcpgen/mcpgen/runtime/jsonrpc2"
)

// Handle is a task the requestor created with Start. R is the underlying
// request's result type (CallToolResult for tools/call).
type Handle[R any] struct {
	conn  *jsonrpc2.Conn
	id    string
	timer func(time.Duration) <-chan time.Time
	call  []jsonrpc2.CallOption

	ext     bool            // a Tasks extension task (2026-07-28)
	inputs  InputHandler    // answers the extension's inputRequests
	done    json.RawMessage // the result, when the receiver answered without a task
	mu      sync.Mutex
	last    Task
	detail  extTask // the extension's last tasks/get (result, error, inputRequests)
	unwatch func() bool
}

// InputHandler answers one of a Tasks extension task's inputRequests (an
// elicitation/create or sampling/createMessage the work needs): method and
// params are the request's, the return value is the inputResponse.
type InputHandler func(ctx context.Context, method string, params json.RawMessage) (any, error)

// StartOption configures Start.
type StartOption func(*startConfig)

type startConfig struct {
	ext    bool
	inputs InputHandler
	ttl    *int64
	timer  func(time.Duration) <-chan time.Time
	call   []jsonrpc2.CallOption
}

// WithTTL asks the receiver to keep the task for d after its creation (it
// may choose another ttl; Handle.Task says which).
func WithTTL(d time.Duration) StartOption {
	return func(c *startConfig) { ms := d.Milliseconds(); c.ttl = &ms }
}

// Extension makes Start speak the Tasks extension (2026-07-28, SEP-2663)
// instead of 2025-11-25 core tasks: the request carries no "task" member but
// lists the extension in its per-request client capabilities
// (_meta io.modelcontextprotocol/clientCapabilities, which then holds only
// that: set it in params yourself to declare more), as do the Handle's
// tasks/get, tasks/update and tasks/cancel. The receiver may answer with
// the result itself instead of a task; the Handle then has it (ID is "" and
// Result returns it). Use it on a Conn whose session is modern
// (session.ClientSession.Modern).
func Extension() StartOption { return func(c *startConfig) { c.ext = true } }

// WithInputHandler answers an extension task's inputRequests while Result
// waits: each new request is given to h once and its answer sent with
// tasks/update. Without it Result keeps polling an input_required task.
func WithInputHandler(h InputHandler) StartOption { return func(c *startConfig) { c.inputs = h } }

// WithCallOptions applies runtime call options (timeouts) to every request
// the Handle sends.
func WithCallOptions(opts ...jsonrpc2.CallOption) StartOption {
	return func(c *startConfig) { c.call = append(c.call, opts...) }
}

// WithTimer replaces the timer Result waits pollInterval with (tests inject
// one to observe the intervals without sleeping).
func WithTimer(f func(time.Duration) <-chan time.Time) StartOption {
	return func(c *startConfig) { c.timer = f }
}

// Start sends method as a task-augmented request (adding the "task" member
// to params unless it is there) and returns a Handle once the receiver
// answers with its CreateTaskResult.
//
// ctx governs the task, not just the creating call: if it ends after the
// task exists, the Handle sends tasks/cancel (never notifications/cancelled,
// which the page forbids for tasks). If it ends before the CreateTaskResult
// arrives, Start returns at once and cancels the task with tasks/cancel as
// soon as its id is known.
func Start[R any](ctx context.Context, conn *jsonrpc2.Conn, method string, params any, opts ...StartOption) (*Handle[R], error) {
	cfg := startConfig{timer: time.After}
	for _, o := range opts {
		o(&cfg)
	}
	if cfg.ext {
		return startExt[R](ctx, conn, method, params, cfg)
	}
	raw, err := withTaskMember(params, cfg.ttl)
	if err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	type outcome struct {
		cr  createResult
		err error
	}
	ch := make(chan outcome, 1)
	go func() {
		var o outcome
		// Not ctx: ending ctx must not abandon the call (its answer is the
		// only way to learn the task id to cancel).
		o.err = conn.Call(context.WithoutCancel(ctx), method, raw, &o.cr, cfg.call...)
		ch <- o
	}()
	select {
	case o := <-ch:
		if o.err != nil {
			return nil, o.err
		}
		if o.cr.Task.TaskID == "" {
			return nil, fmt.Errorf("tasks: %s: the receiver did not create a task (no task in its result)", method)
		}
		h := &Handle[R]{conn: conn, id: o.cr.Task.TaskID, last: o.cr.Task, timer: cfg.timer, call: cfg.call}
		h.mu.Lock()
		h.unwatch = context.AfterFunc(ctx, func() {
			cctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			h.Cancel(cctx) // a terminal task answers -32602: nothing left to cancel
		})
		h.mu.Unlock()
		return h, nil
	case <-ctx.Done():
		go func() {
			if o := <-ch; o.err == nil && o.cr.Task.TaskID != "" {
				cctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
				defer cancel()
				conn.Call(cctx, MethodCancel, map[string]string{"taskId": o.cr.Task.TaskID}, nil, cfg.call...)
			}
		}()
		return nil, ctx.Err()
	}
}

// withTaskMember encodes params and adds "task" (with ttl, if set) unless
// present.
func withTaskMember(params any, ttl *int64) (json.RawMessage, error) {
	raw, err := rawParams(params)
	if err != nil {
		return nil, err
	}
	obj, err := jsonscan.Members(raw)
	if err != nil {
		return nil, fmt.Errorf("tasks: params must be an object: %w", err)
	}
	if _, ok := obj["task"]; !ok {
		obj["task"], _ = json.Marshal(taskMeta{TTL: ttl})
	}
	return json.Marshal(obj)
}

// rawParams is params as JSON: itself when it already is.
func rawParams(params any) (json.RawMessage, error) {
	if rm, ok := params.(json.RawMessage); ok {
		return rm, nil
	}
	return json.Marshal(params)
}

// ID returns the receiver-generated task id.
func (h *Handle[R]) ID() string { return h.id }

// Task returns the task as last seen (from the CreateTaskResult, or the
// latest Status or Cancel).
func (h *Handle[R]) Task() Task {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.last
}

func (h *Handle[R]) seen(t Task) {
	h.mu.Lock()
	h.last = t
	stop := h.unwatch
	h.mu.Unlock()
	if t.Status.Terminal() && stop != nil {
		stop() // nothing left for the creating ctx to cancel
	}
}

// Status asks the receiver for the task's state (tasks/get).
func (h *Handle[R]) Status(ctx context.Context) (Task, error) {
	if h.ext {
		return h.extStatus(ctx)
	}
	var t Task
	if err := h.conn.Call(ctx, MethodGet, map[string]string{"taskId": h.id}, &t, h.call...); err != nil {
		return Task{}, err
	}
	h.seen(t)
	return t, nil
}

// Cancel sends tasks/cancel and returns the task as the receiver answered it
// (status cancelled). A task already terminal answers -32602, returned as a
// *jsonrpc2.Error. For an extension task, whose tasks/cancel is an empty
// acknowledgement (cancellation is eventually consistent there), it returns
// the task as a tasks/get right after reports it: cancelled, or the
// terminal status the work reached first.
func (h *Handle[R]) Cancel(ctx context.Context) (Task, error) {
	if h.ext {
		return h.extCancel(ctx)
	}
	var t Task
	if err := h.conn.Call(ctx, MethodCancel, map[string]string{"taskId": h.id}, &t, h.call...); err != nil {
		return Task{}, err
	}
	h.seen(t)
	return t, nil
}

// Result waits for the task to end and returns the underlying request's
// result, or its JSON-RPC error as a *jsonrpc2.Error. It polls tasks/get at
// the receiver's pollInterval and calls tasks/result (which blocks until the
// task is terminal) once the task is terminal or needs input, since the
// receiver's input requests may be delivered alongside that call. Ending ctx
// stops the wait only: the task goes on (use Cancel to stop it).
func (h *Handle[R]) Result(ctx context.Context) (*R, error) {
	if h.ext {
		return h.extResult(ctx)
	}
	for {
		t, err := h.Status(ctx)
		if err != nil {
			return nil, err
		}
		if t.Status.Terminal() || t.Status == InputRequired {
			break
		}
		wait := time.Second
		if t.PollInterval != nil && *t.PollInterval > 0 {
			wait = time.Duration(*t.PollInterval) * time.Millisecond
		}
		select {
		case <-h.timer(wait):
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	var raw json.RawMessage
	if err := h.conn.Call(ctx, MethodResult, map[string]string{"taskId": h.id}, &raw, h.call...); err != nil {
		var rpcErr *jsonrpc2.Error
		if errors.As(err, &rpcErr) {
			// The task is terminal now whatever its error: refresh the
			// cached state so the caller sees failed or cancelled.
			h.Status(context.WithoutCancel(ctx))
		}
		return nil, err
	}
	if t := h.Task(); !t.Status.Terminal() {
		h.Status(context.WithoutCancel(ctx))
	}
	out := new(R)
	if err := json.Unmarshal(raw, out); err != nil {
		return nil, fmt.Errorf("tasks: decoding %s result: %w", h.id, err)
	}
	return out, nil
}
