package natscluster

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcpgen/mcpgen/cluster/natstest"
	"github.com/mcpgen/mcpgen/runtime/jsonrpc2"
	"github.com/mcpgen/mcpgen/runtime/tasks"
	"github.com/nats-io/nats.go"
)

func taskConn(t *testing.T, url string) *nats.Conn {
	t.Helper()
	nc, err := nats.Connect(url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(nc.Close)
	return nc
}

func newTaskStore(t *testing.T, nc *nats.Conn) *TaskStore {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	s, err := NewTaskStore(ctx, nc, TaskStoreOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func record(id, owner string, created time.Time) tasks.Record {
	return tasks.Record{Task: tasks.Task{TaskID: id, Status: tasks.Working, CreatedAt: created.Format(time.RFC3339)},
		Owner: owner, Method: "tools/call", Created: created, Modern: true, Runner: "r1", LeaseUntil: created.Add(time.Minute)}
}

func TestTaskStoreCRUD(t *testing.T) {
	for _, leader := range []bool{false, true} {
		t.Run(fmt.Sprintf("leader reads %v", leader), func(t *testing.T) { testCRUD(t, leader) })
	}
}

func testCRUD(t *testing.T, leader bool) {
	srv := natstest.Start(t, natstest.Options{})
	s := newTaskStore(t, taskConn(t, srv.ClientURL()))
	s.leader = leader
	ctx := context.Background()
	now := time.Now()
	r := record("task-1", "alice", now)
	r.InputRequests = map[string]json.RawMessage{"k": json.RawMessage(`{"method":"elicitation/create"}`)}
	if err := s.Create(ctx, r); err != nil {
		t.Fatal(err)
	}
	if err := s.Create(ctx, r); err == nil {
		t.Fatal("second Create of the same id succeeded")
	}
	got, err := s.Get(ctx, "task-1")
	if err != nil || got.Owner != "alice" || string(got.InputRequests["k"]) != `{"method":"elicitation/create"}` || !got.Created.Equal(now) {
		t.Fatalf("Get: %+v %v", got, err)
	}
	if _, err := s.Get(ctx, "nope"); !errors.Is(err, tasks.ErrNotFound) {
		t.Fatalf("Get of a missing id: %v", err)
	}
	boom := errors.New("boom")
	cur, err := s.Update(ctx, "task-1", func(r *tasks.Record) error { r.Task.Status = tasks.Failed; return boom })
	if !errors.Is(err, boom) || cur.Task.Status != tasks.Working {
		t.Fatalf("failed Update: %+v %v", cur.Task, err)
	}
	up, err := s.Update(ctx, "task-1", func(r *tasks.Record) error {
		r.Task.Status, r.Err = tasks.Failed, &jsonrpc2.Error{Code: -32603, Message: "x"}
		return nil
	})
	if err != nil || up.Task.Status != tasks.Failed || up.Err.Message != "x" {
		t.Fatalf("Update: %+v %v", up, err)
	}
	if _, err := s.Update(ctx, "nope", func(*tasks.Record) error { return nil }); !errors.Is(err, tasks.ErrNotFound) {
		t.Fatalf("Update of a missing id: %v", err)
	}
	if err := s.Delete(ctx, "task-1"); err != nil {
		t.Fatal(err)
	}
	if err := s.Delete(ctx, "task-1"); err != nil {
		t.Fatalf("second Delete: %v", err)
	}
	if _, err := s.Get(ctx, "task-1"); !errors.Is(err, tasks.ErrNotFound) {
		t.Fatalf("Get after Delete: %v", err)
	}
	// Ids that are not key-safe are stored under an escaped key.
	odd := record("a.b c*>", "alice", now)
	if err := s.Create(ctx, odd); err != nil {
		t.Fatal(err)
	}
	if got, err := s.Get(ctx, "a.b c*>"); err != nil || got.Task.TaskID != "a.b c*>" {
		t.Fatalf("odd id: %+v %v", got, err)
	}
}

// List pages an owner's tasks oldest first with a cursor; other owners'
// tasks and deleted ones are not listed; a forged cursor is refused.
func TestTaskStoreList(t *testing.T) {
	srv := natstest.Start(t, natstest.Options{})
	s := newTaskStore(t, taskConn(t, srv.ClientURL()))
	ctx := context.Background()
	base := time.Now()
	for i := range 7 {
		if err := s.Create(ctx, record(fmt.Sprintf("t%d", i), "alice", base.Add(time.Duration(i)*time.Millisecond))); err != nil {
			t.Fatal(err)
		}
		if err := s.Create(ctx, record(fmt.Sprintf("u%d", i), "bob", base)); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.Delete(ctx, "t3"); err != nil {
		t.Fatal(err)
	}
	var ids []string
	cursor := ""
	for pages := 0; ; pages++ {
		recs, next, err := s.List(ctx, "alice", cursor, 2)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range recs {
			ids = append(ids, r.Task.TaskID)
		}
		if next == "" {
			break
		}
		if pages > 10 {
			t.Fatal("List never ends")
		}
		cursor = next
	}
	if fmt.Sprint(ids) != "[t0 t1 t2 t4 t5 t6]" {
		t.Fatalf("listed %v", ids)
	}
	if _, _, err := s.List(ctx, "alice", "not-a-cursor", 2); !errors.Is(err, tasks.ErrBadCursor) {
		t.Fatalf("forged cursor: %v", err)
	}
	if recs, _, err := s.List(ctx, "carol", "", 10); err != nil || len(recs) != 0 {
		t.Fatalf("unknown owner: %v %v", recs, err)
	}
}

// Concurrent Updates from several connections (replicas) each try to end
// the same working task with their own terminal state: exactly one
// succeeds, and the record holds its state.
func TestTaskStoreConcurrentUpdatesOneTerminalState(t *testing.T) {
	srv := natstest.Start(t, natstest.Options{})
	const replicas, perReplica = 4, 4
	stores := make([]*TaskStore, replicas)
	for i := range stores {
		stores[i] = newTaskStore(t, taskConn(t, srv.ClientURL()))
		stores[i].leader = i%2 == 1 // both read paths in the race
	}
	ctx := context.Background()
	for round := range 5 {
		id := fmt.Sprintf("race-%d", round)
		if err := stores[0].Create(ctx, record(id, "", time.Now())); err != nil {
			t.Fatal(err)
		}
		var wins atomic.Int32
		var winner atomic.Value
		var wg sync.WaitGroup
		for i, s := range stores {
			for j := range perReplica {
				wg.Add(1)
				go func() {
					defer wg.Done()
					msg := fmt.Sprintf("replica %d writer %d", i, j)
					_, err := s.Update(ctx, id, func(r *tasks.Record) error {
						if r.Task.Status.Terminal() {
							return errors.New("already terminal")
						}
						r.Task.Status, r.Task.StatusMessage = tasks.Cancelled, msg
						return nil
					})
					if err == nil {
						wins.Add(1)
						winner.Store(msg)
					}
				}()
			}
		}
		wg.Wait()
		if wins.Load() != 1 {
			t.Fatalf("round %d: %d updates wrote a terminal state", round, wins.Load())
		}
		got, err := stores[1].Get(ctx, id)
		if err != nil || got.Task.StatusMessage != winner.Load().(string) {
			t.Fatalf("round %d: record %+v (%v), winner %v", round, got.Task, err, winner.Load())
		}
	}
}

// A NATS server restarted on the same store directory keeps the tasks: a
// new connection reads them back, updates them and lists them.
func TestTaskStoreSurvivesServerRestart(t *testing.T) {
	dir := t.TempDir()
	srv := natstest.Start(t, natstest.Options{StoreDir: dir})
	nc := taskConn(t, srv.ClientURL())
	s := newTaskStore(t, nc)
	ctx := context.Background()
	for i := range 3 {
		if err := s.Create(ctx, record(fmt.Sprintf("keep-%d", i), "alice", time.Now())); err != nil {
			t.Fatal(err)
		}
	}
	nc.Close()
	srv.Shutdown()
	srv.WaitForShutdown()

	srv2 := natstest.Start(t, natstest.Options{StoreDir: dir})
	s2 := newTaskStore(t, taskConn(t, srv2.ClientURL()))
	for i := range 3 {
		got, err := s2.Get(ctx, fmt.Sprintf("keep-%d", i))
		if err != nil || got.Task.Status != tasks.Working || got.Owner != "alice" {
			t.Fatalf("after restart: %+v %v", got, err)
		}
	}
	if _, err := s2.Update(ctx, "keep-0", func(r *tasks.Record) error { r.Task.Status = tasks.Completed; return nil }); err != nil {
		t.Fatal(err)
	}
	recs, _, err := s2.List(ctx, "alice", "", 10)
	if err != nil || len(recs) != 3 {
		t.Fatalf("List after restart: %d %v", len(recs), err)
	}
	var leased []string
	if err := s2.Leased(ctx, func(r tasks.Record) bool { leased = append(leased, r.Task.TaskID); return true }); err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(leased) != "[keep-1 keep-2]" {
		t.Fatalf("leased after restart and one completion: %v", leased)
	}
}
