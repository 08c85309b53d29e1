package tasks_test

// The Tasks extension's status notifications (tasks.md, "Task Status
// Notifications"), through a real session.Server with tasks.WithTasks: the
// session answers subscriptions/listen, the Manager contributes the
// taskIds member (session.WithListenContributor).

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"testing"
	"time"

	mcp "github.com/mcpgen/mcpgen/generated/mcp20260728"
	"github.com/mcpgen/mcpgen/runtime/jsonrpc2"
	"github.com/mcpgen/mcpgen/runtime/session"
	"github.com/mcpgen/mcpgen/runtime/tasks"
)

const (
	listenOptIn = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"extensions":{"io.modelcontextprotocol/tasks":{}}}}`
	listenNoOpt = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}`
)

// gated is a tool that finishes when released; the tool "ask" then asks
// the requestor for input first (tasks.Ask).
type gated struct{ release chan struct{} }

func (g *gated) CallTool(ctx context.Context, p *mcp.CallToolRequestParams) (*mcp.CallToolResult, error) {
	select {
	case <-g.release:
	case <-ctx.Done():
		return nil, context.Cause(ctx)
	}
	if p.Name == "ask" {
		var answer struct {
			Action string `json:"action"`
		}
		if err := tasks.Ask(ctx, "elicitation/create", map[string]any{"message": "ok?", "requestedSchema": map[string]any{"type": "object"}}, &answer); err != nil {
			return nil, err
		}
		return &mcp.CallToolResult{Content: []mcp.ContentBlock{&mcp.TextContent{Text: answer.Action}}}, nil
	}
	return &mcp.CallToolResult{Content: []mcp.ContentBlock{&mcp.TextContent{Text: "done"}}}, nil
}

// listenPeer is the client side of a pipe to a tasks-serving Server.
type listenPeer struct {
	t  *testing.T
	tr jsonrpc2.Transport
}

func newListenPeer(t *testing.T) (*listenPeer, *gated) {
	g := &gated{release: make(chan struct{})}
	tm := tasks.NewManager(tasks.Config{Methods: []string{mcp.MethodCallTool},
		ToolSupport: func(string) tasks.Support { return tasks.Optional },
		Logger:      slog.New(slog.NewTextHandler(io.Discard, nil))})
	srv := mcp.NewServer(session.Implementation{Name: "listen", Version: "1"}, g, tasks.WithTasks(tm),
		session.WithLogger(slog.New(slog.NewTextHandler(io.Discard, nil))))
	a, b := jsonrpc2.NewPipe()
	done := make(chan error, 1)
	go func() { done <- srv.Serve(context.Background(), a) }()
	t.Cleanup(func() {
		b.Close()
		<-done
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		tm.Close(ctx)
	})
	return &listenPeer{t: t, tr: b}, g
}

func (p *listenPeer) send(format string, args ...any) {
	p.t.Helper()
	if err := p.tr.Write(context.Background(), []byte(fmt.Sprintf(format, args...))); err != nil {
		p.t.Fatal(err)
	}
}

// wireMsg is any message the server sends.
type wireMsg struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Params json.RawMessage `json:"params"`
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Code    int             `json:"code"`
		Message string          `json:"message"`
		Data    json.RawMessage `json:"data"`
	} `json:"error"`
}

func (p *listenPeer) recv() wireMsg {
	p.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	raw, err := p.tr.Read(ctx)
	if err != nil {
		p.t.Fatalf("reading: %v", err)
	}
	var m wireMsg
	if err := json.Unmarshal(raw, &m); err != nil {
		p.t.Fatalf("%v: %s", err, raw)
	}
	return m
}

// createTask starts an opted-in tools/call that becomes a task and
// returns its id.
func (p *listenPeer) createTask(tool string) string {
	p.t.Helper()
	p.send(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":%q,"arguments":{},%s}}`, tool, listenOptIn)
	m := p.recv()
	var task struct {
		ResultType string `json:"resultType"`
		TaskID     string `json:"taskId"`
	}
	if err := json.Unmarshal(m.Result, &task); err != nil || task.ResultType != "task" || task.TaskID == "" {
		p.t.Fatalf("not a CreateTaskResult: %+v %s", m, m.Result)
	}
	return task.TaskID
}

// TestMUST_ExtStatusNotificationsForListenedTaskIDs: a requestor that
// lists task ids in subscriptions/listen's notifications.taskIds gets an
// acknowledgement naming the ids the server agreed to (its live tasks; not
// an unknown id), then notifications/tasks on that stream, each a complete
// DetailedTask as tasks/get would answer it (the terminal one with its
// result inline), tagged with the subscription id.
func TestMUST_ExtStatusNotificationsForListenedTaskIDs(t *testing.T) {
	p, g := newListenPeer(t)
	id := p.createTask("gate")
	p.send(`{"jsonrpc":"2.0","id":"sub","method":"subscriptions/listen","params":{%s,"notifications":{"taskIds":[%q,"no-such-task"]}}}`, listenOptIn, id)
	ack := p.recv()
	var a struct {
		Meta          map[string]json.RawMessage `json:"_meta"`
		Notifications struct {
			TaskIDs []string `json:"taskIds"`
		} `json:"notifications"`
	}
	if ack.Method != "notifications/subscriptions/acknowledged" || json.Unmarshal(ack.Params, &a) != nil {
		t.Fatalf("want the acknowledgement first, got %+v", ack)
	}
	if len(a.Notifications.TaskIDs) != 1 || a.Notifications.TaskIDs[0] != id {
		t.Fatalf("acknowledged taskIds %v, want [%s] (the unknown id left out)", a.Notifications.TaskIDs, id)
	}
	close(g.release)
	var final map[string]json.RawMessage
	for {
		n := p.recv()
		if n.Method != tasks.MethodExtStatus {
			t.Fatalf("want notifications/tasks, got %+v", n)
		}
		var params map[string]json.RawMessage
		if err := json.Unmarshal(n.Params, &params); err != nil {
			t.Fatal(err)
		}
		if string(params["taskId"]) != `"`+id+`"` {
			t.Fatalf("notification for %s, want %s", params["taskId"], id)
		}
		if _, ok := params["resultType"]; ok {
			t.Errorf("a notification carries no resultType: %s", n.Params)
		}
		if sid := string(json.RawMessage(mustMember(t, params["_meta"], "io.modelcontextprotocol/subscriptionId"))); sid != `"sub"` {
			t.Errorf("subscription id %s, want \"sub\"", sid)
		}
		if string(params["status"]) == `"completed"` {
			final = params
			break
		}
	}
	for _, k := range []string{"createdAt", "lastUpdatedAt", "ttlMs"} {
		if _, ok := final[k]; !ok {
			t.Errorf("the DetailedTask lacks %s: %v", k, final)
		}
	}
	var res mcp.CallToolResult
	if err := json.Unmarshal(final["result"], &res); err != nil || len(res.Content) != 1 {
		t.Fatalf("completed notification's result %s (%v)", final["result"], err)
	}
	// A terminal task is not agreed to: it has nothing more to report.
	p.send(`{"jsonrpc":"2.0","id":"sub2","method":"subscriptions/listen","params":{%s,"notifications":{"taskIds":[%q]}}}`, listenOptIn, id)
	if ack := p.recv(); ack.Method != "notifications/subscriptions/acknowledged" || string(mustMember(t, ack.Params, "notifications")) != `{"taskIds":[]}` {
		t.Fatalf("listen for a terminal task: %+v %s", ack, ack.Params)
	}
	p.send(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"sub"}}`)
	p.send(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"sub2"}}`)
}

// TestMUST_ExtListenTaskIDsWithoutExtensionIsMissingCapability: asking
// for task notifications on subscriptions/listen without declaring the
// extension in the request's capabilities is -32021 naming it; the same
// request without taskIds is served.
func TestMUST_ExtListenTaskIDsWithoutExtensionIsMissingCapability(t *testing.T) {
	p, _ := newListenPeer(t)
	p.send(`{"jsonrpc":"2.0","id":"sub","method":"subscriptions/listen","params":{%s,"notifications":{"taskIds":["x"]}}}`, listenNoOpt)
	m := p.recv()
	if m.Error == nil || m.Error.Code != -32021 {
		t.Fatalf("want -32021, got %+v", m)
	}
	if got := string(m.Error.Data); got != `{"requiredCapabilities":{"extensions":{"io.modelcontextprotocol/tasks":{}}}}` {
		t.Errorf("error data %s", got)
	}
	p.send(`{"jsonrpc":"2.0","id":"sub2","method":"subscriptions/listen","params":{%s,"notifications":{}}}`, listenNoOpt)
	if ack := p.recv(); ack.Method != "notifications/subscriptions/acknowledged" {
		t.Fatalf("listen without taskIds: %+v", ack)
	}
	p.send(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"sub2"}}`)
}

func mustMember(t *testing.T, obj json.RawMessage, key string) json.RawMessage {
	t.Helper()
	var m map[string]json.RawMessage
	if err := json.Unmarshal(obj, &m); err != nil {
		t.Fatalf("%s: %v", obj, err)
	}
	return m[key]
}

// statusNote reads the next notifications/tasks, skipping responses.
func (p *listenPeer) statusNote() map[string]json.RawMessage {
	p.t.Helper()
	for {
		m := p.recv()
		if m.Method == "" {
			continue // a response to the test's own request
		}
		if m.Method != tasks.MethodExtStatus {
			p.t.Fatalf("want notifications/tasks, got %+v", m)
		}
		var params map[string]json.RawMessage
		if err := json.Unmarshal(m.Params, &params); err != nil {
			p.t.Fatal(err)
		}
		return params
	}
}

// TestMUST_ExtStatusNotificationsCarryInputRequests: a listened task that
// needs input is announced input_required with its inputRequests (as
// tasks/get would answer), and once tasks/update answers it, working and
// then completed with the result.
func TestMUST_ExtStatusNotificationsCarryInputRequests(t *testing.T) {
	p, g := newListenPeer(t)
	id := p.createTask("ask")
	p.send(`{"jsonrpc":"2.0","id":"sub","method":"subscriptions/listen","params":{%s,"notifications":{"taskIds":[%q]}}}`, listenOptIn, id)
	if ack := p.recv(); ack.Method != "notifications/subscriptions/acknowledged" {
		t.Fatalf("want the acknowledgement, got %+v", ack)
	}
	close(g.release)
	n := p.statusNote()
	if string(n["status"]) != `"input_required"` {
		t.Fatalf("status %s, want input_required: %v", n["status"], n)
	}
	var reqs map[string]struct {
		Method string `json:"method"`
	}
	if err := json.Unmarshal(n["inputRequests"], &reqs); err != nil || len(reqs) != 1 {
		t.Fatalf("inputRequests %s (%v)", n["inputRequests"], err)
	}
	var key string
	for k, r := range reqs {
		key = k
		if r.Method != "elicitation/create" {
			t.Errorf("input request method %q", r.Method)
		}
	}
	p.send(`{"jsonrpc":"2.0","id":2,"method":"tasks/update","params":{"taskId":%q,"inputResponses":{%q:{"action":"accept"}},%s}}`, id, key, listenOptIn)
	var seen []string
	for {
		n := p.statusNote()
		seen = append(seen, string(n["status"]))
		if string(n["status"]) == `"completed"` {
			if !strings.Contains(string(n["result"]), `"accept"`) {
				t.Errorf("completed notification's result %s", n["result"])
			}
			break
		}
		if _, ok := n["inputRequests"]; ok {
			t.Errorf("inputRequests after the answer: %v", n)
		}
	}
	if len(seen) != 2 || seen[0] != `"working"` {
		t.Errorf("statuses after the answer %v, want working then completed", seen)
	}
	p.send(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"sub"}}`)
}
