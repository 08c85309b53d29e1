package tasks

// One test per rule of the Tasks extension (SEP-2663,
// modelcontextprotocol/ext-tasks specification/draft/tasks.md), named after
// it: TestMUST_Ext… for its MUSTs (and the SHOULDs this Manager keeps).
// The requests are modern ones: _meta carries the 2026-07-28 protocol
// version and, where the test says so, the per-request opt-in.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpgen/mcpgen/runtime/jsonrpc2"
	"github.com/mcpgen/mcpgen/runtime/session"
)

const (
	metaOptIn = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"extensions":{"io.modelcontextprotocol/tasks":{}}}}`
	metaNoOpt = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}`
)

// extCall is a modern tools/call of tool, opted in or not.
func extCall(tool string, optIn bool) string {
	meta := metaNoOpt
	if optIn {
		meta = metaOptIn
	}
	return `{"name":"` + tool + `","arguments":{},` + meta + `}`
}

// extID is a modern task request's params for id.
func extID(id string, optIn bool) string {
	meta := metaNoOpt
	if optIn {
		meta = metaOptIn
	}
	return `{"taskId":"` + id + `",` + meta + `}`
}

// extCreate sends an opted-in tools/call and returns the flat CreateTaskResult.
func (e *env) extCreate(tool string) extTask {
	e.t.Helper()
	m := e.peer.roundtrip("tools/call", extCall(tool, true))
	return decodeExt(e.t, m)
}

func decodeExt(t *testing.T, m msg) extTask {
	t.Helper()
	if m.Error != nil {
		t.Fatalf("error %d %s", m.Error.Code, m.Error.Message)
	}
	var task extTask
	if err := json.Unmarshal(m.Result, &task); err != nil {
		t.Fatalf("not a task: %s", m.Result)
	}
	return task
}

func (e *env) extGet(id string) extTask {
	e.t.Helper()
	return decodeExt(e.t, e.peer.roundtrip("tasks/get", extID(id, true)))
}

// extAwait polls tasks/get until the task's status is want.
func (e *env) extAwait(id string, want Status) extTask {
	e.t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		task := e.extGet(id)
		if task.Status == want {
			return task
		}
		if time.Now().After(deadline) {
			e.t.Fatalf("task %s is %s, want %s", id, task.Status, want)
		}
		time.Sleep(time.Millisecond) // polling is what a requestor does
	}
}

func wantAck(t *testing.T, m msg) {
	t.Helper()
	if m.Error != nil {
		t.Fatalf("want the empty acknowledgement, got error %d %s", m.Error.Code, m.Error.Message)
	}
	if string(m.Result) != `{"resultType":"complete"}` {
		t.Fatalf("want the empty acknowledgement, got %s", m.Result)
	}
}

// wantMissingExtension checks -32021 and its requiredCapabilities data.
func wantMissingExtension(t *testing.T, m msg) {
	t.Helper()
	wantCode(t, m, session.CodeMissingRequiredClientCapability, "Missing required client capability")
	var data struct {
		Required struct {
			Extensions map[string]json.RawMessage `json:"extensions"`
		} `json:"requiredCapabilities"`
	}
	if err := json.Unmarshal(m.Error.Data, &data); err != nil || data.Required.Extensions[ExtensionID] == nil {
		t.Fatalf("-32021 data %s does not name the extension", m.Error.Data)
	}
}

// Supported Methods / extension methods: tasks/get, tasks/update and
// tasks/cancel exist; each answers with resultType "complete".
func TestMUST_ExtMethodsGetUpdateCancel(t *testing.T) {
	e, g := gateEnv(t, Config{})
	task := e.extCreate("t")
	g.waitStart(t)
	if got := e.extGet(task.TaskID); got.ResultType != "complete" || got.Status != Working {
		t.Fatalf("tasks/get: %+v", got)
	}
	wantAck(t, e.peer.roundtrip("tasks/update", `{"taskId":"`+task.TaskID+`","inputResponses":{},`+metaOptIn+`}`))
	wantAck(t, e.peer.roundtrip("tasks/cancel", extID(task.TaskID, true)))
	<-g.ctxErr
}

// Reservations and removals: tasks/result and tasks/list are not part of the
// extension: a modern client gets -32601 (a 2025-11-25 client still has them).
func TestMUST_ExtResultAndListAreMethodNotFound(t *testing.T) {
	e, g := gateEnv(t, Config{})
	task := e.extCreate("t")
	g.waitStart(t)
	wantCode(t, e.peer.roundtrip("tasks/result", extID(task.TaskID, true)), jsonrpc2.CodeMethodNotFound, "")
	wantCode(t, e.peer.roundtrip("tasks/list", `{`+metaOptIn+`}`), jsonrpc2.CodeMethodNotFound, "")
	// tasks/update is the extension's only: a 2025-11-25 requestor has none.
	wantCode(t, e.peer.roundtrip("tasks/update", idParams(task.TaskID)), jsonrpc2.CodeMethodNotFound, "")
	g.release <- gateOutcome{result: textResult("x")}
}

// Error Handling: servers MUST return -32021 for non-declaring clients
// issuing tasks/get, tasks/update and tasks/cancel.
func TestMUST_ExtTaskMethodsWithoutOptInAreMissingCapability(t *testing.T) {
	e, g := gateEnv(t, Config{})
	task := e.extCreate("t")
	g.waitStart(t)
	for _, method := range []string{"tasks/get", "tasks/update", "tasks/cancel"} {
		wantMissingExtension(t, e.peer.roundtrip(method, extID(task.TaskID, false)))
	}
	if got := e.extGet(task.TaskID); got.Status != Working {
		t.Fatalf("an undeclared tasks/cancel touched the task: %s", got.Status)
	}
	g.release <- gateOutcome{result: textResult("x")}
}

// Capability Negotiation: a server unable to serve a request without a
// CreateTaskResult MUST answer a non-declaring client -32021 naming the
// extension (a tool whose taskSupport is required).
func TestMUST_ExtRequiredToolWithoutOptInIsMissingCapability(t *testing.T) {
	support := map[string]Support{"req": Required}
	e, g := gateEnv(t, Config{ToolSupport: func(n string) Support { return support[n] }})
	wantMissingExtension(t, e.peer.roundtrip("tools/call", extCall("req", false)))
	task := e.extCreate("req") // opted in: a task
	if g.waitStart(t) != task.TaskID {
		t.Fatal("the required tool did not run as the task")
	}
	g.release <- gateOutcome{result: textResult("x")}
}

// Capability Negotiation: a server MUST NOT return CreateTaskResult to a
// client that did not include the extension on its request, regardless of
// prior declarations: the opt-in is per request.
func TestMUST_ExtNoCreateTaskResultWithoutPerRequestOptIn(t *testing.T) {
	support := map[string]Support{"opt": Optional, "forb": Forbidden}
	e, g := gateEnv(t, Config{ToolSupport: func(n string) Support { return support[n] }})
	e.extCreate("opt") // an earlier request opted in
	g.waitStart(t)
	g.release <- gateOutcome{result: textResult("task")}
	for _, tool := range []string{"opt", "forb"} {
		for _, optIn := range []bool{false, true} {
			if tool == "opt" && optIn {
				continue
			}
			id := e.peer.send("tools/call", extCall(tool, optIn))
			if tid := g.waitStart(t); tid != "" {
				t.Fatalf("%s (opt-in %v) ran as task %s", tool, optIn, tid)
			}
			g.release <- gateOutcome{result: textResult("plain")}
			m := e.peer.response(id)
			if m.Error != nil || strings.Contains(string(m.Result), `"task"`) || !strings.Contains(string(m.Result), "plain") {
				t.Fatalf("%s (opt-in %v) answered %s", tool, optIn, m.Result)
			}
		}
	}
}

// Polymorphic Results / Task Creation: a CreateTaskResult MUST carry
// resultType "task" and the task's members flat (taskId, status working,
// timestamps, ttlMs, pollIntervalMs); the core names (task, ttl,
// pollInterval) are not used.
func TestMUST_ExtCreateTaskResultHasResultTypeTask(t *testing.T) {
	e, g := gateEnv(t, Config{DefaultTTL: time.Minute, PollInterval: 250 * time.Millisecond})
	m := e.peer.roundtrip("tools/call", extCall("t", true))
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(m.Result, &raw); err != nil {
		t.Fatal(err)
	}
	for k, want := range map[string]string{"resultType": `"task"`, "status": `"working"`, "ttlMs": `60000`, "pollIntervalMs": `250`} {
		if string(raw[k]) != want {
			t.Errorf("%s = %s, want %s (result %s)", k, raw[k], want, m.Result)
		}
	}
	for _, k := range []string{"taskId", "createdAt", "lastUpdatedAt"} {
		if raw[k] == nil {
			t.Errorf("no %s in %s", k, m.Result)
		}
	}
	for _, k := range []string{"task", "ttl", "pollInterval"} {
		if raw[k] != nil {
			t.Errorf("core member %s in %s", k, m.Result)
		}
	}
	g.waitStart(t)
	g.release <- gateOutcome{result: textResult("x")}
}

// ttlMs and pollIntervalMs: tasks/get reports the task's actual ttlMs
// (null for unlimited) and the pollIntervalMs to honour.
func TestMUST_ExtTTLMsAndPollIntervalMs(t *testing.T) {
	e, g := gateEnv(t, Config{})
	m := e.peer.roundtrip("tasks/get", extID(e.extCreate("t").TaskID, true))
	g.waitStart(t)
	var raw map[string]json.RawMessage
	json.Unmarshal(m.Result, &raw)
	if string(raw["ttlMs"]) != "null" || string(raw["pollIntervalMs"]) != "1000" {
		t.Fatalf("ttlMs %s pollIntervalMs %s, want null and 1000", raw["ttlMs"], raw["pollIntervalMs"])
	}
	g.release <- gateOutcome{result: textResult("x")}
}

// blockingStore holds Create until the test releases it, or fails it.
type blockingStore struct {
	*MemoryStore
	entered chan struct{}
	release chan error
}

func (s *blockingStore) Create(ctx context.Context, r Record) error {
	s.entered <- struct{}{}
	if err := <-s.release; err != nil {
		return err
	}
	return s.MemoryStore.Create(ctx, r)
}

// Task Creation: a server MUST NOT return CreateTaskResult until the task is
// durably created (a tasks/get would resolve): the answer waits for
// Store.Create, and a Create that fails answers an error, never a task.
func TestMUST_ExtCreateTaskResultOnlyOnceDurablyCreated(t *testing.T) {
	st := &blockingStore{MemoryStore: NewMemoryStore(), entered: make(chan struct{}, 1), release: make(chan error, 1)}
	e, g := gateEnv(t, Config{Store: st})
	id := e.peer.send("tools/call", extCall("t", true))
	<-st.entered
	if !e.peer.pending(id) {
		t.Fatal("CreateTaskResult answered before Store.Create returned")
	}
	st.release <- nil
	task := decodeExt(t, e.peer.response(id))
	if got := e.extGet(task.TaskID); got.TaskID != task.TaskID {
		t.Fatalf("tasks/get right after creation: %+v", got)
	}
	g.waitStart(t)
	g.release <- gateOutcome{result: textResult("x")}

	id = e.peer.send("tools/call", extCall("t", true))
	<-st.entered
	st.release <- errors.New("replica did not acknowledge")
	wantCode(t, e.peer.response(id), jsonrpc2.CodeInternalError, "creating task")
}

// tasks/get: completed carries result (a tool result with isError too:
// failed is for JSON-RPC errors only); failed carries the JSON-RPC error.
func TestMUST_ExtGetCarriesResultOrError(t *testing.T) {
	e, g := gateEnv(t, Config{})
	ok := e.extCreate("t")
	g.waitStart(t)
	g.release <- gateOutcome{result: textResult("fine")}
	if got := e.extAwait(ok.TaskID, Completed); !strings.Contains(string(got.Result), "fine") || got.Error != nil {
		t.Fatalf("completed task: %+v", got)
	}
	toolErr := e.extCreate("t")
	g.waitStart(t)
	g.release <- gateOutcome{result: json.RawMessage(`{"content":[{"type":"text","text":"bad input"}],"isError":true}`)}
	if got := e.extAwait(toolErr.TaskID, Completed); !strings.Contains(string(got.Result), `"isError":true`) {
		t.Fatalf("isError result: %+v", got)
	}
	failed := e.extCreate("t")
	g.waitStart(t)
	g.release <- gateOutcome{err: &jsonrpc2.Error{Code: -32603, Message: "API rate limit exceeded"}}
	if got := e.extAwait(failed.TaskID, Failed); got.Error == nil || got.Error.Message != "API rate limit exceeded" || got.Result != nil {
		t.Fatalf("failed task: %+v", got)
	}
}

// Error Handling: an invalid or nonexistent taskId MUST be -32602 for
// tasks/get (and is for tasks/update and tasks/cancel, a SHOULD).
func TestMUST_ExtUnknownTaskIDIsInvalidParams(t *testing.T) {
	e, _ := gateEnv(t, Config{})
	for _, method := range []string{"tasks/get", "tasks/update", "tasks/cancel"} {
		wantCode(t, e.peer.roundtrip(method, extID("nope", true)), jsonrpc2.CodeInvalidParams, "Task not found")
	}
	wantCode(t, e.peer.roundtrip("tasks/get", `{`+metaOptIn+`}`), jsonrpc2.CodeInvalidParams, "taskId")
}

// Task Cancellation: the server MUST acknowledge with an empty result; the
// work's ctx ends with a cause naming the task (a tasks/cancel, not a
// notifications/cancelled); a cancelled task reports cancelled.
func TestMUST_ExtCancelAcknowledgesEmptyAndEndsWork(t *testing.T) {
	e, g := gateEnv(t, Config{})
	task := e.extCreate("t")
	g.waitStart(t)
	wantAck(t, e.peer.roundtrip("tasks/cancel", extID(task.TaskID, true)))
	cause := <-g.ctxErr
	var ce *jsonrpc2.CancelError
	if !errors.As(cause, &ce) || ce.Source != jsonrpc2.SourceTaskCancel || !strings.Contains(ce.Reason, task.TaskID) {
		t.Fatalf("work ended with %v, want a task-cancel cause naming %s", cause, task.TaskID)
	}
	if got := e.extGet(task.TaskID); got.Status != Cancelled || got.Result != nil || got.Error != nil {
		t.Fatalf("after cancel: %+v", got)
	}
}

// Task Cancellation: cancelling a task already terminal is acknowledged
// (idempotent) and leaves its status and result as they were.
func TestMUST_ExtCancelOfTerminalTaskIsIdempotent(t *testing.T) {
	e, g := gateEnv(t, Config{})
	task := e.extCreate("t")
	g.waitStart(t)
	g.release <- gateOutcome{result: textResult("done")}
	e.extAwait(task.TaskID, Completed)
	for i := 0; i < 2; i++ {
		wantAck(t, e.peer.roundtrip("tasks/cancel", extID(task.TaskID, true)))
	}
	if got := e.extGet(task.TaskID); got.Status != Completed || !strings.Contains(string(got.Result), "done") {
		t.Fatalf("terminal task changed by tasks/cancel: %+v", got)
	}
	cancelled := e.extCreate("t")
	g.waitStart(t)
	wantAck(t, e.peer.roundtrip("tasks/cancel", extID(cancelled.TaskID, true)))
	<-g.ctxErr
	wantAck(t, e.peer.roundtrip("tasks/cancel", extID(cancelled.TaskID, true)))
}

// A cancelled task never reports another terminal status: work that ignores
// its ctx and returns a result later leaves the task cancelled.
func TestMUST_ExtCancelledStaysCancelledWhenWorkIgnoresCtx(t *testing.T) {
	e, g := gateEnv(t, Config{})
	g.ignore = true
	task := e.extCreate("t")
	g.waitStart(t)
	wantAck(t, e.peer.roundtrip("tasks/cancel", extID(task.TaskID, true)))
	g.release <- gateOutcome{result: textResult("late")}
	waitIdle(t, e.mgr)
	if got := e.extGet(task.TaskID); got.Status != Cancelled || got.Result != nil {
		t.Fatalf("cancelled task then reported %+v", got)
	}
}

// waitIdle waits for every task's work to have returned and recorded its
// outcome (or had it dropped).
func waitIdle(t *testing.T, m *Manager) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for m.activeAll() > 0 {
		if time.Now().After(deadline) {
			t.Fatal("task work still running after 10s")
		}
		time.Sleep(time.Millisecond)
	}
}

// Task Status / Task Update Requests: while the work waits for input the
// task is input_required and tasks/get MUST list every outstanding request
// in inputRequests; tasks/update answers them (keys not outstanding are
// ignored, a partial set leaves the task input_required), with the empty
// acknowledgement; the task then goes back to working and completes.
func TestMUST_ExtInputRequiredListsInputRequestsAnsweredByUpdate(t *testing.T) {
	var answers sync.Map
	h := func(ctx context.Context, req *jsonrpc2.Request) (any, error) {
		var wg sync.WaitGroup
		for _, q := range []string{"name", "colour"} {
			wg.Add(1)
			go func() {
				defer wg.Done()
				var res struct {
					Content map[string]string `json:"content"`
				}
				if err := Ask(ctx, "elicitation/create", map[string]any{"mode": "form", "message": q}, &res); err != nil {
					answers.Store(q, "error: "+err.Error())
					return
				}
				answers.Store(q, res.Content["input"])
			}()
		}
		wg.Wait()
		n, _ := answers.Load("name")
		c, _ := answers.Load("colour")
		return textResult(fmt.Sprintf("%v likes %v", n, c)), nil
	}
	e := newEnv(t, Config{}, map[string]jsonrpc2.Handler{"tools/call": h})
	task := e.extCreate("t")
	var got extTask
	deadline := time.Now().Add(10 * time.Second)
	for got = e.extGet(task.TaskID); len(got.InputRequests) < 2; got = e.extGet(task.TaskID) {
		if time.Now().After(deadline) {
			t.Fatalf("inputRequests never listed both questions: %+v", got)
		}
		time.Sleep(time.Millisecond)
	}
	if got.Status != InputRequired {
		t.Fatalf("status %s with outstanding input", got.Status)
	}
	keys := map[string]string{}
	for k, raw := range got.InputRequests {
		var r struct {
			Method string `json:"method"`
			Params struct {
				Message string `json:"message"`
			} `json:"params"`
		}
		json.Unmarshal(raw, &r)
		if r.Method != "elicitation/create" {
			t.Fatalf("input request %s: %s", k, raw)
		}
		keys[r.Params.Message] = k
	}
	update := func(key, input string) {
		wantAck(t, e.peer.roundtrip("tasks/update", `{"taskId":"`+task.TaskID+`","inputResponses":{"`+key+`":{"action":"accept","content":{"input":"`+input+`"}}},`+metaOptIn+`}`))
	}
	update("never-issued", "x")
	update(keys["name"], "Luca")
	deadline = time.Now().Add(10 * time.Second)
	for got = e.extGet(task.TaskID); len(got.InputRequests) != 1; got = e.extGet(task.TaskID) {
		if time.Now().After(deadline) {
			t.Fatalf("partial answer: %+v", got)
		}
		time.Sleep(time.Millisecond)
	}
	if got.Status != InputRequired || got.InputRequests[keys["colour"]] == nil {
		t.Fatalf("after a partial answer: %+v", got)
	}
	update(keys["name"], "again") // already answered: ignored
	update(keys["colour"], "green")
	done := e.extAwait(task.TaskID, Completed)
	if !strings.Contains(string(done.Result), "Luca likes green") || done.InputRequests != nil {
		t.Fatalf("completed: %+v", done)
	}
}

// Auth binding: with Config.Owner, a modern requestor sees only its own
// tasks (another's id is "not found"); tasks created by a 2025-11-25
// session are not reachable through the extension.
func TestMUST_ExtTasksBoundToAuthorizationContext(t *testing.T) {
	who := "alice"
	var mu sync.Mutex
	e, g := gateEnv(t, Config{Owner: func(context.Context) (string, bool) { mu.Lock(); defer mu.Unlock(); return who, true }})
	task := e.extCreate("t")
	g.waitStart(t)
	mu.Lock()
	who = "mallory"
	mu.Unlock()
	wantCode(t, e.peer.roundtrip("tasks/get", extID(task.TaskID, true)), jsonrpc2.CodeInvalidParams, "not found")
	wantCode(t, e.peer.roundtrip("tasks/cancel", extID(task.TaskID, true)), jsonrpc2.CodeInvalidParams, "not found")
	mu.Lock()
	who = "alice"
	mu.Unlock()
	core := e.create("t", `{}`)
	g.waitStart(t)
	wantCode(t, e.peer.roundtrip("tasks/get", extID(core.TaskID, true)), jsonrpc2.CodeInvalidParams, "not found")
	g.release <- gateOutcome{result: textResult("x")}
	g.release <- gateOutcome{result: textResult("y")}
}
