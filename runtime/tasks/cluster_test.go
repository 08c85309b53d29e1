package tasks

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpgen/mcpgen/runtime/cluster"
	"github.com/mcpgen/mcpgen/runtime/jsonrpc2"
)

// replicas are two Managers ("a" and "b") sharing one Store and one Bus,
// each serving its own Conn: two replicas of a server behind a balancer,
// in one process.
func replicas(t *testing.T, lease time.Duration, h jsonrpc2.Handler) (a, b *env) {
	t.Helper()
	store := NewMemoryStore()
	bus := cluster.NewMemoryBus()
	t.Cleanup(func() { bus.Close() })
	mk := func(name string) *env {
		return newEnv(t, Config{Store: store, Bus: bus, Replica: name, Lease: lease, Now: time.Now,
			SessionKey: func(context.Context) (string, bool) { return "the-session", true }},
			map[string]jsonrpc2.Handler{"tools/call": h})
	}
	return mk("a"), mk("b")
}

// A modern task created on replica a is read and cancelled on replica b:
// b acknowledges, the work's ctx on a ends with a SourceTaskCancel cause
// naming the task, and the task stays cancelled (a's outcome is dropped).
func TestClusterExtCancelOnAnotherReplicaEndsWork(t *testing.T) {
	g := newGate()
	a, b := replicas(t, time.Minute, g.handler)
	task := a.extCreate("t")
	g.waitStart(t)
	if got := b.extGet(task.TaskID); got.Status != Working {
		t.Fatalf("b sees %s", got.Status)
	}
	wantAck(t, b.peer.roundtrip("tasks/cancel", extID(task.TaskID, true)))
	select {
	case err := <-g.ctxErr:
		var ce *jsonrpc2.CancelError
		if !errors.As(err, &ce) || ce.Source != jsonrpc2.SourceTaskCancel || !strings.Contains(ce.Reason, task.TaskID) {
			t.Fatalf("work's cause: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("tasks/cancel on b never ended the work on a")
	}
	waitIdle(t, a.mgr)
	for _, e := range []*env{a, b} {
		if got := e.extGet(task.TaskID); got.Status != Cancelled {
			t.Fatalf("after cancel: %s", got.Status)
		}
	}
}

// A 2025-11-25 task created on a (bound to the session through
// Config.SessionKey, not to a's Conn) is answered by b: tasks/get, and
// tasks/result, which waits on b until a's work completes.
func TestClusterLegacyResultOnAnotherReplicaWaits(t *testing.T) {
	g := newGate()
	a, b := replicas(t, time.Minute, g.handler)
	task := a.create("t", `{}`)
	g.waitStart(t)
	if got := decodeTask(t, b.peer.roundtrip("tasks/get", idParams(task.TaskID))); got.Status != Working {
		t.Fatalf("b sees %s", got.Status)
	}
	id := b.peer.send("tasks/result", idParams(task.TaskID))
	if !b.peer.pending(id) {
		t.Fatal("tasks/result answered before the task ended")
	}
	g.release <- gateOutcome{result: textResult("done on a")}
	m := b.peer.response(id)
	if m.Error != nil || !strings.Contains(string(m.Result), "done on a") || !strings.Contains(string(m.Result), RelatedTaskKey) {
		t.Fatalf("tasks/result on b: %+v %s", m.Error, m.Result)
	}
	// tasks/list on b lists it too: the session, not the Conn, owns it.
	var list listResult
	lm := b.peer.roundtrip("tasks/list", `{}`)
	if err := json.Unmarshal(lm.Result, &list); err != nil || len(list.Tasks) != 1 || list.Tasks[0].TaskID != task.TaskID {
		t.Fatalf("tasks/list on b: %s", lm.Result)
	}
}

// A tasks/update answered on b wakes the Ask waiting on a.
func TestClusterUpdateOnAnotherReplicaWakesAsk(t *testing.T) {
	h := func(ctx context.Context, req *jsonrpc2.Request) (any, error) {
		var res struct {
			Content map[string]string `json:"content"`
		}
		if err := Ask(ctx, "elicitation/create", map[string]any{"mode": "form", "message": "name?"}, &res); err != nil {
			return nil, err
		}
		return textResult("hello " + res.Content["name"]), nil
	}
	a, b := replicas(t, time.Minute, h)
	task := a.extCreate("t")
	got := b.extAwait(task.TaskID, InputRequired)
	if len(got.InputRequests) != 1 {
		t.Fatalf("input requests seen on b: %+v", got)
	}
	var key string
	for k := range got.InputRequests {
		key = k
	}
	wantAck(t, b.peer.roundtrip("tasks/update", `{"taskId":"`+task.TaskID+`","inputResponses":{"`+key+`":{"action":"accept","content":{"name":"Ada"}}},`+metaOptIn+`}`))
	done := b.extAwait(task.TaskID, Completed)
	if !strings.Contains(string(done.Result), "hello Ada") {
		t.Fatalf("completed: %s", done.Result)
	}
}

// A replica that stops renewing (it died: here its lease loop is stopped
// and its work hangs) leaves its running task failed by the other
// replica's sweeper within Lease + Lease/3, with an error naming it; the
// dead replica's late outcome does not change the terminal state.
func TestClusterDeadReplicaTaskFailsWithinLease(t *testing.T) {
	const lease = 300 * time.Millisecond
	g := newGate()
	g.ignore = true
	a, b := replicas(t, lease, g.handler)
	task := a.extCreate("t")
	g.waitStart(t)
	a.mgr.stopCluster() // a "dies": no renewal, no bus
	start := time.Now()
	got := b.extAwait(task.TaskID, Failed)
	elapsed := time.Since(start)
	if got.Error == nil || !strings.Contains(got.Error.Message, "replica a stopped") {
		t.Fatalf("failed task's error: %+v", got.Error)
	}
	// Bound: the lease ran from creation; one more sweep period, and
	// scheduling slack for -race on a loaded machine.
	if elapsed > lease+lease/3+2*time.Second {
		t.Fatalf("failed after %v, bound %v", elapsed, lease+lease/3)
	}
	g.release <- gateOutcome{result: textResult("too late")}
	waitIdle(t, a.mgr)
	if got := b.extGet(task.TaskID); got.Status != Failed {
		t.Fatalf("late outcome changed the task: %s", got.Status)
	}
}

// A live replica's tasks are never swept: its renewals keep them running
// for several leases.
func TestClusterLiveReplicaKeepsLease(t *testing.T) {
	const lease = 150 * time.Millisecond
	g := newGate()
	a, b := replicas(t, lease, g.handler)
	task := a.extCreate("t")
	g.waitStart(t)
	time.Sleep(4 * lease) // the property is about time passing: leases expiring
	if got := b.extGet(task.TaskID); got.Status != Working {
		t.Fatalf("live task became %s: %+v", got.Status, got.Error)
	}
	g.release <- gateOutcome{result: textResult("ok")}
	b.extAwait(task.TaskID, Completed)
}

// Cancels from both replicas racing the work's own completion: exactly one
// terminal state is written, and every replica reads the same one.
func TestClusterRacingTerminalStatesOneWins(t *testing.T) {
	g := newGate()
	g.ignore = true
	a, b := replicas(t, time.Minute, g.handler)
	for range 20 {
		task := a.extCreate("t")
		g.waitStart(t)
		var wg sync.WaitGroup
		for _, e := range []*env{a, b} {
			wg.Add(1)
			go func() {
				defer wg.Done()
				e.mgr.forceCancel(task.TaskID, "race", jsonrpc2.SourceTaskCancel)
			}()
		}
		g.release <- gateOutcome{result: textResult("done")}
		wg.Wait()
		waitIdle(t, a.mgr)
		ga, gb := a.extGet(task.TaskID), b.extGet(task.TaskID)
		if !ga.Status.Terminal() || ga.Status != gb.Status || ga.LastUpdatedAt != gb.LastUpdatedAt {
			t.Fatalf("replicas disagree: %s/%s", ga.Status, gb.Status)
		}
	}
}

// A subscriptions/listen stream held by replica b that asked for a task
// running on replica a hears its status changes (notifications/tasks),
// through the bus, down to the terminal one.
func TestClusterListenOnAnotherReplicaHearsStatus(t *testing.T) {
	g := newGate()
	a, b := replicas(t, time.Minute, g.handler)
	task := a.extCreate("t")
	g.waitStart(t)
	got := make(chan extTask, 8)
	params := json.RawMessage(`{"notifications":{"taskIds":["` + task.TaskID + `"]},` + metaOptIn + `}`)
	ack, stop, err := b.mgr.listenContributor(context.Background(), params, func(method string, p any) error {
		if method == MethodExtStatus {
			got <- p.(extTask)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	defer stop()
	if ids, _ := ack["taskIds"].([]string); len(ids) != 1 || ids[0] != task.TaskID {
		t.Fatalf("listen acknowledged %v", ack)
	}
	g.release <- gateOutcome{result: textResult("done")}
	for {
		select {
		case v := <-got:
			if v.Status == Completed {
				if !strings.Contains(string(v.Result), "done") {
					t.Fatalf("terminal notification: %+v", v)
				}
				return
			}
		case <-time.After(10 * time.Second):
			t.Fatal("b's listen stream never heard the task complete on a")
		}
	}
}

// With Config.SessionKey a Conn is one replica's copy of the session: its
// end does not cancel the session's tasks, which b still serves.
func TestClusterConnEndKeepsSessionTasks(t *testing.T) {
	g := newGate()
	a, b := replicas(t, time.Minute, g.handler)
	task := a.create("t", `{}`)
	g.waitStart(t)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := a.srv.Close(ctx); err != nil {
		t.Fatal(err)
	}
	<-a.srv.Done()
	if got := decodeTask(t, b.peer.roundtrip("tasks/get", idParams(task.TaskID))); got.Status != Working {
		t.Fatalf("after a's Conn ended: %s", got.Status)
	}
	g.release <- gateOutcome{result: textResult("still done")}
	m := b.peer.roundtrip("tasks/result", idParams(task.TaskID))
	if m.Error != nil || !strings.Contains(string(m.Result), "still done") {
		t.Fatalf("tasks/result: %+v %s", m.Error, m.Result)
	}
}

// dropBus is a Bus that loses every message whose subject has prefix: what
// core NATS does to a message published while its receiver reconnects.
type dropBus struct {
	cluster.Bus
	prefix string
}

func (d dropBus) Publish(ctx context.Context, subject string, data []byte) error {
	if strings.HasPrefix(subject, d.prefix) {
		return nil
	}
	return d.Bus.Publish(ctx, subject, data)
}

// The answers of a tasks/update on b reach the Ask on a even when their
// bus message is lost: b keeps them in the record and a's lease renewal
// takes them.
func TestClusterUpdateAnswerSurvivesLostMessage(t *testing.T) {
	h := func(ctx context.Context, req *jsonrpc2.Request) (any, error) {
		var res struct {
			Content map[string]string `json:"content"`
		}
		if err := Ask(ctx, "elicitation/create", map[string]any{"mode": "form", "message": "name?"}, &res); err != nil {
			return nil, err
		}
		return textResult("hello " + res.Content["name"]), nil
	}
	store := NewMemoryStore()
	bus := cluster.NewMemoryBus()
	t.Cleanup(func() { bus.Close() })
	const lease = 300 * time.Millisecond
	mk := func(name string, b cluster.Bus) *env {
		return newEnv(t, Config{Store: store, Bus: b, Replica: name, Lease: lease, Now: time.Now},
			map[string]jsonrpc2.Handler{"tools/call": h})
	}
	a, b := mk("a", bus), mk("b", dropBus{bus, "mcp.task.input."})
	task := a.extCreate("t")
	got := b.extAwait(task.TaskID, InputRequired)
	var key string
	for k := range got.InputRequests {
		key = k
	}
	wantAck(t, b.peer.roundtrip("tasks/update", `{"taskId":"`+task.TaskID+`","inputResponses":{"`+key+`":{"action":"accept","content":{"name":"Grace"}}},`+metaOptIn+`}`))
	done := b.extAwait(task.TaskID, Completed)
	if !strings.Contains(string(done.Result), "hello Grace") {
		t.Fatalf("completed: %s", done.Result)
	}
	if rec, _ := store.Get(context.Background(), task.TaskID); rec.Answers != nil {
		t.Fatalf("answers left in the record: %v", rec.Answers)
	}
}

// A 2025-11-25 task created on a and cancelled on b: a, which holds the
// Conn of the session that asked for it, sends its
// notifications/tasks/status (cancelled) when it learns the state over the
// bus, once: a duplicate state message announces nothing more.
func TestClusterLegacyStatusNotificationFromAnotherReplica(t *testing.T) {
	g := newGate()
	store := NewMemoryStore()
	bus := cluster.NewMemoryBus()
	t.Cleanup(func() { bus.Close() })
	mk := func(name string) *env {
		return newEnv(t, Config{Store: store, Bus: bus, Replica: name, Lease: time.Minute, Now: time.Now, StatusNotifications: true,
			SessionKey: func(context.Context) (string, bool) { return "the-session", true }},
			map[string]jsonrpc2.Handler{"tools/call": g.handler})
	}
	a, b := mk("a"), mk("b")
	task := a.create("t", `{}`)
	g.waitStart(t)
	if got := decodeTask(t, b.peer.roundtrip("tasks/cancel", idParams(task.TaskID))); got.Status != Cancelled {
		t.Fatalf("tasks/cancel on b: %s", got.Status)
	}
	n := a.peer.notification(MethodStatus)
	var got Task
	if err := json.Unmarshal(n.Params, &got); err != nil || got.TaskID != task.TaskID || got.Status != Cancelled {
		t.Fatalf("status notification on a: %s", n.Params)
	}
	<-g.ctxErr
	waitIdle(t, a.mgr)
	// A duplicate of the state message (the bus may redeliver) finds the
	// session's Conn already forgotten, on the bus's goroutine (MemoryBus:
	// inside Publish), so nothing is sent: no status notification comes
	// before the tasks/get answer below.
	dup, _ := json.Marshal(busMsg{From: "b", ID: task.TaskID, Status: Cancelled})
	if err := bus.Publish(context.Background(), subjectState+cluster.SubjectToken(task.TaskID), dup); err != nil {
		t.Fatal(err)
	}
	decodeTask(t, a.peer.roundtrip("tasks/get", idParams(task.TaskID)))
	a.peer.mu.Lock()
	defer a.peer.mu.Unlock()
	for _, m := range a.peer.stash {
		if m.Method == MethodStatus {
			t.Fatalf("a second status notification: %s", m.Params)
		}
	}
}
