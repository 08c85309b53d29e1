package tasks

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/mcpgen/mcpgen/runtime/internal/jsonscan"
	"github.com/mcpgen/mcpgen/runtime/jsonrpc2"
)

// Messages related to a task: what a task's work sends to the requestor
// (Ask, Notify) and what the requestor answers (AnswerRelated) carry the
// related-task metadata, and ID tells the work which task it is.

// RelatedTaskKey is the _meta key that ties a message to a task.
const RelatedTaskKey = "io.modelcontextprotocol/related-task"

// taskKey is the context key of the task a handler runs under.
type taskKey struct{}

type taskRef struct {
	m  *Manager
	id string
}

// ID returns the id of the task whose work ctx belongs to, if any: a handler
// can tell it runs as a task (and log or report under that id).
func ID(ctx context.Context) (string, bool) {
	r, ok := ctx.Value(taskKey{}).(*taskRef)
	if !ok {
		return "", false
	}
	return r.id, true
}

// ErrNoTaskNotifications is returned by Notify for a Tasks extension task:
// the extension carries no progress or log notifications for a task's work
// (SEP-2663, Task Status Notifications).
var ErrNoTaskNotifications = errors.New("tasks: the Tasks extension carries no notifications from a task's work")

// ErrNotATask is returned by Ask outside a task's work.
var ErrNotATask = errors.New("tasks: context does not belong to a task")

// Ask sends a request to the requestor on behalf of the task that ctx
// belongs to (an elicitation or sampling request the work needs), as the
// page asks: the task is input_required while the request is outstanding
// (and back to working after), and the request carries the
// io.modelcontextprotocol/related-task metadata. The requestor, seeing
// input_required, calls tasks/result early; its answer comes back as the
// response to this call.
func Ask(ctx context.Context, method string, params any, result any, opts ...jsonrpc2.CallOption) error {
	ref, ok := ctx.Value(taskKey{}).(*taskRef)
	if !ok {
		return ErrNotATask
	}
	m := ref.m
	m.mu.Lock()
	r := m.live[ref.id]
	m.mu.Unlock()
	if r == nil {
		return fmt.Errorf("tasks: task %s is no longer running", ref.id)
	}
	if r.modern {
		return m.askExt(ctx, ref.id, method, params, result)
	}
	raw, err := addMeta(params, ref.id)
	if err != nil {
		return err
	}
	r.askMu.Lock()
	r.asking++
	if r.asking == 1 {
		m.transition(ctx, ref.id, InputRequired, "waiting for "+method, nil)
	}
	r.askMu.Unlock()
	err = r.conn.Call(ctx, method, raw, result, opts...)
	r.askMu.Lock()
	r.asking--
	if r.asking == 0 {
		m.transition(ctx, ref.id, Working, "", nil) // fails harmlessly once terminal
	}
	r.askMu.Unlock()
	return err
}

// addMeta encodes params and sets _meta[related-task] to {taskId: id}.
func addMeta(params any, id string) (json.RawMessage, error) {
	raw, err := rawParams(params)
	if err != nil {
		return nil, err
	}
	out, err := jsonscan.EditObject(raw, "_meta", func(meta map[string]json.RawMessage) bool {
		meta[RelatedTaskKey] = relatedTask(id)
		return true
	})
	if err != nil {
		return nil, fmt.Errorf("tasks: params must be an object: %w", err)
	}
	return out, nil
}

// relatedTask is the value of the related-task _meta member for task id.
func relatedTask(id string) json.RawMessage {
	b, _ := json.Marshal(map[string]string{"taskId": id})
	return b
}

// relatedTaskOf returns the related-task id in a message's params or result
// _meta, if any.
func relatedTaskOf(raw json.RawMessage) (string, bool) {
	v := jsonscan.Member(jsonscan.Member(jsonscan.Member(raw, "_meta"), RelatedTaskKey), "taskId")
	var id string
	if v == nil || json.Unmarshal(v, &id) != nil {
		return "", false
	}
	return id, id != ""
}

// AnswerRelated makes the answers of methods on conn (the requestor's
// elicitation/create, sampling/createMessage) to a request carrying
// related-task metadata carry it too, as the page requires of every message
// related to a task. It adds an interceptor inside those conn already has:
// call it before conn.Start.
func AnswerRelated(conn *jsonrpc2.Conn, methods ...string) {
	related := map[string]bool{}
	for _, method := range methods {
		related[method] = true
	}
	conn.Intercept(jsonrpc2.Interceptor{Request: func(ctx context.Context, req *jsonrpc2.Request, next jsonrpc2.Handler) (any, error) {
		if !related[req.Method] {
			return next(ctx, req)
		}
		res, err := next(ctx, req)
		id, ok := relatedTaskOf(req.Params)
		if err != nil || !ok {
			return res, err
		}
		raw, rpcErr := encodeOutcome(res, nil)
		if rpcErr != nil {
			return nil, rpcErr
		}
		return withRelatedTask(raw, id)
	}})
}

// Notify sends a notification to the requestor on behalf of the task that
// ctx belongs to (progress, logging), with the related-task metadata the
// page requires of every message related to a task.
func Notify(ctx context.Context, method string, params any) error {
	ref, ok := ctx.Value(taskKey{}).(*taskRef)
	if !ok {
		return ErrNotATask
	}
	ref.m.mu.Lock()
	r := ref.m.live[ref.id]
	ref.m.mu.Unlock()
	if r == nil {
		return fmt.Errorf("tasks: task %s is no longer running", ref.id)
	}
	if r.modern {
		return ErrNoTaskNotifications
	}
	raw, err := addMeta(params, ref.id)
	if err != nil {
		return err
	}
	return r.conn.Notify(ctx, method, raw)
}
