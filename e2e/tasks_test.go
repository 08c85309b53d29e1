package e2e

// examples/stdio-server's task-capable sleep over stdio, in both eras: a
// 2025-11-25 core task (tasks.mdx) and a 2026-07-28 Tasks extension task
// (SEP-2663), one tool method behind both, driven byte by byte.

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"
)

// TestServerSleepAsTask: initialize declares the tasks capability and
// tools/list sleep's taskSupport; a task-augmented sleep answers a
// CreateTaskResult at once; notifications/cancelled naming the creating
// request does not stop it; tasks/cancel does (the handler's cause says
// "tasks/cancel"), the task stays cancelled, and a second tasks/cancel is
// -32602. A short sleep task's tasks/result is the tool result with the
// related-task metadata.
func TestServerSleepAsTask(t *testing.T) {
	t.Parallel()
	p := startProc(t, true, nil, serverBin)
	p.send(t, initializeRequest("1", "2025-11-25"))
	var init struct {
		Capabilities struct {
			Tasks map[string]json.RawMessage `json:"tasks"`
		} `json:"capabilities"`
	}
	json.Unmarshal(p.awaitResponse(t, "1").Result, &init)
	if got := string(init.Capabilities.Tasks["requests"]); got != `{"tools":{"call":{}}}` || init.Capabilities.Tasks["cancel"] == nil || init.Capabilities.Tasks["list"] == nil {
		t.Fatalf("tasks capability %v", init.Capabilities.Tasks)
	}
	p.send(t, notification("notifications/initialized", ""), request("2", "tools/list", ""))
	if l := p.awaitResponse(t, "2").line; strings.Count(l, `"execution":{"taskSupport":"optional"}`) != 1 {
		t.Fatalf("tools/list: want sleep (only) with execution.taskSupport optional: %s", l)
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

// modernMeta is the _meta of a 2026-07-28 request from a raw client; optIn
// lists the Tasks extension in its per-request capabilities.
func modernMeta(optIn bool) string {
	caps := `{}`
	if optIn {
		caps = `{"extensions":{"io.modelcontextprotocol/tasks":{}}}`
	}
	return `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{"name":"e2e-raw","version":"0"},"io.modelcontextprotocol/clientCapabilities":` + caps + `}`
}

func modernTaskParams(id string) string { return `{"taskId":"` + id + `",` + modernMeta(true) + `}` }

// TestServerSleepAsExtensionTask: the same sleep, for a 2026-07-28 client.
// server/discover lists the Tasks extension; a tools/call that opts in
// answers a CreateTaskResult (resultType "task"), one that does not is an
// ordinary call; tasks/cancel is acknowledged empty and ends the work's ctx
// (cause tasks/cancel); tasks/get reports cancelled; tasks/result is gone
// (-32601); a task method without the opt-in is -32021; a short task
// completes with the tool result inline in tasks/get.
func TestServerSleepAsExtensionTask(t *testing.T) {
	t.Parallel()
	p := startProc(t, true, nil, serverBin)
	p.send(t, request("1", "server/discover", `{`+modernMeta(false)+`}`))
	if l := p.awaitResponse(t, "1").line; !strings.Contains(l, `"extensions":{"io.modelcontextprotocol/tasks":{}}`) || strings.Contains(l, `"tasks":{"cancel"`) {
		t.Fatalf("server/discover: want the extension, not the core capability: %s", l)
	}
	p.send(t, request("2", "tools/call", `{"name":"sleep","arguments":{"ms":600041},`+modernMeta(true)+`}`))
	var created struct {
		ResultType, TaskID, Status string
		PollIntervalMs             int
	}
	json.Unmarshal(p.awaitResponse(t, "2").Result, &created)
	if created.ResultType != "task" || created.TaskID == "" || created.Status != "working" || created.PollIntervalMs <= 0 {
		t.Fatalf("CreateTaskResult %+v", created)
	}
	id := created.TaskID
	p.log.waitFor(t, "the task's sleep to start", logHas("msg", "sleep started", "ms", "600041"))
	p.send(t, request("3", "tasks/get", modernTaskParams(id)))
	if l := p.awaitResponse(t, "3").line; !strings.Contains(l, `"status":"working"`) || !strings.Contains(l, `"resultType":"complete"`) {
		t.Fatalf("tasks/get: %s", l)
	}
	p.send(t, request("4", "tasks/cancel", `{"taskId":"`+id+`",`+modernMeta(false)+`}`))
	if m := p.awaitResponse(t, "4"); m.Error == nil || m.Error.Code != -32021 {
		t.Fatalf("tasks/cancel without the opt-in: %s", m.line)
	}
	p.send(t, request("5", "tasks/cancel", modernTaskParams(id)))
	if m := p.awaitResponse(t, "5"); m.Error != nil || string(m.Result) != `{"resultType":"complete"}` {
		t.Fatalf("tasks/cancel: %s", m.line)
	}
	p.log.waitFor(t, "the handler's ctx to end by tasks/cancel", logHas("msg", "sleep interrupted", "source", "tasks/cancel"))
	p.send(t, request("6", "tasks/get", modernTaskParams(id)), request("7", "tasks/result", modernTaskParams(id)))
	if l := p.awaitResponse(t, "6").line; !strings.Contains(l, `"status":"cancelled"`) {
		t.Fatalf("after tasks/cancel: %s", l)
	}
	if m := p.awaitResponse(t, "7"); m.Error == nil || m.Error.Code != -32601 {
		t.Fatalf("tasks/result in the extension: %s", m.line)
	}
	p.send(t, request("8", "tools/call", `{"name":"sleep","arguments":{"ms":1},`+modernMeta(false)+`}`))
	if m := p.awaitResponse(t, "8"); resultText(t, m) != "slept 1 ms" || strings.Contains(m.line, `"resultType":"task"`) {
		t.Fatalf("sleep without the opt-in: %s", m.line)
	}
	p.send(t, request("9", "tools/call", `{"name":"sleep","arguments":{"ms":1},`+modernMeta(true)+`}`))
	json.Unmarshal(p.awaitResponse(t, "9").Result, &created)
	for i := 10; ; i++ {
		id := fmt.Sprint(i)
		p.send(t, request(id, "tasks/get", modernTaskParams(created.TaskID)))
		l := p.awaitResponse(t, id).line
		if strings.Contains(l, `"status":"completed"`) {
			if !strings.Contains(l, "slept 1 ms") {
				t.Fatalf("completed task without its result: %s", l)
			}
			break
		}
		if i > 1000 {
			t.Fatalf("task never completed: %s", l)
		}
		time.Sleep(10 * time.Millisecond) // polling, as a requestor does
	}
	p.finish(t)
}

// TestTasksStressDefaults is the black-box check of the defaults (issue 22):
// in each era, one client creates 200 sleep tasks, cancels 100 of them and
// polls the rest at the advertised pollIntervalMs until they complete;
// nothing is refused (no -32000) with the server's default limits.
func TestTasksStressDefaults(t *testing.T) {
	t.Parallel()
	for _, modern := range []bool{false, true} {
		t.Run(fmt.Sprintf("modern=%v", modern), func(t *testing.T) {
			t.Parallel()
			var p *proc
			call := func(ms int) string {
				return `{"name":"sleep","arguments":{"ms":` + fmt.Sprint(ms) + `},"task":{}}`
			}
			task := func(id string) string { return `{"taskId":"` + id + `"}` }
			if modern {
				p = startProc(t, true, nil, serverBin)
				call = func(ms int) string {
					return `{"name":"sleep","arguments":{"ms":` + fmt.Sprint(ms) + `},` + modernMeta(true) + `}`
				}
				task = modernTaskParams
			} else {
				p = startServer(t, "2025-11-25")
			}
			const n = 200
			var lines []string
			for i := 0; i < n; i++ {
				ms := 1500
				if i%2 == 0 {
					ms = 600000 // cancelled below
				}
				lines = append(lines, request(fmt.Sprint(1000+i), "tools/call", call(ms)))
			}
			p.send(t, lines...)
			ids := make([]string, n)
			poll := time.Second
			for i := range ids {
				m := p.awaitResponse(t, fmt.Sprint(1000+i))
				if m.Error != nil {
					t.Fatalf("creating task %d: %s", i, m.line)
				}
				var cr struct {
					TaskID, PollIntervalMs json.RawMessage
					Task                   struct{ TaskID string }
				}
				json.Unmarshal(m.Result, &cr)
				var pollMs int
				if modern {
					json.Unmarshal(cr.TaskID, &ids[i])
					json.Unmarshal(cr.PollIntervalMs, &pollMs)
				} else {
					ids[i] = cr.Task.TaskID
					var full struct{ Task struct{ PollInterval int } }
					json.Unmarshal(m.Result, &full)
					pollMs = full.Task.PollInterval
				}
				if ids[i] == "" || pollMs <= 0 {
					t.Fatalf("task %d: %s", i, m.line)
				}
				poll = time.Duration(pollMs) * time.Millisecond
			}
			lines = lines[:0]
			for i := 0; i < n; i += 2 {
				lines = append(lines, request(fmt.Sprint(2000+i), "tasks/cancel", task(ids[i])))
			}
			p.send(t, lines...)
			for i := 0; i < n; i += 2 {
				if m := p.awaitResponse(t, fmt.Sprint(2000+i)); m.Error != nil {
					t.Fatalf("cancelling task %d: %s", i, m.line)
				}
			}
			// Poll every task (the cancelled ones too) once per interval
			// until all are terminal.
			next, done := 3000, map[int]string{}
			for round := 0; len(done) < n; round++ {
				if round > 30 {
					t.Fatalf("after %d polls, %d of %d tasks terminal", round, len(done), n)
				}
				sent := map[int]string{}
				lines = lines[:0]
				for i := range ids {
					if done[i] == "" {
						sent[i] = fmt.Sprint(next)
						lines = append(lines, request(sent[i], "tasks/get", task(ids[i])))
						next++
					}
				}
				p.send(t, lines...)
				for i, rid := range sent {
					m := p.awaitResponse(t, rid)
					if m.Error != nil {
						t.Fatalf("polling task %d (round %d): %s", i, round, m.line)
					}
					var st struct{ Status string }
					json.Unmarshal(m.Result, &st)
					if st.Status == "completed" || st.Status == "cancelled" || st.Status == "failed" {
						done[i] = st.Status
					}
				}
				if len(done) < n {
					time.Sleep(poll) // the advertised interval
				}
			}
			for i, st := range done {
				if want := map[bool]string{true: "cancelled", false: "completed"}[i%2 == 0]; st != want {
					t.Errorf("task %d: %s, want %s", i, st, want)
				}
			}
			p.finish(t)
		})
	}
}
