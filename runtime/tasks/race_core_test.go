package tasks

import (
	"context"
	"encoding/json"
	"sync"
	"testing"
	"time"

	"github.com/mcpgen/mcpgen/runtime/jsonrpc2"
)

// preStore runs before(rec, next) ahead of an Update, with the record as it
// is and as fn would leave it (fn is pure on a copy, and the Manager allows
// a Store to call it more than once), so a test can hold the updating
// goroutine just before a given transition lands.
type preStore struct {
	*MemoryStore
	before func(cur, next Record)
}

func (s *preStore) Update(ctx context.Context, id string, fn func(*Record) error) (Record, error) {
	if cur, err := s.MemoryStore.Get(ctx, id); err == nil {
		next := cur
		next.InputRequests = nil
		if fn(&next) == nil {
			s.before(cur, next)
		}
	}
	return s.MemoryStore.Update(ctx, id, fn)
}

// A core (2025-11-25) task's Ask that starts while the previous one ends
// keeps the task input_required: the end's move back to working and the
// start's move to input_required are ordered with the count of outstanding
// requests. The store holds the ending Ask's move to working until the new
// request reaches the requestor; a Manager that orders them never lets it
// get there, so the hold gives up after a bound (there is no event for "a
// goroutine is blocked on a mutex"), and the move to working then precedes
// the new request's move to input_required. Before the fix the new request
// went out first and the task then read working with it outstanding.
func TestCoreAskStartingWhileOneEndsStaysInputRequired(t *testing.T) {
	startB := make(chan struct{})
	bSeen := make(chan struct{})
	var once sync.Once
	st := &preStore{MemoryStore: NewMemoryStore()}
	st.before = func(cur, next Record) {
		if cur.Task.Status != InputRequired || next.Task.Status != Working {
			return
		}
		once.Do(func() {
			close(startB)
			select {
			case <-bSeen:
			case <-time.After(300 * time.Millisecond):
			}
		})
	}
	aDone := make(chan error, 1)
	bDone := make(chan error, 1)
	e := newEnv(t, Config{Store: st}, map[string]jsonrpc2.Handler{"tools/call": func(ctx context.Context, req *jsonrpc2.Request) (any, error) {
		ask := func(msg string, done chan<- error) {
			var answer json.RawMessage
			done <- Ask(ctx, "elicitation/create", map[string]any{"message": msg, "requestedSchema": map[string]any{"type": "object"}}, &answer)
		}
		go ask("a", aDone)
		<-startB
		ask("b", bDone)
		return json.RawMessage(`{"content":[]}`), <-bDone
	}})
	task := e.create("t", `{}`)
	reqA := e.peer.request("elicitation/create")
	e.peer.write(`{"jsonrpc":"2.0","id":` + string(reqA.ID) + `,"result":{"action":"accept","content":{}}}`)
	reqB := e.peer.request("elicitation/create")
	close(bSeen)
	if err := <-aDone; err != nil {
		t.Fatal(err)
	}
	if got := decodeTask(t, e.peer.roundtrip("tasks/get", idParams(task.TaskID))); got.Status != InputRequired {
		t.Fatalf("status with the second request outstanding: %s, want input_required", got.Status)
	}
	e.peer.write(`{"jsonrpc":"2.0","id":` + string(reqB.ID) + `,"result":{"action":"accept","content":{}}}`)
	if m := e.peer.roundtrip("tasks/result", idParams(task.TaskID)); m.Error != nil {
		t.Fatalf("result %+v", m)
	}
}
