package tasks

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"runtime/debug"
	"strings"
	"sync"
	"time"

	"github.com/mcpgen/mcpgen/runtime/cluster"
	"github.com/mcpgen/mcpgen/runtime/internal/jsonscan"
	"github.com/mcpgen/mcpgen/runtime/jsonrpc2"
)

// The task methods of 2025-11-25.
const (
	MethodGet    = "tasks/get"
	MethodResult = "tasks/result"
	MethodList   = "tasks/list"
	MethodCancel = "tasks/cancel"
	MethodStatus = "notifications/tasks/status"
	toolsCall    = "tools/call"
	toolsList    = "tools/list"
)

// Support is a tool's execution.taskSupport (tasks.mdx, Tool-Level
// Negotiation).
type Support string

// The three values of execution.taskSupport; absent means Forbidden.
const (
	Forbidden Support = "forbidden"
	Optional  Support = "optional"
	Required  Support = "required"
)

// CodeRateLimited is the JSON-RPC error answered when a requestor exceeds
// Config.RateLimit (in the implementation-defined server-error range).
const CodeRateLimited = -32000

// RateLimit is a token bucket on task operations per requestor (creating,
// getting, listing, waiting for and cancelling tasks).
type RateLimit struct {
	// PerSecond tokens are added each second, up to Burst.
	PerSecond float64
	Burst     int
}

// Config is how a Manager runs tasks. The zero value, with Methods set, is
// usable: in-memory store, session binding, no ttl, 1s poll interval, pages
// of 50, at most 256 running tasks and DefaultRateLimit (512 operations a
// second, burst 512) per requestor.
type Config struct {
	// Methods are the requests this side runs as tasks when they carry the
	// "task" member, e.g. tools/call on a server, sampling/createMessage and
	// elicitation/create on a client. Capability reports exactly these.
	Methods []string
	// ToolSupport gives a tool's execution.taskSupport, by tool name, for
	// tools/call; nil means Optional for every tool. It should agree with
	// what tools/list reports.
	ToolSupport func(tool string) Support

	// Enabled, if set, says per request whether tasks are on for the
	// requestor: false where the negotiated revision has no tasks (before
	// 2025-11-25) or the capability was not declared. Such requests are
	// processed normally, the task member ignored, as the page requires of
	// receivers without the capability. With Enabled set, Serve leaves
	// Conn.AcceptTasks to the first request it enables, so a task-augmented
	// request that arrives before then stays cancellable by notification.
	Enabled func(ctx context.Context) bool

	// Store keeps the records; nil means NewMemoryStore().
	Store Store
	// Now is the clock (ttl, expiry, timestamps, rate limit); nil means
	// time.Now. Tests inject a fake one.
	Now func() time.Time

	// DefaultTTL is the ttl of a task whose request asks for none; zero
	// means unlimited (ttl null) unless MaxTTL is set.
	DefaultTTL time.Duration
	// MaxTTL caps every ttl (the page lets receivers override the
	// requested one); zero means no cap.
	MaxTTL time.Duration
	// PollInterval is suggested to requestors in every task; zero means 1s.
	PollInterval time.Duration
	// PageSize bounds tasks/list pages; zero means 50.
	PageSize int

	// Owner returns the requestor's authorization context for an incoming
	// request (its handler ctx), if the application has one; tasks are then
	// bound to it: other requestors see them as nonexistent.
	Owner func(ctx context.Context) (string, bool)
	// Unbound turns off binding tasks to the Conn (session) that created
	// them, for Managers shared by many Conns with no requestor identity.
	// Without Owner, tasks/list is then neither declared nor served.
	Unbound bool
	// RateLimit limits task operations per requestor; zero means
	// DefaultRateLimit(MaxActive, PollInterval), which admits polling every
	// running task at the advertised interval twice over; a negative
	// PerSecond means no limit. A modern requestor is identified only by
	// Owner: without it all of them share one limit (and one MaxActive).
	// With Bus (replicas) the limit is this replica's: behind a balancer a
	// requestor gets up to one bucket per replica (docs/replicas.md,
	// "Limits").
	RateLimit RateLimit
	// MaxActive bounds the tasks of one requestor whose work is running;
	// zero means 256, negative means no bound. Beyond it task creation
	// fails with CodeRateLimited. With Bus (replicas) it counts the tasks
	// running on this replica: a requestor may run up to MaxActive on each.
	MaxActive int

	// SyncFirst, if set, names the tools whose handler starts as an
	// ordinary request for a 2026-07-28 client and becomes a task only when
	// it calls Detach: its multi round-trip inputs (session.Input, MRTR) are
	// then resolved synchronously before the CreateTaskResult, as the Tasks
	// extension recommends. Returning without Detach answers the request
	// normally (an InputRequiredResult for session.ErrInputRequired). For a
	// 2025-11-25 client such a tool is a task from the start and Detach does
	// nothing.
	SyncFirst func(tool string) bool

	// StatusNotifications sends notifications/tasks/status on every
	// transition (optional in the spec; requestors must not rely on it).
	StatusNotifications bool
	// Logger receives audit lines (creation, transitions, cancellations);
	// nil means slog.Default().
	Logger *slog.Logger

	// Bus, if set, makes this Manager one replica of a cluster whose
	// replicas share Store and Bus (cluster.go): any replica answers any
	// task request, tasks/cancel reaches the work wherever it runs, and a
	// dead replica's running tasks fail within Lease + Lease/3. Nil (the
	// default) is one process, as before.
	Bus cluster.Bus
	// Replica names this replica in task records (Record.Runner) and in the
	// error of the tasks its death leaves; "" means a random name. It must
	// differ between replicas running at the same time.
	Replica string
	// Lease is how long a replica's claim on a task it runs lasts without
	// renewal (renewed every Lease/3); zero means DefaultLease. Only with
	// Bus.
	Lease time.Duration
	// SessionKey, if set, gives the legacy (2025-11-25) session of an
	// incoming request, to bind core tasks to it instead of to the Conn:
	// behind a load balancer one session's requests reach Conns on several
	// replicas, and each must find the session's tasks. A Conn is then only
	// one replica's copy of the session, so its end does not cancel the
	// session's tasks (they end with their work, tasks/cancel or ttl).
	SessionKey func(ctx context.Context) (string, bool)
}

// Manager runs task-augmented requests and answers the tasks/* methods. One
// Manager may serve several Conns; see Serve.
type Manager struct {
	cfg     Config
	store   Store
	now     func() time.Time
	log     *slog.Logger
	limiter *limiter
	panics  *limiter // rate limit of the task-handler panic log line

	mu       sync.Mutex
	live     map[string]*run      // tasks whose work has not finished
	waiters  map[string]chan bool // closed when the task becomes terminal
	expiries map[string]time.Time // for sweeping tasks nobody asks about
	// announce holds the Conn that receives a task's status notifications
	// until its terminal one is sent. It outlives live: the work may return
	// and leave live between a tasks/cancel's store update and its
	// notification, and that notification must still go out.
	announce map[string]*jsonrpc2.Conn
	// inputs are the extension tasks' outstanding input requests, by task
	// id and inputRequests key, each answered by tasks/update.
	inputs   map[string]map[string]chan json.RawMessage
	inputSeq uint64
	// subs are the subscriptions/listen streams that asked for an
	// extension task's status notifications (listen_ext.go), by task id.
	subs   map[string]map[*taskSub]struct{}
	swept  time.Time
	closed bool
	wg     sync.WaitGroup
	cl     *clusterState // nil outside a cluster (Config.Bus)
}

// run is the work of one task still executing.
type run struct {
	cancel  context.CancelCauseFunc
	conn    *jsonrpc2.Conn
	session string
	owner   string
	request jsonrpc2.RequestID // the creating request, named in the work's cancel cause
	// askMu orders the core (2025-11-25) Ask edges: the count's move to 1
	// and the move to input_required, or its move to 0 and the move back to
	// working, happen together, so an Ask starting while the last one ends
	// cannot leave the task working with a request outstanding.
	askMu  sync.Mutex
	asking int  // outstanding input requests (Ask); under askMu
	modern bool // an extension (2026-07-28) task
}

// NewManager returns a Manager with cfg.
func NewManager(cfg Config) *Manager {
	m := &Manager{cfg: cfg, store: cfg.Store, now: cfg.Now, log: cfg.Logger,
		live: map[string]*run{}, waiters: map[string]chan bool{}, expiries: map[string]time.Time{}, announce: map[string]*jsonrpc2.Conn{},
		inputs: map[string]map[string]chan json.RawMessage{}}
	if m.store == nil {
		m.store = NewMemoryStore()
	}
	if m.now == nil {
		m.now = time.Now
	}
	if m.log == nil {
		m.log = slog.Default()
	}
	m.panics = newLimiter(RateLimit{PerSecond: 1, Burst: 10}, time.Now)
	if m.cfg.PollInterval <= 0 {
		m.cfg.PollInterval = time.Second
	}
	if m.cfg.PageSize <= 0 {
		m.cfg.PageSize = 50
	}
	if m.cfg.MaxActive == 0 {
		m.cfg.MaxActive = 256
	}
	rl := cfg.RateLimit
	if rl.PerSecond == 0 && rl.Burst == 0 {
		rl = DefaultRateLimit(m.cfg.MaxActive, m.cfg.PollInterval)
	}
	if rl.PerSecond > 0 {
		m.limiter = newLimiter(rl, m.now)
	}
	if cfg.Bus != nil {
		m.startCluster()
	}
	return m
}

// listable reports whether tasks/list can be served: only when requestors
// are identified (tasks.mdx: receivers that cannot identify requestors
// SHOULD NOT declare tasks.list).
func (m *Manager) listable() bool { return !m.cfg.Unbound || m.cfg.Owner != nil }

// Capability returns the "tasks" capability object for what this Manager
// implements: cancel always, list when requestors are identified, and one
// requests entry per configured method ("tools/call" becomes
// {"tools":{"call":{}}}). The lifecycle layer puts it in the initialize
// result (server) or request (client).
func (m *Manager) Capability() json.RawMessage {
	caps := map[string]any{"cancel": struct{}{}}
	if m.listable() {
		caps["list"] = struct{}{}
	}
	reqs := map[string]any{}
	for _, method := range m.cfg.Methods {
		node := reqs
		parts := strings.Split(method, "/")
		for i, p := range parts {
			if i == len(parts)-1 {
				node[p] = struct{}{}
				break
			}
			next, ok := node[p].(map[string]any)
			if !ok {
				next = map[string]any{}
				node[p] = next
			}
			node = next
		}
	}
	caps["requests"] = reqs
	b, _ := json.Marshal(caps)
	return b
}

// Serve takes over conn's task methods: each of Config.Methods is run as
// a task when augmented, by an interceptor around the handler registered
// for it (e.g. by the generated Register function, before or after Serve),
// and tasks/get, tasks/result, tasks/list and tasks/cancel are answered by
// the Manager. The interceptor is added inside those conn already has (the
// session's, the user's), so they see the creating request and the
// Manager's own methods. Call it before conn.Start.
func (m *Manager) Serve(conn *jsonrpc2.Conn) error {
	session := ""
	if !m.cfg.Unbound {
		session = newID()
	}
	methods := map[string]bool{}
	for _, method := range m.cfg.Methods {
		methods[method] = true
		if m.cfg.Enabled == nil {
			conn.AcceptTasks(method)
		}
	}
	conn.Intercept(jsonrpc2.Interceptor{Request: func(ctx context.Context, req *jsonrpc2.Request, next jsonrpc2.Handler) (any, error) {
		if req.Method == toolsList && methods[toolsCall] && m.cfg.ToolSupport != nil {
			return m.listTools(ctx, req, next)
		}
		if !methods[req.Method] {
			return next(ctx, req)
		}
		if modernRequest(ctx, req) {
			return m.wrapExt(ctx, conn, req.Method, next, req)
		}
		return m.wrap(conn, session, req.Method, next)(ctx, req)
	}})
	conn.Handle(MethodGet, func(ctx context.Context, req *jsonrpc2.Request) (any, error) {
		if modernRequest(ctx, req) {
			return m.extGet(ctx, req)
		}
		rec, err := m.op(ctx, session, req)
		if err != nil {
			return nil, err
		}
		return rec.Task, nil
	})
	conn.Handle(MethodResult, func(ctx context.Context, req *jsonrpc2.Request) (any, error) {
		if modernRequest(ctx, req) {
			return nil, jsonrpc2.NewMethodNotFoundError(MethodResult) // removed by the extension
		}
		return m.result(ctx, session, req)
	})
	conn.Handle(MethodCancel, func(ctx context.Context, req *jsonrpc2.Request) (any, error) {
		if modernRequest(ctx, req) {
			return m.extCancel(ctx, req)
		}
		return m.cancelOp(ctx, session, req)
	})
	conn.Handle(MethodList, func(ctx context.Context, req *jsonrpc2.Request) (any, error) {
		if modernRequest(ctx, req) {
			return nil, jsonrpc2.NewMethodNotFoundError(MethodList) // removed by the extension
		}
		return m.list(ctx, session, req)
	})
	conn.Handle(MethodUpdate, func(ctx context.Context, req *jsonrpc2.Request) (any, error) {
		if !modernRequest(ctx, req) {
			return nil, jsonrpc2.NewMethodNotFoundError(MethodUpdate) // the extension's only
		}
		return m.extUpdate(ctx, req)
	})
	if session != "" && m.cfg.SessionKey == nil {
		// Nobody can reach a session's tasks once its Conn is gone. Not in
		// m.wg: Close waits for task work, not for Conns to end.
		go func() {
			<-conn.Done()
			m.endSession(session)
		}()
	}
	return nil
}

// Close cancels every task still running (cause SourceClose) and waits for
// their work to return, or for ctx to end.
func (m *Manager) Close(ctx context.Context) error {
	defer m.stopCluster()
	m.mu.Lock()
	m.closed = true
	ids := make([]string, 0, len(m.live))
	for id := range m.live {
		ids = append(ids, id)
	}
	m.mu.Unlock()
	for _, id := range ids {
		m.forceCancel(id, "task manager closed", jsonrpc2.SourceClose)
	}
	done := make(chan struct{})
	go func() { m.wg.Wait(); close(done) }()
	select {
	case <-done:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (m *Manager) endSession(session string) {
	m.mu.Lock()
	var ids []string
	for id, r := range m.live {
		if r.session == session {
			ids = append(ids, id)
		}
	}
	m.mu.Unlock()
	for _, id := range ids {
		m.forceCancel(id, "the session that created the task ended", jsonrpc2.SourceClose)
	}
}

// newID returns 144 random bits, URL-safe: unguessable, as the page asks of
// receivers that cannot bind tasks to a requestor.
func newID() string {
	var b [18]byte
	if _, err := rand.Read(b[:]); err != nil {
		panic("tasks: crypto/rand failed: " + err.Error())
	}
	return base64.RawURLEncoding.EncodeToString(b[:])
}

// owner is the binding key of the requestor of an incoming request.
func (m *Manager) owner(ctx context.Context, session string) string {
	key := session
	if m.cfg.SessionKey != nil {
		if k, ok := m.cfg.SessionKey(ctx); ok {
			key = "session:" + k
		}
	}
	if m.cfg.Owner != nil {
		if o, ok := m.cfg.Owner(ctx); ok {
			key += "\x00" + o
		}
	}
	return key
}

func (m *Manager) allow(owner string) error {
	if m.limiter != nil && !m.limiter.allow(owner) {
		return &jsonrpc2.Error{Code: CodeRateLimited, Message: "rate limit exceeded for task operations"}
	}
	return nil
}

// wrap runs h as a task when the request is augmented, and enforces the
// tool-level rules for tools/call.
func (m *Manager) wrap(conn *jsonrpc2.Conn, session, method string, h jsonrpc2.Handler) jsonrpc2.Handler {
	return func(ctx context.Context, req *jsonrpc2.Request) (any, error) {
		members := map[string]json.RawMessage{}
		if len(req.Params) > 0 && req.Params[0] == '{' {
			if err := json.Unmarshal(req.Params, &members); err != nil {
				return nil, jsonrpc2.NewInvalidParamsError(method + ": " + err.Error())
			}
		}
		rawTask, augmented := members["task"]
		if m.cfg.Enabled != nil {
			if !m.cfg.Enabled(ctx) {
				return h(ctx, req) // no tasks here: the task member is ignored
			}
			conn.AcceptTasks(method)
		} else if !hasTasks(ctx) {
			return h(ctx, req) // served by a session, negotiated before tasks existed
		}
		support := Optional
		if method == toolsCall && m.cfg.ToolSupport != nil {
			var name string
			_ = json.Unmarshal(members["name"], &name)
			support = m.cfg.ToolSupport(name)
			if support == "" {
				support = Forbidden
			}
		}
		if !augmented {
			if support == Required {
				return nil, &jsonrpc2.Error{Code: jsonrpc2.CodeMethodNotFound, Message: "method not found: tool requires task augmentation"}
			}
			return h(ctx, req)
		}
		if support == Forbidden {
			return nil, &jsonrpc2.Error{Code: jsonrpc2.CodeMethodNotFound, Message: "method not found: tool does not support task augmentation"}
		}
		var tm taskMeta
		if err := json.Unmarshal(rawTask, &tm); err != nil {
			return nil, jsonrpc2.NewInvalidParamsError(method + ": task: " + err.Error())
		}
		owner := m.owner(ctx, session)
		if err := m.allow(owner); err != nil {
			return nil, err
		}
		if m.cfg.MaxActive > 0 && m.active(owner) >= m.cfg.MaxActive {
			return nil, &jsonrpc2.Error{Code: CodeRateLimited, Message: "too many running tasks for this requestor"}
		}
		rec, err := m.create(ctx, owner, method, tm.TTL, false)
		if err != nil {
			return nil, err
		}
		// The work sees the request as it would have been without the task:
		// the handler's answer is then exactly what the underlying request
		// would have returned, and a generated handler does not mistake it
		// for a CallToolAsTask.
		delete(members, "task")
		params, _ := json.Marshal(members)
		work := &jsonrpc2.Request{ID: req.ID, Method: req.Method, Params: params}
		if err := m.launch(ctx, conn, session, owner, rec, method, h, work, false); err != nil {
			return nil, err
		}
		return createResult{Task: rec.Task}, nil
	}
}

// launch runs a created task's work in the background.
func (m *Manager) launch(ctx context.Context, conn *jsonrpc2.Conn, session, owner string, rec Record, method string, h jsonrpc2.Handler, work *jsonrpc2.Request, modern bool) error {
	req := work
	// Detached from the creating request (its cancellation does not reach
	// the task), but keeping its values (the runtime's Request, hence
	// the progress token, which stays valid for the task's lifetime).
	wctx, cancel := context.WithCancelCause(context.WithoutCancel(ctx))
	wctx = context.WithValue(wctx, taskKey{}, &taskRef{m: m, id: rec.Task.TaskID})
	m.mu.Lock()
	if m.closed {
		m.mu.Unlock()
		cancel(nil)
		m.store.Delete(ctx, rec.Task.TaskID)
		return &jsonrpc2.Error{Code: jsonrpc2.CodeInternalError, Message: "task manager closed"}
	}
	m.live[rec.Task.TaskID] = &run{cancel: cancel, conn: conn, session: session, owner: owner, request: req.ID, modern: modern}
	if conn != nil && !modern {
		// A modern request's Conn ends with its answer; the extension's
		// notifications/tasks go to the subscriptions/listen streams that
		// asked for the task (notifyExt).
		m.announce[rec.Task.TaskID] = conn
	}
	m.wg.Add(1)
	m.mu.Unlock()
	go m.work(wctx, cancel, rec.Task.TaskID, method, h, work, modern)
	m.log.Info("task created", slog.String("task", rec.Task.TaskID), slog.String("method", method),
		slog.String("request", req.ID.String()), slog.String("owner", auditOwner(owner)), slog.Bool("extension", modern))
	return nil
}

// active counts the requestor's tasks whose work is running.
func (m *Manager) active(owner string) int {
	m.mu.Lock()
	defer m.mu.Unlock()
	n := 0
	for _, r := range m.live {
		if r.owner == owner {
			n++
		}
	}
	return n
}

// auditOwner is the binding key as logged: the authorization context the
// application supplied (after the session id), which audit logs should show.
func auditOwner(owner string) string {
	if _, auth, ok := strings.Cut(owner, "\x00"); ok {
		return auth
	}
	return ""
}

// create stores a new task in the working status.
func (m *Manager) create(ctx context.Context, owner, method string, ttlMs *int64, modern bool) (Record, error) {
	now := m.now()
	m.sweep(ctx, now)
	ttl := m.cfg.DefaultTTL
	if ttlMs != nil && *ttlMs > 0 {
		ttl = time.Duration(*ttlMs) * time.Millisecond
	}
	if m.cfg.MaxTTL > 0 && (ttl <= 0 || ttl > m.cfg.MaxTTL) {
		ttl = m.cfg.MaxTTL
	}
	poll := m.cfg.PollInterval.Milliseconds()
	rec := Record{
		Task: Task{
			TaskID: newID(), Status: Working, CreatedAt: formatTime(now), LastUpdatedAt: formatTime(now),
			PollInterval: &poll,
		},
		Owner: owner, Method: method, Created: now, Modern: modern,
	}
	if ttl > 0 {
		ms := ttl.Milliseconds()
		rec.Task.TTL = &ms
		rec.Expires = now.Add(ttl)
	}
	m.claim(&rec, now)
	if err := m.store.Create(ctx, rec); err != nil {
		return Record{}, &jsonrpc2.Error{Code: jsonrpc2.CodeInternalError, Message: "creating task: " + err.Error()}
	}
	m.mu.Lock()
	m.waiters[rec.Task.TaskID] = make(chan bool)
	if !rec.Expires.IsZero() {
		m.expiries[rec.Task.TaskID] = rec.Expires
	}
	m.mu.Unlock()
	return rec, nil
}

// work runs a task's handler and records its outcome, unless the task is
// already terminal (cancelled), in which case the outcome is dropped.
func (m *Manager) work(ctx context.Context, cancel context.CancelCauseFunc, id, method string, h jsonrpc2.Handler, req *jsonrpc2.Request, modern bool) {
	defer m.wg.Done()
	res, herr := invoke(ctx, h, req, m.panicLogger(func() string { return id }, method, req))
	m.record(ctx, id, method, res, herr, modern)
	cancel(errWorkDone)
}

// record stores the outcome of a task's work, unless the task is already
// terminal (cancelled), in which case the outcome is dropped.
func (m *Manager) record(ctx context.Context, id, method string, res any, herr error, modern bool) {
	raw, rpcErr := encodeOutcome(res, herr)
	status, msg := Completed, ""
	switch {
	case rpcErr != nil:
		status, msg = Failed, rpcErr.Message
	case method == toolsCall && isToolError(raw) && !modern:
		// 2025-11-25 fails the task; the extension keeps failed for
		// JSON-RPC errors only (a tool error is a completed task).
		status, msg = Failed, "tool returned isError"
	}
	_, err := m.transition(ctx, id, status, msg, func(r *Record) { r.Result, r.Err = raw, rpcErr })
	if err != nil {
		m.log.Debug("task outcome dropped", slog.String("task", id), slog.String("would_be", string(status)), slog.String("why", err.Error()))
	}
	m.mu.Lock()
	delete(m.live, id)
	m.mu.Unlock()
}

var errWorkDone = errors.New("tasks: task work returned")

// panicLogger logs a task handler's panic as the runtime does for ordinary
// requests: with the stack (rate-limited), since the task's failed status
// says only "handler panicked". id is read when the panic happens (an
// extension task gets its id only when it detaches).
func (m *Manager) panicLogger(id func() string, method string, req *jsonrpc2.Request) func(r any, stack []byte) {
	return func(r any, stack []byte) {
		if m.panics.allow("") {
			m.log.Error("task handler panicked", slog.String("task", id()), slog.String("method", method),
				slog.String("request", req.ID.String()), slog.Any("panic", r), slog.String("stack", string(stack)))
		}
	}
}

func invoke(ctx context.Context, h jsonrpc2.Handler, req *jsonrpc2.Request, logPanic func(r any, stack []byte)) (res any, err error) {
	defer func() {
		if r := recover(); r != nil {
			logPanic(r, debug.Stack())
			res, err = nil, &jsonrpc2.Error{Code: jsonrpc2.CodeInternalError, Message: "internal error: handler panicked"}
		}
	}()
	return h(ctx, req)
}

// encodeOutcome turns a handler's return into what tasks/result answers,
// the same way the runtime answers an ordinary request.
func encodeOutcome(res any, herr error) (json.RawMessage, *jsonrpc2.Error) {
	if herr != nil {
		var e *jsonrpc2.Error
		if !errors.As(herr, &e) {
			e = &jsonrpc2.Error{Code: jsonrpc2.CodeInternalError, Message: "internal error: " + herr.Error()}
		}
		return nil, e
	}
	if raw, ok := res.(json.RawMessage); ok && len(raw) > 0 {
		return raw, nil
	}
	if res == nil {
		return json.RawMessage("{}"), nil
	}
	raw, err := json.Marshal(res)
	if err != nil {
		return nil, &jsonrpc2.Error{Code: jsonrpc2.CodeInternalError, Message: "internal error: encoding result: " + err.Error()}
	}
	if string(raw) == "null" {
		raw = json.RawMessage("{}")
	}
	return raw, nil
}

func isToolError(raw json.RawMessage) bool {
	var r struct {
		IsError bool `json:"isError"`
	}
	return json.Unmarshal(raw, &r) == nil && r.IsError
}

// errTerminal is returned by transition for a task already terminal.
type errTerminal struct{ status Status }

func (e errTerminal) Error() string {
	return "task already in terminal status '" + string(e.status) + "'"
}

// transition moves a task to status in one atomic store update, if the page
// allows it; mut (if any) changes the record in the same step.
func (m *Manager) transition(ctx context.Context, id string, to Status, msg string, mut func(*Record)) (Record, error) {
	now := m.now()
	return m.change(ctx, id, func(r *Record) (effect, error) {
		if err := checkTransition(r.Task.Status, to); err != nil {
			return effectNone, err
		}
		r.Task.Status, r.Task.StatusMessage, r.Task.LastUpdatedAt = to, msg, formatTime(now)
		if mut != nil {
			mut(r)
		}
		return effectMoved, nil
	})
}

// checkTransition is the page's rule for moving from one status to another:
// errTerminal for a task that is already terminal.
func checkTransition(from, to Status) error {
	if CanTransition(from, to) {
		return nil
	}
	if from.Terminal() {
		return errTerminal{from}
	}
	return fmt.Errorf("tasks: %s to %s is not allowed", from, to)
}

// transitionKeep is transition that also applies mut when the task is in
// status to already (a second input request of an input_required task). It
// reads the status and writes the record in one store update: two input
// requests made at once must not both see working and then both try to
// move the task to input_required, the second being refused.
func (m *Manager) transitionKeep(ctx context.Context, id string, to Status, msg string, mut func(*Record)) (Record, error) {
	now := m.now()
	return m.change(ctx, id, func(r *Record) (effect, error) {
		e := effectEdited
		if r.Task.Status != to {
			if err := checkTransition(r.Task.Status, to); err != nil {
				return effectNone, err
			}
			r.Task.Status, e = to, effectMoved
		}
		r.Task.StatusMessage, r.Task.LastUpdatedAt = msg, formatTime(now)
		mut(r)
		return e, nil
	})
}

// effect is what an edit of change did to a task's record.
type effect int

const (
	effectNone   effect = iota // nothing: the record is not written
	effectQuiet                // written, nothing anyone is told about
	effectEdited               // written, same status: extension subscribers are told
	effectMoved                // a new status: everything a transition does follows
)

// errUnchanged makes the store skip the write of an edit that changed
// nothing.
var errUnchanged = errors.New("tasks: record unchanged")

// change applies edit to a task's record in one atomic store update, so
// that a decision taken on what the record holds (its status, its pending
// input requests) and the write it leads to cannot be split by another
// update, then does what edit's effect calls for: for a new status, wake the
// waiters of a terminal one and send the status notifications; for another
// edit, the extension's notification. It returns the record as written
// (the zero Record when edit changed nothing).
func (m *Manager) change(ctx context.Context, id string, edit func(*Record) (effect, error)) (Record, error) {
	var e effect
	rec, err := m.store.Update(context.WithoutCancel(ctx), id, func(r *Record) error {
		var err error
		if e, err = edit(r); err == nil && e == effectNone { // a Store may call fn again: e is this call's
			err = errUnchanged
		}
		return err
	})
	switch {
	case errors.Is(err, errUnchanged):
		return Record{}, nil
	case err != nil:
		return rec, err
	case e == effectQuiet:
		return rec, nil
	case e == effectEdited:
		m.notifyExt(rec)
		return rec, nil
	}
	to := rec.Task.Status
	m.mu.Lock()
	conn := m.announce[id]
	if to.Terminal() {
		delete(m.announce, id)
		if ch := m.waiters[id]; ch != nil {
			close(ch)
			delete(m.waiters, id)
		}
	}
	m.mu.Unlock()
	m.log.Info("task status", slog.String("task", id), slog.String("status", string(to)), slog.String("message", rec.Task.StatusMessage))
	if m.cfg.StatusNotifications && conn != nil {
		// Best effort: the notification is optional and the Conn may be gone.
		_ = conn.Notify(context.Background(), MethodStatus, rec.Task)
	}
	m.notifyExt(rec)
	return rec, nil
}

// forceCancel moves a task to cancelled and cancels its work with a cause
// naming the task.
func (m *Manager) forceCancel(id, reason string, src jsonrpc2.CancelSource) (Record, error) {
	rec, err := m.transition(context.Background(), id, Cancelled, reason, func(r *Record) {
		r.Result, r.Err = nil, &jsonrpc2.Error{Code: jsonrpc2.CodeInternalError, Message: "task cancelled: " + reason}
	})
	m.mu.Lock()
	r := m.live[id]
	m.mu.Unlock()
	if err == nil && r != nil {
		r.cancel(&jsonrpc2.CancelError{ID: r.request, Method: rec.Method, Reason: "task " + id + ": " + reason, Source: src})
	} else if err == nil {
		m.publishCancel(id, reason, src) // runs on another replica, if any
	}
	return rec, err
}

// lookup returns a task the requestor may see, expiring it if its ttl has
// passed. Another requestor's task is reported as not found, so ids cannot
// be probed.
func (m *Manager) lookup(ctx context.Context, owner, id string) (Record, error) {
	rec, err := m.store.Get(ctx, id)
	if err != nil || rec.Owner != owner {
		return Record{}, jsonrpc2.NewInvalidParamsError("Failed to retrieve task: Task not found")
	}
	if !rec.Expires.IsZero() && !m.now().Before(rec.Expires) {
		m.expire(ctx, id)
		return Record{}, jsonrpc2.NewInvalidParamsError("Failed to retrieve task: Task has expired")
	}
	return rec, nil
}

// expire deletes a task whose ttl has passed, and stops its work.
func (m *Manager) expire(ctx context.Context, id string) {
	m.mu.Lock()
	r := m.live[id]
	if ch := m.waiters[id]; ch != nil {
		close(ch)
		delete(m.waiters, id)
	}
	delete(m.expiries, id)
	delete(m.announce, id)
	delete(m.inputs, id)
	m.mu.Unlock()
	if r != nil {
		r.cancel(&jsonrpc2.CancelError{Reason: "task " + id + ": ttl expired", Source: jsonrpc2.SourceTaskCancel})
	}
	m.store.Delete(context.WithoutCancel(ctx), id)
	m.log.Info("task expired", slog.String("task", id))
}

// sweep expires, at most once a second, the tasks whose ttl has passed, so
// results nobody fetches do not pile up.
func (m *Manager) sweep(ctx context.Context, now time.Time) {
	m.mu.Lock()
	if now.Sub(m.swept) < time.Second {
		m.mu.Unlock()
		return
	}
	m.swept = now
	var due []string
	for id, exp := range m.expiries {
		if !now.Before(exp) {
			due = append(due, id)
		}
	}
	m.mu.Unlock()
	for _, id := range due {
		m.expire(ctx, id)
	}
}

// op decodes a taskId request, rate-limits it and looks the task up.
func (m *Manager) op(ctx context.Context, session string, req *jsonrpc2.Request) (Record, error) {
	var p taskIDParams
	if err := json.Unmarshal(req.Params, &p); err != nil || p.TaskID == nil {
		return Record{}, jsonrpc2.NewInvalidParamsError(req.Method + ": taskId is required")
	}
	owner := m.owner(ctx, session)
	if err := m.allow(owner); err != nil {
		return Record{}, err
	}
	m.sweep(ctx, m.now())
	return m.lookup(ctx, owner, *p.TaskID)
}

// result answers tasks/result: it blocks until the task is terminal, then
// returns the underlying request's outcome. A requestor that gives up
// (cancels this request) ends only the wait.
func (m *Manager) result(ctx context.Context, session string, req *jsonrpc2.Request) (any, error) {
	rec, err := m.op(ctx, session, req)
	if err != nil {
		return nil, err
	}
	for !rec.Task.Status.Terminal() {
		m.mu.Lock()
		ch := m.waiters[rec.Task.TaskID]
		if ch == nil && m.cl != nil {
			// Running on another replica: its terminal state is announced
			// on the bus, and polled for in case the message is lost.
			ch = m.remoteWaiterLocked(rec.Task.TaskID)
		}
		m.mu.Unlock()
		var tick <-chan time.Time
		var timer *time.Timer
		if ch == nil || m.cl != nil {
			// No in-process waiter (a store shared with another process):
			// fall back to polling it.
			timer = time.NewTimer(m.cfg.PollInterval)
			tick = timer.C
		}
		select {
		case <-ch:
		case <-tick:
		case <-ctx.Done():
		}
		if timer != nil {
			timer.Stop()
		}
		if ctx.Err() != nil {
			return nil, context.Cause(ctx)
		}
		if rec, err = m.lookup(ctx, rec.Owner, rec.Task.TaskID); err != nil {
			return nil, err
		}
	}
	if rec.Err != nil {
		e := *rec.Err
		return nil, &e
	}
	return withRelatedTask(rec.Result, rec.Task.TaskID)
}

// withRelatedTask adds the related-task metadata to a result object.
func withRelatedTask(result json.RawMessage, id string) (json.RawMessage, error) {
	out, err := jsonscan.EditObject(result, "_meta", func(meta map[string]json.RawMessage) bool {
		meta[RelatedTaskKey] = relatedTask(id)
		return true
	})
	if err != nil {
		return nil, &jsonrpc2.Error{Code: jsonrpc2.CodeInternalError, Message: "internal error: stored result is not an object"}
	}
	return out, nil
}

func (m *Manager) cancelOp(ctx context.Context, session string, req *jsonrpc2.Request) (any, error) {
	rec, err := m.op(ctx, session, req)
	if err != nil {
		return nil, err
	}
	rec, err = m.forceCancel(rec.Task.TaskID, "The task was cancelled by request.", jsonrpc2.SourceTaskCancel)
	var term errTerminal
	if errors.As(err, &term) {
		return nil, jsonrpc2.NewInvalidParamsError("Cannot cancel task: already in terminal status '" + string(term.status) + "'")
	}
	if err != nil {
		return nil, jsonrpc2.NewInvalidParamsError("Failed to retrieve task: " + err.Error())
	}
	m.log.Info("task cancelled", slog.String("task", rec.Task.TaskID), slog.String("request", req.ID.String()))
	return rec.Task, nil
}

func (m *Manager) list(ctx context.Context, session string, req *jsonrpc2.Request) (any, error) {
	owner := m.owner(ctx, session)
	if !m.listable() || owner == "" {
		return nil, jsonrpc2.NewMethodNotFoundError(MethodList)
	}
	if err := m.allow(owner); err != nil {
		return nil, err
	}
	var p struct {
		Cursor string `json:"cursor"`
	}
	if len(req.Params) > 0 {
		if err := json.Unmarshal(req.Params, &p); err != nil {
			return nil, jsonrpc2.NewInvalidParamsError("tasks/list: " + err.Error())
		}
	}
	now := m.now()
	m.sweep(ctx, now)
	recs, next, err := m.store.List(ctx, owner, p.Cursor, m.cfg.PageSize)
	if err != nil {
		return nil, jsonrpc2.NewInvalidParamsError("tasks/list: invalid cursor")
	}
	out := listResult{Tasks: make([]Task, 0, len(recs)), NextCursor: next}
	for _, r := range recs {
		if !r.Expires.IsZero() && !now.Before(r.Expires) {
			m.expire(ctx, r.Task.TaskID)
			continue
		}
		out.Tasks = append(out.Tasks, r.Task)
	}
	return out, nil
}
