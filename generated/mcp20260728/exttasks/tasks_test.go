package exttasks_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mcpgen/mcpgen/generated/mcp20251125"
	mcp "github.com/mcpgen/mcpgen/generated/mcp20260728"
	"github.com/mcpgen/mcpgen/generated/mcp20260728/exttasks"
	"github.com/mcpgen/mcpgen/runtime/jsonrpc2"
	"github.com/mcpgen/mcpgen/runtime/session"
	"github.com/mcpgen/mcpgen/runtime/streamhttp"
	"github.com/mcpgen/mcpgen/runtime/tasks"
)

// sleeper is a dual-era tool server written once against mcp20260728:
// "sleep" waits until released or cancelled, recording the cause.
type sleeper struct {
	release chan struct{}
	causes  chan error
}

func (s *sleeper) CallTool(ctx context.Context, p *mcp.CallToolRequestParams) (*mcp.CallToolResult, error) {
	select {
	case <-s.release:
		return &mcp.CallToolResult{Content: []mcp.ContentBlock{&mcp.TextContent{Text: "slept"}}}, nil
	case <-ctx.Done():
		s.causes <- context.Cause(ctx)
		return nil, context.Cause(ctx)
	}
}

func newServer(t *testing.T) (*session.Server, *sleeper) {
	s := &sleeper{release: make(chan struct{}, 16), causes: make(chan error, 16)}
	tm := tasks.NewManager(tasks.Config{Methods: exttasks.TaskMethods,
		ToolSupport: func(string) tasks.Support { return tasks.Optional },
		Logger:      slog.New(slog.NewTextHandler(io.Discard, nil))})
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		tm.Close(ctx)
	})
	srv := mcp.NewServer(session.Implementation{Name: "tasks-test", Version: "1"}, s,
		tasks.WithTasks(tm), session.WithLegacy(mcp20251125.Revision()),
		session.WithLogger(slog.New(slog.NewTextHandler(io.Discard, nil))))
	return srv, s
}

var info = session.Implementation{Name: "tasks-client", Version: "1"}

// checkCancel waits for the work's ctx to end by tasks/cancel, with a cause
// naming the task.
func checkCancel(t *testing.T, s *sleeper, id string) {
	t.Helper()
	select {
	case cause := <-s.causes:
		var ce *jsonrpc2.CancelError
		if !errors.As(cause, &ce) || ce.Source != jsonrpc2.SourceTaskCancel || !strings.Contains(ce.Reason, id) {
			t.Fatalf("work ended with %v, want tasks/cancel naming %s", cause, id)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the work's ctx never ended")
	}
}

// TestTasksBothEras: one server (mcp20260728.NewServer, one CallTool,
// tasks.WithTasks) serves sleep as a 2025-11-25 core task to a legacy
// client (mcp20251125 ClientSession.StartCallTool) and as an extension task
// to a modern one (exttasks.StartCallTool); in each, Result returns the
// tool's result and ending the ctx given to Start sends tasks/cancel, which
// ends the work with a cause naming the task.
func TestTasksBothEras(t *testing.T) {
	ctx := context.Background()
	for _, modern := range []bool{false, true} {
		srv, s := newServer(t)
		a, b := jsonrpc2.NewPipe()
		go srv.Serve(ctx, a)
		var start func(context.Context) (string, func() (string, error), error)
		if modern {
			cs, err := mcp.Connect(ctx, b, info, nil)
			if err != nil {
				t.Fatal(err)
			}
			defer cs.Close(ctx)
			if !strings.Contains(string(cs.ClientSession.ServerCapabilities()), `"extensions":{"io.modelcontextprotocol/tasks":{}}`) {
				t.Fatalf("modern capabilities %s", cs.ClientSession.ServerCapabilities())
			}
			start = func(ctx context.Context) (string, func() (string, error), error) {
				h, err := exttasks.StartCallTool(ctx, cs.ServerCaller, &mcp.CallToolRequestParams{Name: "sleep"}, tasks.WithTimer(func(time.Duration) <-chan time.Time { return time.After(time.Millisecond) }))
				if err != nil {
					return "", nil, err
				}
				return h.ID(), func() (string, error) {
					r, err := h.Result(ctx)
					if err != nil {
						return "", err
					}
					return r.Content[0].(*mcp.TextContent).Text, nil
				}, nil
			}
		} else {
			cs, err := mcp20251125.Connect(ctx, b, info, nil)
			if err != nil {
				t.Fatal(err)
			}
			defer cs.Close(ctx)
			if !strings.Contains(string(cs.ClientSession.ServerCapabilities()), `"tasks":{`) {
				t.Fatalf("legacy capabilities %s", cs.ClientSession.ServerCapabilities())
			}
			start = func(ctx context.Context) (string, func() (string, error), error) {
				h, err := cs.StartCallTool(ctx, &mcp20251125.CallToolRequestParams{Name: "sleep"}, tasks.WithTimer(func(time.Duration) <-chan time.Time { return time.After(time.Millisecond) }))
				if err != nil {
					return "", nil, err
				}
				return h.ID(), func() (string, error) {
					r, err := h.Result(ctx)
					if err != nil {
						return "", err
					}
					return r.Content[0].(*mcp20251125.TextContent).Text, nil
				}, nil
			}
		}
		id, result, err := start(ctx)
		if err != nil || id == "" {
			t.Fatalf("modern=%v: start: %q %v", modern, id, err)
		}
		s.release <- struct{}{}
		if got, err := result(); err != nil || got != "slept" {
			t.Fatalf("modern=%v: result %q %v", modern, got, err)
		}
		cctx, cancel := context.WithCancel(ctx)
		id, _, err = start(cctx)
		if err != nil {
			t.Fatal(err)
		}
		cancel()
		checkCancel(t, s, id)
	}
}

// TestMUST_ExtMcpNameHeader: over Streamable HTTP, tasks/get, tasks/update
// and tasks/cancel carry Mcp-Name: <taskId> (the client transport sets it,
// the server requires it to match params.taskId), so a load balancer can
// route them to the instance holding the task.
func TestMUST_ExtMcpNameHeader(t *testing.T) {
	srv, s := newServer(t)
	var names []string
	h := streamhttp.NewHandler(srv, streamhttp.Options{Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if m := r.Header.Get("Mcp-Method"); strings.HasPrefix(m, "tasks/") {
			names = append(names, m+" "+r.Header.Get("Mcp-Name"))
		}
		h.ServeHTTP(w, r)
	}))
	defer ts.Close()
	defer h.Close(context.Background())
	ctx := context.Background()
	tr, err := streamhttp.Dial(ctx, ts.URL, streamhttp.ClientOptions{Era: streamhttp.EraModern, Revisions: []session.Revision{mcp.Revision(), mcp20251125.Revision()}})
	if err != nil {
		t.Fatal(err)
	}
	cs, err := mcp.Connect(ctx, tr, info, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close(ctx)
	hd, err := exttasks.StartCallTool(ctx, cs.ServerCaller, &mcp.CallToolRequestParams{Name: "sleep"})
	if err != nil || hd.ID() == "" {
		t.Fatalf("start: %v", err)
	}
	if _, err := hd.Status(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := hd.Cancel(ctx); err != nil {
		t.Fatal(err)
	}
	checkCancel(t, s, hd.ID())
	want := []string{"tasks/get " + hd.ID(), "tasks/cancel " + hd.ID(), "tasks/get " + hd.ID()}
	if strings.Join(names, ",") != strings.Join(want, ",") {
		t.Fatalf("task requests carried %q, want %q", names, want)
	}
	// Without the header (or with another id) the server refuses.
	body := `{"jsonrpc":"2.0","id":1,"method":"tasks/get","params":{"taskId":"` + hd.ID() + `","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"extensions":{"io.modelcontextprotocol/tasks":{}}}}}}`
	for _, name := range []string{"", "other"} {
		req, _ := http.NewRequest(http.MethodPost, ts.URL, strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("MCP-Protocol-Version", "2026-07-28")
		req.Header.Set("Mcp-Method", "tasks/get")
		if name != "" {
			req.Header.Set("Mcp-Name", name)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusBadRequest || !strings.Contains(string(b), "Mcp-Name") {
			t.Fatalf("Mcp-Name %q: %d %s", name, resp.StatusCode, b)
		}
	}
}

// mrtrTool asks for a name through MRTR, then detaches into a task.
type mrtrTool struct{ release chan struct{} }

func (s *mrtrTool) CallTool(ctx context.Context, p *mcp.CallToolRequestParams) (*mcp.CallToolResult, error) {
	var answer struct {
		Content struct {
			Name string `json:"name"`
		} `json:"content"`
	}
	if err := session.Input(ctx, "elicitation/create", map[string]any{"mode": "form", "message": "Your name?",
		"requestedSchema": map[string]any{"type": "object", "properties": map[string]any{"name": map[string]any{"type": "string"}}}}, &answer); err != nil {
		return nil, err
	}
	if err := tasks.Detach(ctx); err != nil {
		return nil, err
	}
	<-s.release
	return &mcp.CallToolResult{Content: []mcp.ContentBlock{&mcp.TextContent{Text: "Hello, " + answer.Content.Name + "!"}}}, nil
}

// TestMUST_ExtMRTRResolvedSynchronouslyBeforeCreateTaskResult (Task
// Creation: servers SHOULD resolve all MRTR exchanges synchronously before
// responding with a CreateTaskResult): a SyncFirst tool answers round 1
// with an InputRequiredResult (no taskId), round 2 (with the input) with a
// CreateTaskResult (no requestState), and the task's result carries the
// input gathered in round 1.
func TestMUST_ExtMRTRResolvedSynchronouslyBeforeCreateTaskResult(t *testing.T) {
	tool := &mrtrTool{release: make(chan struct{}, 1)}
	tm := tasks.NewManager(tasks.Config{Methods: exttasks.TaskMethods,
		ToolSupport: func(string) tasks.Support { return tasks.Required },
		SyncFirst:   func(name string) bool { return name == "hello" },
		Logger:      slog.New(slog.NewTextHandler(io.Discard, nil))})
	defer tm.Close(context.Background())
	srv := mcp.NewServer(session.Implementation{Name: "mrtr", Version: "1"}, tool, tasks.WithTasks(tm),
		session.WithLogger(slog.New(slog.NewTextHandler(io.Discard, nil))))
	a, b := jsonrpc2.NewPipe()
	ctx := context.Background()
	go srv.Serve(ctx, a)
	defer b.Close()
	meta := `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"elicitation":{},"extensions":{"io.modelcontextprotocol/tasks":{}}}}`
	roundtrip := func(id int, method, params string) map[string]json.RawMessage {
		t.Helper()
		if err := b.Write(ctx, []byte(`{"jsonrpc":"2.0","id":`+strconv.Itoa(id)+`,"method":"`+method+`","params":`+params+`}`)); err != nil {
			t.Fatal(err)
		}
		line, err := b.Read(ctx)
		if err != nil {
			t.Fatal(err)
		}
		var msg struct {
			Result map[string]json.RawMessage `json:"result"`
			Error  json.RawMessage            `json:"error"`
		}
		if json.Unmarshal(line, &msg); msg.Error != nil {
			t.Fatalf("%s: %s", method, line)
		}
		return msg.Result
	}
	r1 := roundtrip(1, "tools/call", `{"name":"hello","arguments":{},`+meta+`}`)
	if string(r1["resultType"]) != `"input_required"` || r1["taskId"] != nil || r1["inputRequests"] == nil {
		t.Fatalf("round 1: %v", r1)
	}
	var reqs map[string]json.RawMessage
	json.Unmarshal(r1["inputRequests"], &reqs)
	var key string
	for k := range reqs {
		key = k
	}
	state := ""
	if r1["requestState"] != nil {
		state = `"requestState":` + string(r1["requestState"]) + `,`
	}
	r2 := roundtrip(2, "tools/call", `{"name":"hello","arguments":{},`+state+`"inputResponses":{"`+key+`":{"action":"accept","content":{"name":"Luca"}}},`+meta+`}`)
	if string(r2["resultType"]) != `"task"` || r2["taskId"] == nil || r2["requestState"] != nil {
		t.Fatalf("round 2: %v", r2)
	}
	tool.release <- struct{}{}
	for i := 3; ; i++ {
		got := roundtrip(i, "tasks/get", `{"taskId":`+string(r2["taskId"])+`,`+meta+`}`)
		if string(got["status"]) == `"completed"` {
			if !strings.Contains(string(got["result"]), "Hello, Luca!") {
				t.Fatalf("result %s", got["result"])
			}
			break
		}
		if i > 10000 {
			t.Fatalf("never completed: %v", got)
		}
		time.Sleep(time.Millisecond)
	}
}
