package tasks

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/mcpgen/mcpgen/runtime/internal/jsonscan"
	"github.com/mcpgen/mcpgen/runtime/jsonrpc2"
	"github.com/mcpgen/mcpgen/runtime/session"
)

// The requestor's side of the Tasks extension (Start with Extension()).

// optIn returns params (nil: an empty object) with the extension listed in
// _meta's client capabilities, keeping whatever capabilities are there.
func optIn(params any) (json.RawMessage, error) {
	raw, err := rawParams(params)
	if err != nil {
		return nil, err
	}
	if len(raw) == 0 || string(raw) == "null" {
		raw = json.RawMessage(`{}`)
	}
	out, err := jsonscan.EditObject(raw, "_meta", func(meta map[string]json.RawMessage) bool {
		caps := map[string]json.RawMessage{}
		_ = json.Unmarshal(meta[session.MetaClientCapabilities], &caps)
		ext := map[string]json.RawMessage{}
		_ = json.Unmarshal(caps["extensions"], &ext)
		ext[ExtensionID] = json.RawMessage(`{}`)
		caps["extensions"], _ = json.Marshal(ext)
		meta[session.MetaClientCapabilities], _ = json.Marshal(caps)
		return true
	})
	if err != nil {
		return nil, fmt.Errorf("tasks: params must be an object: %w", err)
	}
	return out, nil
}

func startExt[R any](ctx context.Context, conn *jsonrpc2.Conn, method string, params any, cfg startConfig) (*Handle[R], error) {
	raw, err := optIn(params)
	if err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	type outcome struct {
		res json.RawMessage
		err error
	}
	ch := make(chan outcome, 1)
	go func() {
		var o outcome
		// Not ctx: its answer is the only way to learn the task id to cancel.
		o.err = conn.Call(context.WithoutCancel(ctx), method, raw, &o.res, cfg.call...)
		ch <- o
	}()
	created := func(o outcome) (extTask, bool) {
		var t extTask
		if o.err != nil || json.Unmarshal(o.res, &t) != nil || t.ResultType != "task" || t.TaskID == "" {
			return extTask{}, false
		}
		return t, true
	}
	select {
	case o := <-ch:
		if o.err != nil {
			return nil, o.err
		}
		h := &Handle[R]{conn: conn, timer: cfg.timer, call: cfg.call, ext: true, inputs: cfg.inputs}
		t, ok := created(o)
		if !ok {
			// The server chose to answer at once: the result is here.
			h.done = o.res
			h.last = Task{Status: Completed}
			return h, nil
		}
		h.id, h.last = t.TaskID, t.task()
		h.mu.Lock()
		h.unwatch = context.AfterFunc(ctx, func() {
			cctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			h.Cancel(cctx)
		})
		h.mu.Unlock()
		return h, nil
	case <-ctx.Done():
		go func() {
			if t, ok := created(<-ch); ok {
				cctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
				defer cancel()
				if p, err := optIn(map[string]string{"taskId": t.TaskID}); err == nil {
					conn.Call(cctx, MethodCancel, p, nil, cfg.call...)
				}
			}
		}()
		return nil, ctx.Err()
	}
}

// task is the core view of an extension task.
func (t extTask) task() Task {
	return Task{TaskID: t.TaskID, Status: t.Status, StatusMessage: t.StatusMessage, CreatedAt: t.CreatedAt,
		LastUpdatedAt: t.LastUpdatedAt, TTL: t.TTLMs, PollInterval: t.PollIntervalMs}
}

func (h *Handle[R]) extCall(ctx context.Context, method string, params map[string]any, out any) error {
	p, err := optIn(params)
	if err != nil {
		return err
	}
	return h.conn.Call(ctx, method, p, out, h.call...)
}

func (h *Handle[R]) extStatus(ctx context.Context) (Task, error) {
	if h.id == "" {
		return h.Task(), nil
	}
	var t extTask
	if err := h.extCall(ctx, MethodGet, map[string]any{"taskId": h.id}, &t); err != nil {
		return Task{}, err
	}
	h.mu.Lock()
	h.detail = t
	h.mu.Unlock()
	h.seen(t.task())
	return t.task(), nil
}

func (h *Handle[R]) extCancel(ctx context.Context) (Task, error) {
	if h.id == "" {
		return h.Task(), &jsonrpc2.Error{Code: jsonrpc2.CodeInvalidParams, Message: "the receiver answered without a task: nothing to cancel"}
	}
	if err := h.extCall(ctx, MethodCancel, map[string]any{"taskId": h.id}, nil); err != nil {
		return Task{}, err
	}
	return h.extStatus(ctx)
}

// Update answers an extension task's inputRequests with tasks/update
// (responses by their inputRequests key).
func (h *Handle[R]) Update(ctx context.Context, responses map[string]any) error {
	if !h.ext || h.id == "" {
		return errors.New("tasks: Update is for a Tasks extension task")
	}
	return h.extCall(ctx, MethodUpdate, map[string]any{"taskId": h.id, "inputResponses": responses}, nil)
}

// InputRequests returns the extension task's outstanding inputRequests as
// the last Status saw them.
func (h *Handle[R]) InputRequests() map[string]json.RawMessage {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.detail.InputRequests
}

// ErrTaskCancelled is Result's error for an extension task that ended
// cancelled (it has no result).
var ErrTaskCancelled = errors.New("tasks: the task was cancelled")

// extResult polls tasks/get at the receiver's pollIntervalMs until the task
// is terminal, answering inputRequests with the InputHandler, if any.
func (h *Handle[R]) extResult(ctx context.Context) (*R, error) {
	raw := h.done
	answered := map[string]bool{}
	for raw == nil {
		t, err := h.extStatus(ctx)
		if err != nil {
			return nil, err
		}
		h.mu.Lock()
		d := h.detail
		h.mu.Unlock()
		switch t.Status {
		case Completed:
			raw = d.Result
			if raw == nil {
				raw = json.RawMessage(`{}`)
			}
			continue
		case Failed:
			if d.Error != nil {
				return nil, d.Error
			}
			return nil, &jsonrpc2.Error{Code: jsonrpc2.CodeInternalError, Message: "task failed: " + t.StatusMessage}
		case Cancelled:
			return nil, ErrTaskCancelled
		case InputRequired:
			if h.inputs != nil {
				resp := map[string]any{}
				for key, req := range d.InputRequests {
					if answered[key] {
						continue
					}
					var r struct {
						Method string          `json:"method"`
						Params json.RawMessage `json:"params"`
					}
					_ = json.Unmarshal(req, &r)
					a, err := h.inputs(ctx, r.Method, r.Params)
					if err != nil {
						return nil, err
					}
					resp[key], answered[key] = a, true
				}
				if len(resp) > 0 {
					if err := h.Update(ctx, resp); err != nil {
						return nil, err
					}
					continue // look again at once
				}
			}
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
	out := new(R)
	if err := json.Unmarshal(raw, out); err != nil {
		return nil, fmt.Errorf("tasks: decoding %s result: %w", h.id, err)
	}
	return out, nil
}
