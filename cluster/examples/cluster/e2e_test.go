package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// The cluster end to end: this program built, a NATS server, three replicas
// (each a process, so SIGKILL is real) and the round-robin proxy, driven
// over HTTP through the proxy as a client would.

const (
	e2eLease   = 3 * time.Second
	modernMeta = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{"name":"e2e","version":"0"},"io.modelcontextprotocol/clientCapabilities":{%s}}`
	optIn      = `"extensions":{"io.modelcontextprotocol/tasks":{}}`
)

var (
	buildMu  sync.Mutex
	builtBin string
)

// buildOnce builds this program once per test binary.
func buildOnce(t *testing.T) string {
	t.Helper()
	buildMu.Lock()
	defer buildMu.Unlock()
	if builtBin != "" {
		return builtBin
	}
	dir, err := os.MkdirTemp("", "cluster-e2e-")
	if err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(dir, "cluster")
	build := exec.Command("go", "build", "-o", bin, ".")
	build.Stderr = os.Stderr
	if err := build.Run(); err != nil {
		t.Fatalf("building the example: %v", err)
	}
	builtBin = bin
	return bin
}

func TestMain(m *testing.M) {
	code := m.Run()
	if builtBin != "" {
		os.RemoveAll(filepath.Dir(builtBin))
	}
	os.Exit(code)
}

type e2e struct {
	t     *testing.T
	c     *Cluster
	proxy *httptest.Server
	url   string
	logs  string
}

func startE2E(t *testing.T) *e2e {
	t.Helper()
	if testing.Short() {
		t.Skip("starts processes")
	}
	dir := t.TempDir()
	bin := buildOnce(t)
	logs := filepath.Join(dir, "logs")
	os.Mkdir(logs, 0o755)
	natsDir := filepath.Join(dir, "nats")
	c := &Cluster{Bin: bin, Dir: natsDir, Lease: e2eLease, LogDir: logs}
	t.Cleanup(func() {
		c.Stop()
		if !t.Failed() {
			return
		}
		files, _ := filepath.Glob(filepath.Join(logs, "*.log"))
		for _, f := range files {
			b, _ := os.ReadFile(f)
			lines := strings.Split(strings.TrimSpace(string(b)), "\n")
			t.Logf("--- %s (last %d lines)\n%s", filepath.Base(f), min(len(lines), 60), strings.Join(lines[max(0, len(lines)-60):], "\n"))
		}
	})
	if err := c.StartNATS(); err != nil {
		t.Fatal(err)
	}
	var backends []string
	for _, name := range []string{"r1", "r2", "r3"} {
		r, err := c.StartReplica(name)
		if err != nil {
			t.Fatal(err)
		}
		backends = append(backends, r.URL)
	}
	p, err := NewProxy(backends)
	if err != nil {
		t.Fatal(err)
	}
	mux := http.NewServeMux()
	mux.Handle("/mcp", p)
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return &e2e{t: t, c: c, proxy: srv, url: srv.URL + "/mcp", logs: logs}
}

// rpcResponse is one JSON-RPC response.
type rpcResponse struct {
	ID     json.RawMessage `json:"id"`
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

// post sends one modern request through the proxy and returns its
// response (from a JSON body or the SSE stream), or an error if the
// request ended without one (ctx cancelled, connection cut).
func (e *e2e) post(ctx context.Context, method, name, params string) (rpcResponse, error) {
	body := `{"jsonrpc":"2.0","id":1,"method":"` + method + `","params":` + params + `}`
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, e.url, strings.NewReader(body))
	if err != nil {
		return rpcResponse{}, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Mcp-Protocol-Version", "2026-07-28")
	req.Header.Set("Mcp-Method", method)
	if name != "" {
		req.Header.Set("Mcp-Name", name)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return rpcResponse{}, err
	}
	defer resp.Body.Close()
	var out rpcResponse
	if strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		sc := bufio.NewScanner(resp.Body)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			data, ok := strings.CutPrefix(sc.Text(), "data:")
			if !ok {
				continue
			}
			var m rpcResponse
			if json.Unmarshal([]byte(strings.TrimSpace(data)), &m) == nil && m.ID != nil {
				return m, nil
			}
		}
		if sc.Err() != nil {
			return out, sc.Err()
		}
		return out, io.ErrUnexpectedEOF
	}
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return out, err
	}
	if err := json.Unmarshal(b, &out); err != nil {
		return out, fmt.Errorf("status %d, body %q: %w", resp.StatusCode, b, err)
	}
	return out, nil
}

// call is post that must succeed with a result.
func (e *e2e) call(method, name, params string) json.RawMessage {
	e.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	r, err := e.post(ctx, method, name, params)
	if err != nil {
		e.t.Fatalf("%s %s: %v", method, name, err)
	}
	if r.Error != nil {
		e.t.Fatalf("%s %s: error %d %s", method, name, r.Error.Code, r.Error.Message)
	}
	return r.Result
}

func toolParams(tool, args string, task bool) string {
	caps := ""
	if task {
		caps = optIn
	}
	return `{"name":"` + tool + `","arguments":` + args + `,` + fmt.Sprintf(modernMeta, caps) + `}`
}

func taskParams(id string) string {
	return `{"taskId":"` + id + `",` + fmt.Sprintf(modernMeta, optIn) + `}`
}

type taskView struct {
	ResultType    string          `json:"resultType"`
	TaskID        string          `json:"taskId"`
	Status        string          `json:"status"`
	StatusMessage string          `json:"statusMessage"`
	Result        json.RawMessage `json:"result"`
	Error         *struct {
		Message string `json:"message"`
	} `json:"error"`
}

func (e *e2e) createTask(args string) taskView {
	e.t.Helper()
	var v taskView
	raw := e.call("tools/call", "slow", toolParams("slow", args, true))
	if err := json.Unmarshal(raw, &v); err != nil || v.ResultType != "task" || v.TaskID == "" {
		e.t.Fatalf("not a CreateTaskResult: %s", raw)
	}
	return v
}

func (e *e2e) getTask(id string) taskView {
	e.t.Helper()
	var v taskView
	raw := e.call("tasks/get", id, taskParams(id))
	if err := json.Unmarshal(raw, &v); err != nil {
		e.t.Fatalf("tasks/get: %s", raw)
	}
	return v
}

// awaitTask polls tasks/get (through the proxy: each poll on another
// replica) until the task is terminal, and returns it with the time it
// took.
func (e *e2e) awaitTask(id string, within time.Duration) (taskView, time.Duration) {
	e.t.Helper()
	start := time.Now()
	for {
		v := e.getTask(id)
		if v.Status == "completed" || v.Status == "failed" || v.Status == "cancelled" {
			return v, time.Since(start)
		}
		if time.Since(start) > within {
			e.t.Fatalf("task %s still %s after %v", id, v.Status, within)
		}
		time.Sleep(50 * time.Millisecond) // a requestor polls
	}
}

// awaitLog waits until some replica's log has a line containing every
// part, and returns the replica's name.
func (e *e2e) awaitLog(within time.Duration, parts ...string) string {
	e.t.Helper()
	deadline := time.Now().Add(within)
	for {
		files, _ := filepath.Glob(filepath.Join(e.logs, "*.log"))
		for _, f := range files {
			b, _ := os.ReadFile(f)
			for _, line := range strings.Split(string(b), "\n") {
				all := true
				for _, p := range parts {
					all = all && strings.Contains(line, p)
				}
				if all {
					return strings.TrimSuffix(filepath.Base(f), ".log")
				}
			}
		}
		if time.Now().After(deadline) {
			e.t.Fatalf("no replica logged %q within %v", parts, within)
		}
		time.Sleep(20 * time.Millisecond) // the log is another process's file
	}
}

func (e *e2e) replica(name string) *Replica {
	e.c.mu.Lock()
	defer e.c.mu.Unlock()
	for _, r := range e.c.Replicas {
		if r.Name == name {
			return r
		}
	}
	e.t.Fatalf("no replica %s", name)
	return nil
}

func TestClusterE2E(t *testing.T) {
	e := startE2E(t)

	t.Run("round robin without affinity", func(t *testing.T) {
		seen := map[string]bool{}
		for range 3 {
			var r struct {
				Structured struct{ Replica string } `json:"structuredContent"`
			}
			json.Unmarshal(e.call("tools/call", "whoami", toolParams("whoami", `{}`, false)), &r)
			seen[r.Structured.Replica] = true
		}
		if len(seen) != 3 {
			t.Fatalf("three calls reached %v", seen)
		}
	})

	// 2026-07-28: closing the response stream IS the cancellation; the
	// handler's ctx ends with source "stream closed" on whichever replica
	// ran it, through the proxy.
	t.Run("modern cancellation by closing the stream", func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan error, 1)
		go func() {
			r, err := e.post(ctx, "tools/call", "slow", toolParams("slow", `{"ms":60000,"tag":"close-1"}`, false))
			if err == nil {
				err = fmt.Errorf("answered: %+v", r)
			}
			done <- err
		}()
		e.awaitLog(10*time.Second, "slow started", "tag=close-1")
		cancel()
		e.awaitLog(10*time.Second, "slow cancelled", "tag=close-1", `source="stream closed"`)
		if err := <-done; !strings.Contains(err.Error(), "context canceled") {
			t.Fatalf("the cancelled call: %v", err)
		}
	})

	// Tasks extension: created on one replica, read, cancelled and read
	// again on others; the cancel ends the work's ctx where it runs.
	t.Run("modern task cancelled from another replica", func(t *testing.T) {
		task := e.createTask(`{"ms":60000,"tag":"task-cancel"}`)
		runner := e.awaitLog(10*time.Second, "slow started", "tag=task-cancel")
		for range 3 {
			if v := e.getTask(task.TaskID); v.Status != "working" {
				t.Fatalf("tasks/get: %+v", v)
			}
		}
		if raw := e.call("tasks/cancel", task.TaskID, taskParams(task.TaskID)); string(raw) != `{"resultType":"complete"}` {
			t.Fatalf("tasks/cancel: %s", raw)
		}
		if got := e.awaitLog(10*time.Second, "slow cancelled", "tag=task-cancel", "source=tasks/cancel"); got != runner {
			t.Fatalf("work ran on %s, cancelled on %s", runner, got)
		}
		for range 3 {
			if v := e.getTask(task.TaskID); v.Status != "cancelled" {
				t.Fatalf("after cancel: %+v", v)
			}
		}
	})

	// tasks/update answered by a replica that does not run the task wakes
	// the work's Ask on the one that does (over the NATS bus).
	t.Run("modern task input answered on another replica", func(t *testing.T) {
		var created taskView
		raw := e.call("tools/call", "confirm", toolParams("confirm", `{"question":"deploy?"}`, true))
		if err := json.Unmarshal(raw, &created); err != nil || created.TaskID == "" {
			t.Fatalf("confirm task: %s", raw)
		}
		runner := e.awaitLog(10*time.Second, "task created", "task="+created.TaskID)
		var key string
		deadline := time.Now().Add(10 * time.Second)
		for key == "" {
			var v struct {
				Status        string                     `json:"status"`
				InputRequests map[string]json.RawMessage `json:"inputRequests"`
			}
			json.Unmarshal(e.call("tasks/get", created.TaskID, taskParams(created.TaskID)), &v)
			for k := range v.InputRequests {
				key = k
			}
			if time.Now().After(deadline) {
				t.Fatalf("no input request listed: %+v", v)
			}
			time.Sleep(20 * time.Millisecond) // a requestor polls
		}
		var other *Replica
		for _, name := range []string{"r1", "r2", "r3"} {
			if name != runner {
				other = e.replica(name)
				break
			}
		}
		direct := &e2e{t: t, c: e.c, url: other.URL, logs: e.logs}
		upd := `{"taskId":"` + created.TaskID + `","inputResponses":{"` + key + `":{"action":"accept","content":{"answer":"yes"}}},` + fmt.Sprintf(modernMeta, optIn) + `}`
		if raw := direct.call("tasks/update", created.TaskID, upd); string(raw) != `{"resultType":"complete"}` {
			t.Fatalf("tasks/update on %s: %s", other.Name, raw)
		}
		v, _ := e.awaitTask(created.TaskID, 20*time.Second)
		if v.Status != "completed" || !strings.Contains(string(v.Result), `"answer":"yes"`) || !strings.Contains(string(v.Result), `"replica":"`+runner+`"`) {
			t.Fatalf("confirm task (ran on %s, answered on %s): %+v %s", runner, other.Name, v, v.Result)
		}
	})

	t.Run("modern task completes and is read anywhere", func(t *testing.T) {
		task := e.createTask(`{"ms":300,"tag":"task-done"}`)
		v, _ := e.awaitTask(task.TaskID, 20*time.Second)
		if v.Status != "completed" || !strings.Contains(string(v.Result), `"tag":"task-done"`) {
			t.Fatalf("completed task: %+v %s", v, v.Result)
		}
	})

	// A NATS server crash and restart (SIGKILL, then the same data directory) loses
	// nothing: tasks created before it complete after it, every call made
	// across it is answered exactly once, and a task cancelled across it
	// stays cancelled.
	t.Run("NATS crash and restart loses nothing", func(t *testing.T) {
		var before []taskView
		for i := range 6 {
			before = append(before, e.createTask(fmt.Sprintf(`{"ms":%d,"tag":"nr-%d"}`, 2500+100*i, i)))
		}
		victim := e.createTask(`{"ms":60000,"tag":"nr-victim"}`)
		type outcome struct {
			n   int
			err error
		}
		calls := make(chan outcome, 12)
		var wg sync.WaitGroup
		for i := range 12 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
				defer cancel()
				r, err := e.post(ctx, "tools/call", "slow", toolParams("slow", fmt.Sprintf(`{"ms":1500,"tag":"nr-call-%d"}`, i), false))
				if err == nil && r.Error != nil {
					err = fmt.Errorf("error %d %s", r.Error.Code, r.Error.Message)
				}
				calls <- outcome{i, err}
			}()
		}
		e.c.StopNATS(syscall.SIGKILL) // a crash: JetStream recovers from its files
		// Tasks created during the outage: each request is answered once,
		// with a task that then completes, or with an error (never both,
		// never a task left behind).
		type created struct {
			task taskView
			err  error
		}
		during := make(chan created, 3)
		for i := range 3 {
			go func() {
				ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
				defer cancel()
				r, err := e.post(ctx, "tools/call", "slow", toolParams("slow", fmt.Sprintf(`{"ms":200,"tag":"nr-during-%d"}`, i), true))
				var v taskView
				if err == nil && r.Error != nil {
					err = fmt.Errorf("error %d %s", r.Error.Code, r.Error.Message)
				} else if err == nil {
					json.Unmarshal(r.Result, &v)
				}
				during <- created{v, err}
			}()
		}
		time.Sleep(300 * time.Millisecond) // an outage, not a blip
		if err := e.c.StartNATS(); err != nil {
			t.Fatal(err)
		}
		for range 3 {
			c := <-during
			if c.err != nil {
				t.Logf("task creation during the outage refused: %v", c.err)
				continue
			}
			if v, _ := e.awaitTask(c.task.TaskID, 30*time.Second); v.Status != "completed" {
				t.Errorf("task created during the outage: %+v", v)
			}
		}
		if raw := e.call("tasks/cancel", victim.TaskID, taskParams(victim.TaskID)); string(raw) != `{"resultType":"complete"}` {
			t.Fatalf("tasks/cancel after the restart: %s", raw)
		}
		wg.Wait()
		close(calls)
		n := 0
		for o := range calls {
			if o.err != nil {
				t.Errorf("call %d across the restart: %v", o.n, o.err)
			}
			n++
		}
		if n != 12 {
			t.Fatalf("%d of 12 calls ended", n)
		}
		for _, task := range before {
			v, _ := e.awaitTask(task.TaskID, 30*time.Second)
			if v.Status != "completed" {
				t.Errorf("task %s across the restart: %s %q", task.TaskID, v.Status, v.StatusMessage)
			}
		}
		if v, _ := e.awaitTask(victim.TaskID, 10*time.Second); v.Status != "cancelled" {
			t.Fatalf("cancelled task: %+v", v)
		}
		e.awaitLog(10*time.Second, "slow cancelled", "tag=nr-victim", "source=tasks/cancel")
	})

	// SIGKILL of the replica running a task: the task is failed by
	// another replica's sweeper within lease + lease/3 (plus the time to
	// notice), with an error naming the replica; never working for ever.
	t.Run("replica killed mid-task", func(t *testing.T) {
		task := e.createTask(`{"ms":120000,"tag":"killed"}`)
		runner := e.awaitLog(10*time.Second, "slow started", "tag=killed")
		e.c.Kill(e.replica(runner), syscall.SIGKILL)
		bound := e2eLease + e2eLease/3
		v, took := e.awaitTask(task.TaskID, bound+5*time.Second)
		if v.Status != "failed" || v.Error == nil || !strings.Contains(v.Error.Message, "replica "+runner+" stopped") {
			t.Fatalf("task of the killed replica: %+v", v)
		}
		t.Logf("task of SIGKILLed %s failed %v after the kill (bound %v + a poll)", runner, took.Round(time.Millisecond), bound)
		if took > bound+time.Second {
			t.Fatalf("failed after %v, bound %v", took, bound)
		}
		// The other replicas still serve, through the same proxy.
		done := e.createTask(`{"ms":100,"tag":"after-kill"}`)
		if v, _ := e.awaitTask(done.TaskID, 20*time.Second); v.Status != "completed" {
			t.Fatalf("task after the kill: %+v", v)
		}
	})
}

// legacySession is a 2025-11-25 session (initialize, Mcp-Session-Id) on
// one URL.
type legacySession struct {
	e   *e2e
	url string
	sid string
}

// do posts one JSON-RPC message in the session and returns the response
// (none for a notification: 202).
func (s *legacySession) do(ctx context.Context, body string) (rpcResponse, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, s.url, strings.NewReader(body))
	if err != nil {
		return rpcResponse{}, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if s.sid != "" {
		req.Header.Set("Mcp-Session-Id", s.sid)
		req.Header.Set("Mcp-Protocol-Version", "2025-11-25")
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return rpcResponse{}, err
	}
	defer resp.Body.Close()
	if sid := resp.Header.Get("Mcp-Session-Id"); sid != "" && s.sid == "" {
		s.sid = sid
	}
	if resp.StatusCode == http.StatusAccepted {
		return rpcResponse{}, nil
	}
	var out rpcResponse
	if strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		sc := bufio.NewScanner(resp.Body)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			data, ok := strings.CutPrefix(sc.Text(), "data:")
			if !ok {
				continue
			}
			var m rpcResponse
			if json.Unmarshal([]byte(strings.TrimSpace(data)), &m) == nil && m.ID != nil {
				return m, nil
			}
		}
		return out, io.ErrUnexpectedEOF
	}
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return out, err
	}
	if err := json.Unmarshal(b, &out); err != nil {
		return out, fmt.Errorf("status %d, body %q: %w", resp.StatusCode, b, err)
	}
	return out, nil
}

func (e *e2e) legacy(url string) *legacySession {
	e.t.Helper()
	s := &legacySession{e: e, url: url}
	r, err := s.do(context.Background(), `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{"tasks":{}},"clientInfo":{"name":"e2e","version":"0"}}}`)
	if err != nil || r.Error != nil || s.sid == "" {
		e.t.Fatalf("initialize on %s: %+v %v", url, r, err)
	}
	if _, err := s.do(context.Background(), `{"jsonrpc":"2.0","method":"notifications/initialized"}`); err != nil {
		e.t.Fatal(err)
	}
	return s
}

func (s *legacySession) call(method, params string) json.RawMessage {
	s.e.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	r, err := s.do(ctx, `{"jsonrpc":"2.0","id":7,"method":"`+method+`","params":`+params+`}`)
	if err != nil || r.Error != nil {
		s.e.t.Fatalf("%s: %+v %v", method, r.Error, err)
	}
	return r.Result
}

// otherThan returns a replica that is not name.
func (e *e2e) otherThan(name string) *Replica {
	e.t.Helper()
	for _, n := range []string{"r1", "r2", "r3"} {
		if n != name {
			return e.replica(n)
		}
	}
	return nil
}

// on is the same session, posting to url (one replica directly): any
// replica serves any request of a legacy session.
func (s *legacySession) on(url string) *legacySession {
	return &legacySession{e: s.e, url: url, sid: s.sid}
}

// 2025-11-25 core tasks in one legacy session through the proxy: created
// on one replica; read, awaited (tasks/result waits for the work on
// another replica) and cancelled (ending the work where it runs) on the
// others.
func TestClusterE2ELegacyTasks(t *testing.T) {
	e := startE2E(t)
	s := e.legacy(e.url)
	var created struct {
		Task struct {
			TaskID string `json:"taskId"`
			Status string `json:"status"`
		} `json:"task"`
	}
	json.Unmarshal(s.call("tools/call", `{"name":"slow","arguments":{"ms":1500,"tag":"legacy-result"},"task":{"ttl":60000}}`), &created)
	id := created.Task.TaskID
	if id == "" || created.Task.Status != "working" {
		t.Fatalf("CreateTaskResult: %+v", created)
	}
	runner := e.awaitLog(10*time.Second, "task created", "task="+id)
	other := s.on(e.otherThan(runner).URL)
	var got struct {
		Status string `json:"status"`
	}
	for range 3 { // through the proxy: every replica in turn
		json.Unmarshal(s.call("tasks/get", `{"taskId":"`+id+`"}`), &got)
		if got.Status != "working" {
			t.Fatalf("tasks/get: %+v", got)
		}
	}
	// tasks/list on another replica lists it: the session owns it, not
	// the Conn of the replica that created it; another session does not
	// see it.
	var list struct {
		Tasks []struct {
			TaskID string `json:"taskId"`
		} `json:"tasks"`
	}
	json.Unmarshal(other.call("tasks/list", `{}`), &list)
	if len(list.Tasks) != 1 || list.Tasks[0].TaskID != id {
		t.Fatalf("tasks/list on another replica: %+v", list)
	}
	stranger := e.legacy(e.url)
	if r, err := stranger.do(context.Background(), `{"jsonrpc":"2.0","id":3,"method":"tasks/get","params":{"taskId":"`+id+`"}}`); err != nil || r.Error == nil {
		t.Fatalf("another session read the task: %+v %v", r, err)
	}
	res := other.call("tasks/result", `{"taskId":"`+id+`"}`)
	if !strings.Contains(string(res), `"tag":"legacy-result"`) || !strings.Contains(string(res), `"replica":"`+runner+`"`) || !strings.Contains(string(res), "io.modelcontextprotocol/related-task") {
		t.Fatalf("tasks/result on another replica than %s: %s", runner, res)
	}

	json.Unmarshal(s.call("tools/call", `{"name":"slow","arguments":{"ms":60000,"tag":"legacy-cancel"},"task":{"ttl":60000}}`), &created)
	id = created.Task.TaskID
	runner = e.awaitLog(10*time.Second, "slow started", "tag=legacy-cancel")
	other = s.on(e.otherThan(runner).URL)
	json.Unmarshal(other.call("tasks/cancel", `{"taskId":"`+id+`"}`), &got)
	if got.Status != "cancelled" {
		t.Fatalf("tasks/cancel: %+v", got)
	}
	if r := e.awaitLog(10*time.Second, "slow cancelled", "tag=legacy-cancel", "source=tasks/cancel"); r != runner {
		t.Fatalf("cancelled on %s, ran on %s", r, runner)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	r, err := s.do(ctx, `{"jsonrpc":"2.0","id":9,"method":"tasks/result","params":{"taskId":"`+id+`"}}`)
	if err != nil || r.Error == nil || !strings.Contains(r.Error.Message, "cancelled") {
		t.Fatalf("tasks/result of the cancelled task: %+v %v", r, err)
	}
}

// 2025-11-25 cancellation through the proxy: a legacy session's request
// runs on one replica, its notifications/cancelled is POSTed to another;
// the handler's ctx ends with the client's reason (source peer) and the
// request is never answered. Cancelling a finished request is harmless.
func TestClusterE2ELegacyCancellation(t *testing.T) {
	e := startE2E(t)
	s := e.legacy(e.url)
	answered := make(chan rpcResponse, 1)
	ended := make(chan error, 1)
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
		defer cancel()
		r, err := s.do(ctx, `{"jsonrpc":"2.0","id":41,"method":"tools/call","params":{"name":"slow","arguments":{"ms":30000,"tag":"legacy-peer-cancel"}}}`)
		if err == nil && r.ID != nil {
			answered <- r
		}
		ended <- err
	}()
	runner := e.awaitLog(10*time.Second, "slow started", "tag=legacy-peer-cancel")
	other := s.on(e.otherThan(runner).URL)
	if _, err := other.do(context.Background(), `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":41,"reason":"user gave up"}}`); err != nil {
		t.Fatal(err)
	}
	if r := e.awaitLog(10*time.Second, "slow cancelled", "tag=legacy-peer-cancel", `source="peer notification"`, "user gave up"); r != runner {
		t.Fatalf("cancelled on %s, ran on %s", r, runner)
	}
	select {
	case <-ended:
	case <-time.After(30 * time.Second):
		t.Fatal("the cancelled request's POST never ended")
	}
	select {
	case r := <-answered:
		t.Fatalf("a cancelled request was answered: %+v", r)
	default:
	}
	// A late or duplicate cancellation, to every replica, changes nothing:
	// the session still serves.
	for _, n := range []string{"r1", "r2", "r3"} {
		if _, err := s.on(e.replica(n).URL).do(context.Background(), `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":41,"reason":"again"}}`); err != nil {
			t.Fatal(err)
		}
	}
	var who struct {
		Structured struct{ Replica string } `json:"structuredContent"`
	}
	json.Unmarshal(s.call("tools/call", `{"name":"whoami","arguments":{}}`), &who)
	if who.Structured.Replica == "" {
		t.Fatal("session unusable after the cancellations")
	}
}

// sseLines reads an SSE body's data lines into a channel.
func sseLines(body io.Reader) <-chan string {
	ch := make(chan string, 64)
	go func() {
		defer close(ch)
		sc := bufio.NewScanner(body)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			if d, ok := strings.CutPrefix(sc.Text(), "data:"); ok {
				ch <- strings.TrimSpace(d)
			}
		}
	}()
	return ch
}

func awaitLine(t *testing.T, ch <-chan string, what, contains string) {
	t.Helper()
	timeout := time.After(15 * time.Second)
	for {
		select {
		case l, ok := <-ch:
			if !ok {
				t.Fatalf("%s: stream ended", what)
			}
			if strings.Contains(l, contains) {
				return
			}
		case <-timeout:
			t.Fatalf("%s: no %q within 15s", what, contains)
		}
	}
}

// Fan-out: a list_changed raised on one replica reaches a modern
// subscriptions/listen stream held by another and a legacy session's GET
// stream held by a third.
func TestClusterE2EListenFanOut(t *testing.T) {
	e := startE2E(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()

	// Modern listener on r1.
	body := `{"jsonrpc":"2.0","id":"listen-1","method":"subscriptions/listen","params":{"notifications":{"toolsListChanged":true},` + fmt.Sprintf(modernMeta, "") + `}}`
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, e.replica("r1").URL, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Mcp-Protocol-Version", "2026-07-28")
	req.Header.Set("Mcp-Method", "subscriptions/listen")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != 200 {
		b, _ := io.ReadAll(resp.Body)
		t.Fatalf("subscriptions/listen: %d %s", resp.StatusCode, b)
	}
	modern := sseLines(resp.Body)
	select {
	case first := <-modern: // the acknowledgement: the listener is registered
		if strings.Contains(first, `"error"`) {
			t.Fatalf("subscriptions/listen: %s", first)
		}
	case <-time.After(15 * time.Second):
		t.Fatal("no acknowledgement of subscriptions/listen")
	}

	// Legacy listener: a session's GET stream on r3.
	s := e.legacy(e.url)
	greq, _ := http.NewRequestWithContext(ctx, http.MethodGet, e.replica("r3").URL, nil)
	greq.Header.Set("Accept", "text/event-stream")
	greq.Header.Set("Mcp-Session-Id", s.sid)
	greq.Header.Set("Mcp-Protocol-Version", "2025-11-25")
	gresp, err := http.DefaultClient.Do(greq)
	if err != nil {
		t.Fatal(err)
	}
	defer gresp.Body.Close()
	if gresp.StatusCode != 200 {
		t.Fatalf("GET stream: %d", gresp.StatusCode)
	}
	legacy := sseLines(gresp.Body)

	// Raised on r2.
	r2 := &e2e{t: t, c: e.c, url: e.replica("r2").URL, logs: e.logs}
	var who struct {
		Structured struct{ Replica string } `json:"structuredContent"`
	}
	json.Unmarshal(r2.call("tools/call", "announce", toolParams("announce", `{}`, false)), &who)
	if who.Structured.Replica != "r2" {
		t.Fatalf("announce ran on %q", who.Structured.Replica)
	}
	awaitLine(t, modern, "modern listener on r1", "notifications/tools/list_changed")
	awaitLine(t, legacy, "legacy GET stream on r3", "notifications/tools/list_changed")
}

// Cancellations POSTed while the NATS server is down (crashed: SIGKILL,
// restarted on the same data directory) reach the requests they name,
// wherever those run. One legacy request runs on each replica, and each is
// cancelled by a POST to another replica during the outage: the cancel
// POST waits for the stream of the durable bus to accept the notification
// (so it is answered only after the restart, 202; or 503 after 10s, which
// the client retries, as Retry-After says), and each runner's ordered
// consumer delivers it after its own reconnect, whether that comes before
// or after the publisher's. A fourth request, of a session only r1 has
// seen, is cancelled through r2, which must read the session store to
// adopt the session: its POST waits for the store (up to 10s; past that
// 503, not 404, for the session exists, and the client retries), then the
// cancellation is forwarded as the others. Every handler's ctx
// ends with the client's reason, on the replica that runs it, and no
// request is answered.
func TestClusterE2ELegacyCancelAcrossNATSCrash(t *testing.T) {
	e := startE2E(t)
	s := e.legacy(e.url)
	names := []string{"r1", "r2", "r3"}
	// Every replica holds its copy of s before the outage.
	for _, n := range names {
		s.on(e.replica(n).URL).call("tools/call", `{"name":"whoami","arguments":{}}`)
	}
	only := e.legacy(e.replica("r1").URL) // r2 and r3 never saw it
	type cancelCase struct {
		s              *legacySession
		id             int
		runner, sendTo string
	}
	cases := []cancelCase{{s, 77, "r1", "r2"}, {s, 78, "r2", "r3"}, {s, 79, "r3", "r1"}, {only, 80, "r1", "r2"}}
	answered := make(chan rpcResponse, len(cases))
	var ended sync.WaitGroup
	for _, c := range cases {
		ended.Add(1)
		go func() {
			defer ended.Done()
			ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
			defer cancel()
			r, err := c.s.on(e.replica(c.runner).URL).do(ctx, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"slow","arguments":{"ms":40000,"tag":"outage-cancel-%d"}}}`, c.id, c.id))
			if err == nil && r.ID != nil {
				answered <- r
			}
		}()
		if r := e.awaitLog(10*time.Second, "slow started", fmt.Sprintf("tag=outage-cancel-%d", c.id)); r != c.runner {
			t.Fatalf("request %d started on %s, want %s", c.id, r, c.runner)
		}
	}
	e.c.StopNATS(syscall.SIGKILL)
	type accepted struct {
		id    int
		codes []int // the statuses until 202
		err   error
	}
	acks := make(chan accepted, len(cases))
	firstTry := make(chan int, len(cases)) // statuses answered during the outage
	for _, c := range cases {
		go func() {
			a := accepted{id: c.id}
			body := fmt.Sprintf(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":%d,"reason":"cancelled during the outage"}}`, c.id)
			deadline := time.Now().Add(60 * time.Second)
			for time.Now().Before(deadline) {
				code, retry, err := postStatus(e.replica(c.sendTo).URL, c.s.sid, body)
				if err != nil {
					a.err = err
					break
				}
				if len(a.codes) == 0 {
					firstTry <- code
				}
				a.codes = append(a.codes, code)
				if code != http.StatusServiceUnavailable {
					break
				}
				time.Sleep(retry) // the client honours Retry-After
			}
			acks <- a
		}()
	}
	// An outage, not a blip: the cancels are in the replicas' hands, and
	// none is accepted while no stream can hold it (a 503 would be
	// allowed: the client sends it again).
	time.Sleep(500 * time.Millisecond)
	for len(firstTry) > 0 {
		if code := <-firstTry; code != http.StatusServiceUnavailable {
			t.Fatalf("a cancel POST was answered %d during the outage", code)
		}
	}
	if err := e.c.StartNATS(); err != nil {
		t.Fatal(err)
	}
	for range cases {
		a := <-acks
		if a.err != nil || len(a.codes) == 0 || a.codes[len(a.codes)-1] != http.StatusAccepted {
			t.Fatalf("cancel of request %d: %+v", a.id, a)
		}
		t.Logf("cancel of request %d: statuses %v", a.id, a.codes)
	}
	for _, c := range cases {
		if r := e.awaitLog(20*time.Second, "slow cancelled", fmt.Sprintf("tag=outage-cancel-%d", c.id), "cancelled during the outage"); r != c.runner {
			t.Fatalf("request %d cancelled on %s, ran on %s", c.id, r, c.runner)
		}
	}
	done := make(chan struct{})
	go func() { ended.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		t.Fatal("a cancelled request's POST never ended")
	}
	select {
	case r := <-answered:
		t.Fatalf("a cancelled request was answered: %+v", r)
	default:
	}
}

// postStatus posts a legacy session's notification to url and returns the
// HTTP status and, for a 503, the Retry-After it asks for.
func postStatus(url, sid, body string) (int, time.Duration, error) {
	req, err := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	if err != nil {
		return 0, 0, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Mcp-Session-Id", sid)
	req.Header.Set("Mcp-Protocol-Version", "2025-11-25")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, 0, err
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	retry := time.Second
	if n, err := strconv.Atoi(resp.Header.Get("Retry-After")); err == nil {
		retry = time.Duration(n) * time.Second
	}
	return resp.StatusCode, retry, nil
}
