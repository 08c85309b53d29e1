package tasks

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mcpgen/mcpgen/runtime/internal/jsonscan"
	"github.com/mcpgen/mcpgen/runtime/jsonrpc2"
	"github.com/mcpgen/mcpgen/runtime/session"
)

// The Tasks extension (io.modelcontextprotocol/tasks, SEP-2663,
// modelcontextprotocol/ext-tasks specification/draft/tasks.md), which
// carries tasks in the 2026-07-28 era. The Manager serves it beside the
// 2025-11-25 core tasks, with the same Store, work and cancellation; what
// differs is the wire:
//
//   - Opt-in is per request: a modern client lists the extension in the
//     request's _meta client capabilities; there is no "task" member, and
//     the server decides (this Manager: every tools/call of a tool whose
//     support is Optional or Required becomes a task when the client opted
//     in). A Required tool called without the opt-in, and a task method
//     from a client without it, answer -32021 naming the extension.
//   - CreateTaskResult is the task itself, flat, with resultType "task",
//     answered once Store.Create has returned (the Store's definition of
//     durably created).
//   - tasks/get answers the DetailedTask: the result inline when completed
//     (a tool result with isError included), the JSON-RPC error when
//     failed, the outstanding inputRequests when input_required.
//   - tasks/update delivers inputResponses to the work's Ask calls;
//     tasks/cancel acknowledges with an empty result, also for a task that
//     is already terminal (which stays as it is).
//   - tasks/result and tasks/list do not exist: -32601.
//   - ttlMs and pollIntervalMs instead of ttl and pollInterval.
//   - Tasks are not bound to a Conn: a modern request is stateless (over
//     HTTP each one has its own Conn), so a task is reached by its 144-bit
//     id and, with Config.Owner, only by the requestor it returns.

// Extension method names (SEP-2663). tasks/get and tasks/cancel keep the
// core names (MethodGet, MethodCancel).
const (
	MethodUpdate    = "tasks/update"
	MethodExtStatus = "notifications/tasks"
)

// extTask is the extension's Task with the DetailedTask members: the
// CreateTaskResult (resultType "task") and the tasks/get result
// (resultType "complete").
type extTask struct {
	ResultType     string                     `json:"resultType,omitempty"` // none in notifications/tasks
	TaskID         string                     `json:"taskId"`
	Status         Status                     `json:"status"`
	StatusMessage  string                     `json:"statusMessage,omitempty"`
	CreatedAt      string                     `json:"createdAt"`
	LastUpdatedAt  string                     `json:"lastUpdatedAt"`
	TTLMs          *int64                     `json:"ttlMs"`
	PollIntervalMs *int64                     `json:"pollIntervalMs,omitempty"`
	Result         json.RawMessage            `json:"result,omitempty"`
	Error          *jsonrpc2.Error            `json:"error,omitempty"`
	InputRequests  map[string]json.RawMessage `json:"inputRequests,omitempty"`
}

// ack is the empty acknowledgement of tasks/update and tasks/cancel.
var ack = json.RawMessage(`{"resultType":"complete"}`)

func extView(rec Record, resultType string) extTask {
	t := extTask{ResultType: resultType, TaskID: rec.Task.TaskID, Status: rec.Task.Status,
		StatusMessage: rec.Task.StatusMessage, CreatedAt: rec.Task.CreatedAt, LastUpdatedAt: rec.Task.LastUpdatedAt,
		TTLMs: rec.Task.TTL, PollIntervalMs: rec.Task.PollInterval}
	if resultType == "task" {
		return t
	}
	switch rec.Task.Status {
	case Completed:
		t.Result = rec.Result
	case Failed:
		t.Error = rec.Err
	case InputRequired:
		t.InputRequests = rec.InputRequests
	}
	return t
}

// modernRequest reports whether req comes from a 2026-07-28 client: the
// session says so for the methods it wraps (tools/call); the task methods,
// which no revision's schema has, carry the protocol version in _meta.
func modernRequest(ctx context.Context, req *jsonrpc2.Request) bool {
	if session.ProtocolVersion(ctx) != "" {
		return session.IsModern(ctx)
	}
	return jsonscan.Member(jsonscan.Member(req.Params, "_meta"), session.MetaProtocolVersion) != nil
}

// declaresExtension reports whether the request's per-request client
// capabilities list the Tasks extension.
func declaresExtension(params json.RawMessage) bool {
	caps := jsonscan.Member(jsonscan.Member(params, "_meta"), session.MetaClientCapabilities)
	v := jsonscan.Member(jsonscan.Member(caps, "extensions"), ExtensionID)
	return len(v) > 0 && v[0] == '{'
}

// errMissingExtension is -32021 with the capability the client must declare.
func errMissingExtension(why string) *jsonrpc2.Error {
	return &jsonrpc2.Error{Code: session.CodeMissingRequiredClientCapability, Message: "Missing required client capability: " + why,
		Data: json.RawMessage(`{"requiredCapabilities":{"extensions":{"` + ExtensionID + `":{}}}}`)}
}

// modernOwner is the binding key of a modern requestor: its authorization
// context when Config.Owner gives one, else none (the task id is the only
// key, as the extension allows: it is unguessable).
func (m *Manager) modernOwner(ctx context.Context) string {
	if m.cfg.Owner != nil {
		if o, ok := m.cfg.Owner(ctx); ok {
			return "\x00" + o
		}
	}
	return ""
}

// wrapExt runs a modern tools/call (or other configured method) as an
// extension task when the client opted in on this request and the tool
// allows it.
func (m *Manager) wrapExt(ctx context.Context, conn *jsonrpc2.Conn, method string, h jsonrpc2.Handler, req *jsonrpc2.Request) (any, error) {
	members := map[string]json.RawMessage{}
	if len(req.Params) > 0 && req.Params[0] == '{' {
		if err := json.Unmarshal(req.Params, &members); err != nil {
			return nil, jsonrpc2.NewInvalidParamsError(method + ": " + err.Error())
		}
	}
	work := req
	if _, ok := members["task"]; ok {
		// The core "task" member means nothing in this era; the handler
		// does not see it.
		delete(members, "task")
		params, _ := json.Marshal(members)
		work = &jsonrpc2.Request{ID: req.ID, Method: req.Method, Params: params}
	}
	support := Optional
	if method == toolsCall && m.cfg.ToolSupport != nil {
		var name string
		_ = json.Unmarshal(members["name"], &name)
		if support = m.cfg.ToolSupport(name); support == "" {
			support = Forbidden
		}
	}
	if !declaresExtension(req.Params) {
		if support == Required {
			return nil, errMissingExtension("this tool runs only as a task")
		}
		return h(ctx, work)
	}
	if support == Forbidden {
		return h(ctx, work)
	}
	owner := m.modernOwner(ctx)
	if err := m.allow(owner); err != nil {
		return nil, err
	}
	if m.cfg.MaxActive > 0 && m.active(owner) >= m.cfg.MaxActive {
		return nil, &jsonrpc2.Error{Code: CodeRateLimited, Message: "too many running tasks for this requestor"}
	}
	if method == toolsCall && m.cfg.SyncFirst != nil {
		var name string
		_ = json.Unmarshal(members["name"], &name)
		if m.cfg.SyncFirst(name) {
			return m.syncFirst(ctx, conn, owner, method, h, work)
		}
	}
	rec, err := m.create(ctx, owner, method, nil, true)
	if err != nil {
		return nil, err
	}
	if err := m.launch(ctx, conn, "", owner, rec, method, h, work, true); err != nil {
		return nil, err
	}
	return extView(rec, "task"), nil
}

// detacher is what Detach finds in a SyncFirst handler's ctx.
type detacher struct {
	ask     chan struct{} // closed by Detach
	created chan error    // the creation's outcome, answered to Detach
	once    sync.Once
}

type detachKey struct{}

// Detach turns the request whose handler ctx is given into a Tasks extension
// task (Config.SyncFirst): the requestor is answered with the
// CreateTaskResult once the task is durably created, and the handler goes
// on as the task's work, its ctx now ended only by tasks/cancel (with a
// cause naming the task) or the Manager's Close; what it returns becomes
// the task's outcome. Call it after the synchronous input rounds (MRTR).
// Outside such a handler (a 2025-11-25 task, an ordinary request) it does
// nothing and returns nil; the error is the task's creation failure (the
// handler should then return it).
func Detach(ctx context.Context) error {
	d, ok := ctx.Value(detachKey{}).(*detacher)
	if !ok {
		return nil
	}
	first := false
	d.once.Do(func() { first = true; close(d.ask) })
	if !first {
		return nil
	}
	return <-d.created
}

// syncFirst runs a SyncFirst tool's handler as an ordinary request until it
// calls Detach, then creates the task and answers with it, the handler
// carrying on as its work.
func (m *Manager) syncFirst(ctx context.Context, conn *jsonrpc2.Conn, owner, method string, h jsonrpc2.Handler, work *jsonrpc2.Request) (any, error) {
	d := &detacher{ask: make(chan struct{}), created: make(chan error, 1)}
	ref := &taskRef{m: m}
	wctx, cancel := context.WithCancelCause(context.WithoutCancel(ctx))
	// Until it detaches, the handler is the request's: its cancellation
	// (a closed response stream) ends it.
	stop := context.AfterFunc(ctx, func() { cancel(context.Cause(ctx)) })
	wctx = context.WithValue(context.WithValue(wctx, taskKey{}, ref), detachKey{}, d)
	type outcome struct {
		res any
		err error
	}
	returned := make(chan outcome, 1)
	var detached atomic.Bool
	var id string
	m.mu.Lock()
	m.wg.Add(1)
	m.mu.Unlock()
	go func() {
		defer m.wg.Done()
		res, err := invoke(wctx, h, work, m.panicLogger(func() string {
			m.mu.Lock() // id is written under m.mu when the handler detaches
			defer m.mu.Unlock()
			return id
		}, method, work))
		if !detached.Load() {
			returned <- outcome{res, err}
			return
		}
		m.record(wctx, id, method, res, err, true)
		cancel(errWorkDone)
	}()
	select {
	case o := <-returned:
		stop()
		cancel(errWorkDone)
		return o.res, o.err
	case <-d.ask:
	}
	if !stop() {
		// The request was cancelled as the handler detached: it ends.
		err := context.Cause(ctx)
		d.created <- err
		return nil, err
	}
	rec, err := m.create(ctx, owner, method, nil, true)
	if err != nil {
		cancel(err)
		d.created <- err
		return nil, err
	}
	m.mu.Lock()
	if m.closed {
		m.mu.Unlock()
		m.store.Delete(ctx, rec.Task.TaskID)
		err := &jsonrpc2.Error{Code: jsonrpc2.CodeInternalError, Message: "task manager closed"}
		cancel(err)
		d.created <- err
		return nil, err
	}
	id = rec.Task.TaskID
	ref.id = id
	detached.Store(true)
	m.live[id] = &run{cancel: cancel, conn: conn, owner: owner, request: work.ID, modern: true}
	m.mu.Unlock()
	d.created <- nil
	m.log.Info("task created", slog.String("task", id), slog.String("method", method),
		slog.String("request", work.ID.String()), slog.String("owner", auditOwner(owner)), slog.Bool("extension", true), slog.Bool("detached", true))
	return extView(rec, "task"), nil
}

// extOp decodes a modern task request, checks the opt-in, rate-limits it
// and looks the task up.
func (m *Manager) extOp(ctx context.Context, req *jsonrpc2.Request) (Record, error) {
	if !declaresExtension(req.Params) {
		return Record{}, errMissingExtension(req.Method + " needs the " + ExtensionID + " extension in the request's capabilities")
	}
	var p taskIDParams
	if err := json.Unmarshal(req.Params, &p); err != nil || p.TaskID == nil {
		return Record{}, jsonrpc2.NewInvalidParamsError(req.Method + ": taskId is required")
	}
	owner := m.modernOwner(ctx)
	if err := m.allow(owner); err != nil {
		return Record{}, err
	}
	m.sweep(ctx, m.now())
	rec, err := m.lookup(ctx, owner, *p.TaskID)
	if err == nil && !rec.Modern {
		// A core task is bound to its session; the extension cannot reach it.
		return Record{}, jsonrpc2.NewInvalidParamsError("Failed to retrieve task: Task not found")
	}
	return rec, err
}

func (m *Manager) extGet(ctx context.Context, req *jsonrpc2.Request) (any, error) {
	rec, err := m.extOp(ctx, req)
	if err != nil {
		return nil, err
	}
	return extView(rec, "complete"), nil
}

// extCancel acknowledges every tasks/cancel for a task the requestor may
// see: a running task is cancelled (its work's ctx ends with a cause naming
// the task), a terminal one stays as it is (the request is idempotent).
func (m *Manager) extCancel(ctx context.Context, req *jsonrpc2.Request) (any, error) {
	rec, err := m.extOp(ctx, req)
	if err != nil {
		return nil, err
	}
	_, err = m.forceCancel(rec.Task.TaskID, "The task was cancelled by request.", jsonrpc2.SourceTaskCancel)
	var term errTerminal
	switch {
	case errors.As(err, &term):
		m.log.Debug("tasks/cancel of a terminal task", slog.String("task", rec.Task.TaskID), slog.String("status", string(term.status)))
	case err != nil:
		return nil, jsonrpc2.NewInvalidParamsError("Failed to retrieve task: " + err.Error())
	default:
		m.log.Info("task cancelled", slog.String("task", rec.Task.TaskID), slog.String("request", req.ID.String()))
	}
	return ack, nil
}

// extUpdate delivers inputResponses to the outstanding input requests they
// name; keys that are not outstanding are ignored, as the extension says.
func (m *Manager) extUpdate(ctx context.Context, req *jsonrpc2.Request) (any, error) {
	rec, err := m.extOp(ctx, req)
	if err != nil {
		return nil, err
	}
	var p struct {
		InputResponses map[string]json.RawMessage `json:"inputResponses"`
	}
	if err := json.Unmarshal(req.Params, &p); err != nil {
		return nil, jsonrpc2.NewInvalidParamsError("tasks/update: inputResponses: " + err.Error())
	}
	id := rec.Task.TaskID
	type delivery struct {
		ch     chan json.RawMessage
		answer json.RawMessage
	}
	var deliver []delivery
	var keys []string
	m.mu.Lock()
	waiting := m.inputs[id]
	for key, answer := range p.InputResponses {
		if ch, ok := waiting[key]; ok {
			delete(waiting, key)
			deliver = append(deliver, delivery{ch, answer})
			keys = append(keys, key)
		}
	}
	m.mu.Unlock()
	remote := m.remoteInputs(rec, p.InputResponses, keys) // Asks waiting on other replicas
	for k := range remote {
		keys = append(keys, k)
	}
	if len(keys) > 0 {
		// The record drops the answered keys before the acknowledgement,
		// so a tasks/get right after it sees only what is still pending
		// (the Ask calls find their keys gone and leave the record be),
		// and, in the same update, goes back to working when none is left:
		// an Ask the work makes meanwhile then finds it working and moves
		// it to input_required again (two updates would let that Ask land
		// between them, and the second would hide its request).
		now := m.now()
		m.change(ctx, id, func(r *Record) (effect, error) {
			for _, k := range keys {
				delete(r.InputRequests, k)
			}
			return answered(r, now), nil
		})
	}
	for _, d := range deliver {
		d.ch <- d.answer // buffered: the Ask that owns it may have gone
	}
	if remote != nil {
		m.publish(subjectInput, busMsg{ID: id, Inputs: remote})
	}
	return ack, nil
}

// askExt is Ask for an extension task: the request is recorded in the
// task's inputRequests (status input_required) and answered by the
// requestor's tasks/update.
func (m *Manager) askExt(ctx context.Context, id, method string, params any, result any) error {
	req := map[string]any{"method": method}
	if params != nil {
		req["params"] = params
	}
	raw, err := json.Marshal(req)
	if err != nil {
		return err
	}
	ch := make(chan json.RawMessage, 1)
	m.mu.Lock()
	m.inputSeq++
	key := "input-" + strconv.FormatUint(m.inputSeq, 10)
	if m.inputs[id] == nil {
		m.inputs[id] = map[string]chan json.RawMessage{}
	}
	m.inputs[id][key] = ch
	m.mu.Unlock()
	defer func() {
		m.mu.Lock()
		delete(m.inputs[id], key)
		if len(m.inputs[id]) == 0 {
			delete(m.inputs, id)
		}
		m.mu.Unlock()
	}()
	if _, err := m.transitionKeep(ctx, id, InputRequired, "waiting for "+method, func(r *Record) {
		if r.InputRequests == nil {
			r.InputRequests = map[string]json.RawMessage{}
		}
		r.InputRequests[key] = raw
	}); err != nil {
		return err
	}
	var answer json.RawMessage
	select {
	case answer = <-ch:
	case <-ctx.Done():
		return context.Cause(ctx)
	}
	// tasks/update (extUpdate) has already taken the key out of the record
	// and moved the status on; this only covers an answer that reached ch
	// another way.
	now := m.now()
	m.change(ctx, id, func(r *Record) (effect, error) {
		if _, had := r.InputRequests[key]; !had {
			return effectNone, nil
		}
		delete(r.InputRequests, key)
		return answered(r, now), nil
	})
	if result == nil {
		return nil
	}
	return json.Unmarshal(answer, result)
}

// answered finishes, inside the store update that took answered requests
// out of r, what that means for the task: with none left pending an
// input_required task is working again; with some left, its subscribers
// hear of the shorter list; a terminal task keeps its status.
func answered(r *Record, now time.Time) effect {
	if len(r.InputRequests) > 0 {
		if r.Task.Status == InputRequired {
			return effectEdited
		}
		return effectQuiet
	}
	r.InputRequests = nil
	if r.Task.Status != InputRequired {
		return effectQuiet
	}
	r.Task.Status, r.Task.StatusMessage, r.Task.LastUpdatedAt = Working, "", formatTime(now)
	return effectMoved
}

// WithTasks serves m's tasks through a session.Server, for both eras with
// one handler: the tools/call (and other Config.Methods) handlers the
// implementation registers run as 2025-11-25 core tasks for a legacy client
// that asks for one (the "task" member) and as Tasks extension tasks for a
// 2026-07-28 client that lists the extension in the request's capabilities.
// It attaches m to every Conn the server builds (session.WithConnSetup:
// m.Serve), declares the core "tasks" capability to legacy clients
// (m.Capability()) and the extension to modern ones. Legacy clients of a
// revision before 2025-11-25 get no tasks (their task member is ignored)
// unless Config.Enabled says otherwise. Close m after the server's last
// Serve has returned.
func WithTasks(m *Manager) session.ServerOption {
	return func(s *session.Server) {
		session.WithConnSetup(m.Serve)(s)
		session.WithLegacyCapability("tasks", m.Capability(), func(r session.Revision) bool { return r.CoreTasks })(s)
		session.WithExtension(ExtensionID, json.RawMessage(`{}`))(s)
		session.WithListenContributor(m.listenContributor)(s)
	}
}

// hasTasks reports whether the request in ctx may be a task: outside a
// session, or in one whose revision has tasks, core ones
// (session.Revision.CoreTasks, 2025-11-25) for a legacy client or the Tasks
// extension for a modern one. A legacy client of an earlier revision has
// none.
func hasTasks(ctx context.Context) bool {
	rev, ok := session.ProtocolRevision(ctx)
	return !ok || rev.Modern || rev.CoreTasks
}

// listTools adds execution.taskSupport (Config.ToolSupport) to each tool of
// a tools/list answered to a 2025-11-25 client that has none written, so a
// tool declares its task support once, in ToolSupport, and core requestors
// (which MUST NOT augment a tool that does not allow it) see it. Modern
// clients get the list as it is: the extension has no tool-level
// declaration.
func (m *Manager) listTools(ctx context.Context, req *jsonrpc2.Request, next jsonrpc2.Handler) (any, error) {
	res, err := next(ctx, req)
	if err != nil || modernRequest(ctx, req) {
		return res, err
	}
	if !hasTasks(ctx) {
		return res, err
	}
	if m.cfg.Enabled != nil && !m.cfg.Enabled(ctx) {
		return res, err
	}
	raw, rpcErr := encodeOutcome(res, nil)
	if rpcErr != nil {
		return nil, rpcErr
	}
	var list map[string]json.RawMessage
	var tools []map[string]json.RawMessage
	if json.Unmarshal(raw, &list) != nil || json.Unmarshal(list["tools"], &tools) != nil {
		return res, nil // not a ListToolsResult: left to the session to judge
	}
	for _, tool := range tools {
		var name string
		_ = json.Unmarshal(tool["name"], &name)
		support := m.cfg.ToolSupport(name)
		if support == "" || support == Forbidden || jsonscan.Member(tool["execution"], "taskSupport") != nil {
			continue
		}
		exec := map[string]json.RawMessage{}
		_ = json.Unmarshal(tool["execution"], &exec)
		exec["taskSupport"], _ = json.Marshal(support)
		tool["execution"], _ = json.Marshal(exec)
	}
	list["tools"], _ = json.Marshal(tools)
	out, err := json.Marshal(list)
	return json.RawMessage(out), err
}
