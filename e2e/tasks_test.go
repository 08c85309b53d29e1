package e2e

// examples/stdio-tasks-server's task-capable sleep over stdio (2025-11-25
// tasks.mdx), driven byte by byte.

import (
	"encoding/json"
	"strings"
	"testing"
)

// tasksServerBin is examples/stdio-tasks-server, built by TestMain.
var tasksServerBin string

// TestServerSleepAsTask: initialize declares the tasks capability and
// tools/list sleep's taskSupport; a task-augmented sleep answers a
// CreateTaskResult at once; notifications/cancelled naming the creating
// request does not stop it; tasks/cancel does (the handler's cause says
// "tasks/cancel"), the task stays cancelled, and a second tasks/cancel is
// -32602. A short sleep task's tasks/result is the tool result with the
// related-task metadata.
func TestServerSleepAsTask(t *testing.T) {
	t.Parallel()
	p := startProc(t, true, nil, tasksServerBin)
	p.send(t, initializeRequest("1", "2025-11-25"))
	var init struct {
		Capabilities struct {
			Tasks map[string]json.RawMessage `json:"tasks"`
		} `json:"capabilities"`
	}
	json.Unmarshal(p.awaitResponse(t, "1").Result, &init)
	if got := string(init.Capabilities.Tasks["requests"]); got != `{"tools":{"call":{}}}` || init.Capabilities.Tasks["cancel"] == nil {
		t.Fatalf("tasks capability %v", init.Capabilities.Tasks)
	}
	p.send(t, notification("notifications/initialized", ""), request("2", "tools/list", ""))
	if l := p.awaitResponse(t, "2").line; !strings.Contains(l, `"execution":{"taskSupport":"optional"}`) {
		t.Fatalf("tools/list %s", l)
	}

	p.send(t, request("3", "tools/call", `{"name":"sleep","arguments":{"ms":600031},"task":{"ttl":600000}}`))
	var created struct {
		Task struct {
			TaskID string `json:"taskId"`
			Status string `json:"status"`
		} `json:"task"`
	}
	json.Unmarshal(p.awaitResponse(t, "3").Result, &created)
	id := created.Task.TaskID
	if id == "" || created.Task.Status != "working" {
		t.Fatalf("CreateTaskResult %+v", created)
	}
	p.log.waitFor(t, "the task's sleep to start", logHas("msg", "sleep started", "ms", "600031"))
	p.send(t, cancel("3", "not how tasks are cancelled"))
	p.send(t, request("4", "tasks/get", `{"taskId":"`+id+`"}`))
	if l := p.awaitResponse(t, "4").line; !strings.Contains(l, `"status":"working"`) {
		t.Fatalf("after notifications/cancelled: %s", l)
	}
	p.send(t, request("5", "tasks/cancel", `{"taskId":"`+id+`"}`))
	if l := p.awaitResponse(t, "5").line; !strings.Contains(l, `"status":"cancelled"`) {
		t.Fatalf("tasks/cancel: %s", l)
	}
	p.log.waitFor(t, "the handler's ctx to end by tasks/cancel", logHas("msg", "sleep interrupted", "source", "tasks/cancel"))
	p.send(t, request("6", "tasks/cancel", `{"taskId":"`+id+`"}`), request("7", "tasks/get", `{"taskId":"`+id+`"}`))
	if m := p.awaitResponse(t, "6"); m.Error == nil || m.Error.Code != -32602 {
		t.Fatalf("second tasks/cancel: %s", m.line)
	}
	if l := p.awaitResponse(t, "7").line; !strings.Contains(l, `"status":"cancelled"`) {
		t.Fatalf("stays cancelled: %s", l)
	}

	p.send(t, request("8", "tools/call", `{"name":"sleep","arguments":{"ms":1},"task":{}}`))
	json.Unmarshal(p.awaitResponse(t, "8").Result, &created)
	p.send(t, request("9", "tasks/result", `{"taskId":"`+created.Task.TaskID+`"}`))
	res := p.awaitResponse(t, "9")
	if !strings.Contains(res.line, "slept 1 ms") || !strings.Contains(res.line, `"io.modelcontextprotocol/related-task":{"taskId":"`+created.Task.TaskID+`"}`) {
		t.Fatalf("tasks/result %s", res.line)
	}
	// echo has no taskSupport: forbidden.
	p.send(t, request("10", "tools/call", `{"name":"echo","arguments":{"text":"x"},"task":{}}`))
	if m := p.awaitResponse(t, "10"); m.Error == nil || m.Error.Code != -32601 {
		t.Fatalf("echo as a task: %s", m.line)
	}
	assertResponses(t, p.finish(t), "1", "2", "3", "4", "5", "6", "7", "8", "9", "10")
}
