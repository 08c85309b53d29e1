package tasks

import (
	"context"
	"encoding/json"
	"sync"

	"github.com/mcpgen/mcpgen/runtime/internal/jsonscan"
	"github.com/mcpgen/mcpgen/runtime/jsonrpc2"
)

// Task status notifications of the Tasks extension (tasks.md, "Task Status
// Notifications"): a requestor lists task ids in subscriptions/listen's
// notifications.taskIds; the acknowledgement names the ids the server
// agreed to (the requestor's own tasks that are not yet terminal: a
// terminal task has nothing more to report, and the requestor reads it
// with tasks/get), and every later change of such a task (status,
// statusMessage, inputRequests) is sent on that stream as
// notifications/tasks carrying the DetailedTask, as tasks/get would answer
// it then, until the task is terminal or the stream ends. A requestor that
// sends taskIds without declaring the extension in the request's
// capabilities gets -32021. The session answers subscriptions/listen; the
// Manager takes part through session.WithListenContributor (WithTasks).

// taskSub is one subscriptions/listen stream's interest in one task.
type taskSub struct {
	send func(method string, params any) error
	mu   sync.Mutex // orders this stream's notifications
	done bool       // the terminal notification was sent
}

// notifyExt announces rec's new state to the other replicas (in a
// cluster) and sends it to this replica's subscribed streams.
func (m *Manager) notifyExt(rec Record) {
	m.publishState(rec)
	m.notifyLocal(rec)
}

// notifyLocal sends rec, an extension task's new state, to the streams
// subscribed to it here; once rec is terminal they are forgotten.
func (m *Manager) notifyLocal(rec Record) {
	if !rec.Modern {
		return
	}
	id := rec.Task.TaskID
	m.mu.Lock()
	subs := make([]*taskSub, 0, len(m.subs[id]))
	for s := range m.subs[id] {
		subs = append(subs, s)
	}
	if rec.Task.Status.Terminal() {
		delete(m.subs, id)
	}
	m.mu.Unlock()
	if len(subs) == 0 {
		return
	}
	view := extView(rec, "")
	for _, s := range subs {
		s.mu.Lock()
		if !s.done {
			s.done = rec.Task.Status.Terminal()
			// Best effort: the stream may have ended; tasks/get still answers.
			_ = s.send(MethodExtStatus, view)
		}
		s.mu.Unlock()
	}
}

// listenContributor is the Manager's part of subscriptions/listen
// (session.ListenContributor).
func (m *Manager) listenContributor(ctx context.Context, params json.RawMessage, send func(string, any) error) (map[string]any, func(), error) {
	raw := jsonscan.Member(jsonscan.Member(params, "notifications"), "taskIds")
	if raw == nil || string(raw) == "null" {
		return nil, nil, nil
	}
	if !declaresExtension(params) {
		return nil, nil, errMissingExtension("subscriptions/listen asks for task notifications (notifications.taskIds) and needs the " + ExtensionID + " extension in the request's capabilities")
	}
	var ids []string
	if err := json.Unmarshal(raw, &ids); err != nil {
		return nil, nil, jsonrpc2.NewInvalidParamsError("subscriptions/listen: notifications.taskIds: " + err.Error())
	}
	owner := m.modernOwner(ctx)
	if err := m.allow(owner); err != nil {
		return nil, nil, err
	}
	sub := &taskSub{send: send}
	agreed := []string{}
	// Registered before each lookup, so that a change after the lookup is
	// not lost; a task found terminal (or not found) is unregistered.
	for _, id := range ids {
		if m.subscribe(id, sub) {
			rec, err := m.lookup(ctx, owner, id)
			if err == nil && rec.Modern && !rec.Task.Status.Terminal() {
				agreed = append(agreed, id)
				continue
			}
			m.unsubscribe(id, sub)
		}
	}
	stop := func() {
		for _, id := range agreed {
			m.unsubscribe(id, sub)
		}
	}
	return map[string]any{"taskIds": agreed}, stop, nil
}

// subscribe registers sub for id; false if it already is (an id listed
// twice).
func (m *Manager) subscribe(id string, sub *taskSub) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.subs == nil {
		m.subs = map[string]map[*taskSub]struct{}{}
	}
	if _, dup := m.subs[id][sub]; dup {
		return false
	}
	if m.subs[id] == nil {
		m.subs[id] = map[*taskSub]struct{}{}
	}
	m.subs[id][sub] = struct{}{}
	return true
}

func (m *Manager) unsubscribe(id string, sub *taskSub) {
	m.mu.Lock()
	defer m.mu.Unlock()
	delete(m.subs[id], sub)
	if len(m.subs[id]) == 0 {
		delete(m.subs, id)
	}
}
