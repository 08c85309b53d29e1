package tasks

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpgen/mcpgen/runtime/jsonrpc2"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func quiet() *slog.Logger {
	return slog.New(slog.NewTextHandler(io.Discard, &slog.HandlerOptions{Level: slog.LevelError}))
}

// taskPolicy is 2025-11-25's policy, written out but for its cancellation
// decoder, which is the generated one (export_test.go).
func taskPolicy(side jsonrpc2.Side) jsonrpc2.Policy {
	p := jsonrpc2.DefaultPolicy()
	p.Side = side
	p.Cancelled = cancelledDecoder
	p.TaskCancelMethod = "tasks/cancel"
	p.TaskParamsMember = "task"
	return p
}

// fakeClock is the injectable clock: ttl and expiry tests move it instead of
// sleeping.
type fakeClock struct {
	mu sync.Mutex
	t  time.Time
}

func newClock() *fakeClock { return &fakeClock{t: time.Date(2025, 11, 25, 10, 30, 0, 0, time.UTC)} }

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *fakeClock) Advance(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

// msg is one message the raw peer read.
type msg struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Params json.RawMessage `json:"params"`
	Result json.RawMessage `json:"result"`
	Error  *jsonrpc2.Error `json:"error"`
}

// rawPeer is the requestor as bytes on the wire: it writes exactly the JSON
// a test gives and reads every message the Conn under test writes.
type rawPeer struct {
	t      testing.TB
	tr     jsonrpc2.Transport
	in     chan msg
	mu     sync.Mutex
	stash  []msg
	nextID int
}

func newRawPeer(t testing.TB, tr jsonrpc2.Transport) *rawPeer {
	p := &rawPeer{t: t, tr: tr, in: make(chan msg, 1024), nextID: 100}
	go func() {
		defer close(p.in)
		for {
			b, err := tr.Read(context.Background())
			if err != nil {
				return
			}
			var m msg
			if err := json.Unmarshal(b, &m); err != nil {
				t.Errorf("peer read invalid JSON %s: %v", b, err)
				continue
			}
			p.in <- m
		}
	}()
	return p
}

func (p *rawPeer) write(s string) {
	p.t.Helper()
	if err := p.tr.Write(context.Background(), []byte(s)); err != nil {
		p.t.Fatalf("peer write: %v", err)
	}
}

// send writes a request and returns its id.
func (p *rawPeer) send(method, params string) int {
	p.t.Helper()
	p.mu.Lock()
	p.nextID++
	id := p.nextID
	p.mu.Unlock()
	p.write(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":%q,"params":%s}`, id, method, params))
	return id
}

// next returns the first message (stashed or new) matching keep.
func (p *rawPeer) next(what string, keep func(msg) bool) msg {
	p.t.Helper()
	p.mu.Lock()
	for i, m := range p.stash {
		if keep(m) {
			p.stash = append(p.stash[:i], p.stash[i+1:]...)
			p.mu.Unlock()
			return m
		}
	}
	p.mu.Unlock()
	deadline := time.NewTimer(10 * time.Second)
	defer deadline.Stop()
	for {
		select {
		case m, ok := <-p.in:
			if !ok {
				p.t.Fatalf("connection closed while waiting for %s", what)
			}
			if keep(m) {
				return m
			}
			p.mu.Lock()
			p.stash = append(p.stash, m)
			p.mu.Unlock()
		case <-deadline.C:
			p.t.Fatalf("no %s within 10s", what)
		}
	}
}

func (p *rawPeer) response(id int) msg {
	p.t.Helper()
	want := fmt.Sprint(id)
	return p.next("response "+want, func(m msg) bool { return m.Method == "" && string(m.ID) == want })
}

func (p *rawPeer) request(method string) msg {
	p.t.Helper()
	return p.next("request "+method, func(m msg) bool { return m.Method == method && m.ID != nil })
}

func (p *rawPeer) notification(method string) msg {
	p.t.Helper()
	return p.next("notification "+method, func(m msg) bool { return m.Method == method && m.ID == nil })
}

// roundtrip sends a request and waits for its response.
func (p *rawPeer) roundtrip(method, params string) msg {
	p.t.Helper()
	return p.response(p.send(method, params))
}

// pending reports whether a response to id has arrived, without waiting.
func (p *rawPeer) pending(id int) bool {
	want := fmt.Sprint(id)
	for {
		select {
		case m, ok := <-p.in:
			if !ok {
				return true
			}
			p.mu.Lock()
			p.stash = append(p.stash, m)
			p.mu.Unlock()
			continue
		default:
		}
		break
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, m := range p.stash {
		if m.Method == "" && string(m.ID) == want {
			return false
		}
	}
	return true
}

// env is a server Conn with a Manager, driven by a raw peer.
type env struct {
	t     *testing.T
	srv   *jsonrpc2.Conn
	mgr   *Manager
	peer  *rawPeer
	clock *fakeClock
}

func newEnv(t *testing.T, cfg Config, handlers map[string]jsonrpc2.Handler) *env {
	t.Helper()
	a, b := jsonrpc2.NewPipe()
	e := &env{t: t, clock: newClock()}
	e.srv = jsonrpc2.NewConn(a, jsonrpc2.WithPolicy(taskPolicy(jsonrpc2.SideServer)), jsonrpc2.WithLogger(quiet()))
	for m, h := range handlers {
		e.srv.Handle(m, h)
	}
	if cfg.Now == nil {
		cfg.Now = e.clock.Now
	}
	if cfg.Logger == nil {
		cfg.Logger = quiet()
	}
	if cfg.Methods == nil {
		cfg.Methods = []string{"tools/call"}
	}
	e.mgr = NewManager(cfg)
	if err := e.mgr.Serve(e.srv); err != nil {
		t.Fatal(err)
	}
	e.srv.Start()
	e.peer = newRawPeer(t, b)
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if err := e.srv.Close(ctx); err != nil {
			t.Errorf("server close: %v", err)
		}
		if err := e.mgr.Close(ctx); err != nil {
			t.Errorf("manager close: %v", err)
		}
		b.Close()
	})
	return e
}

// gate is a tool whose work ends when the test says so, or when its ctx
// ends (unless it ignores ctx).
type gate struct {
	started chan string // task id (or "" when not a task) per start
	release chan gateOutcome
	ctxErr  chan error // cause of the work's ctx when it ended through it
	ignore  bool       // ignore ctx: only release ends the work
}

type gateOutcome struct {
	result any
	err    error
}

func newGate() *gate {
	return &gate{started: make(chan string, 64), release: make(chan gateOutcome, 64), ctxErr: make(chan error, 64)}
}

func (g *gate) handler(ctx context.Context, req *jsonrpc2.Request) (any, error) {
	id, _ := ID(ctx)
	g.started <- id
	if g.ignore {
		o := <-g.release
		return o.result, o.err
	}
	select {
	case o := <-g.release:
		return o.result, o.err
	case <-ctx.Done():
		g.ctxErr <- context.Cause(ctx)
		return nil, context.Cause(ctx)
	}
}

func (g *gate) waitStart(t *testing.T) string {
	t.Helper()
	select {
	case id := <-g.started:
		return id
	case <-time.After(10 * time.Second):
		t.Fatal("work never started")
	}
	return ""
}

func textResult(s string) json.RawMessage {
	return json.RawMessage(`{"content":[{"type":"text","text":` + fmt.Sprintf("%q", s) + `}]}`)
}

// decodeTask reads a Task (tasks/get, tasks/cancel) or CreateTaskResult.
func decodeTask(t *testing.T, m msg) Task {
	t.Helper()
	if m.Error != nil {
		t.Fatalf("error %d %s", m.Error.Code, m.Error.Message)
	}
	var wrapped struct {
		Task *Task `json:"task"`
	}
	if json.Unmarshal(m.Result, &wrapped) == nil && wrapped.Task != nil {
		return *wrapped.Task
	}
	var task Task
	if err := json.Unmarshal(m.Result, &task); err != nil {
		t.Fatalf("not a task: %s", m.Result)
	}
	return task
}

// create sends a task-augmented tools/call and returns the created task.
func (e *env) create(tool, task string) Task {
	e.t.Helper()
	m := e.peer.roundtrip("tools/call", `{"name":"`+tool+`","arguments":{},"task":`+task+`}`)
	return decodeTask(e.t, m)
}

func idParams(id string) string { return `{"taskId":"` + id + `"}` }

func wantCode(t *testing.T, m msg, code int, contains string) {
	t.Helper()
	if m.Error == nil {
		t.Fatalf("want error %d, got result %s", code, m.Result)
	}
	if m.Error.Code != code || !strings.Contains(m.Error.Message, contains) {
		t.Fatalf("want error %d containing %q, got %d %q", code, contains, m.Error.Code, m.Error.Message)
	}
}

// activeAll counts running tasks of every requestor.
func (m *Manager) activeAll() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return len(m.live)
}
