package tasks

// Races between an extension task's input requests (Ask) and their answers
// (tasks/update), made deterministic with a Store that holds an Update's
// caller at the point where another goroutine's update could slip in. The
// conformance suite's tasks-mrtr-input (tasks-mrtr-partial-fulfillment,
// the multi_input fixture: two Asks at once) met the first of them about
// once in 40 runs: one Ask saw the task still working, the other moved it
// to input_required, and the first then tried the now-invalid
// input_required -> input_required move and failed, so only one of the two
// requests was ever listed.

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpgen/mcpgen/runtime/jsonrpc2"
)

// hookStore is a MemoryStore whose Update calls after once the update is
// done (outside the store's lock), with the status the record had when fn
// saw it, so a test can hold the updating goroutine right there.
type hookStore struct {
	*MemoryStore
	after func(before Status, rec Record, err error)
}

func (s *hookStore) Update(ctx context.Context, id string, fn func(*Record) error) (Record, error) {
	var before Status
	rec, err := s.MemoryStore.Update(ctx, id, func(r *Record) error {
		before = r.Task.Status
		return fn(r)
	})
	s.after(before, rec, err)
	return rec, err
}

// Two Asks of one task at once (multi_input): whichever order their store
// updates take, both requests are listed in inputRequests and the task is
// input_required. The store holds any update refused while the task is
// still working until a second one is refused too: that is the
// interleaving where both Asks read "working" before either wrote
// "input_required". A correct Manager reads and writes the status in one
// update, so nothing is refused and nothing is held.
func TestExtConcurrentAsksBothListed(t *testing.T) {
	var mu sync.Mutex
	refused := 0
	both := make(chan struct{})
	st := &hookStore{MemoryStore: NewMemoryStore()}
	st.after = func(before Status, _ Record, err error) {
		if err == nil || before != Working {
			return
		}
		mu.Lock()
		refused++
		n := refused
		mu.Unlock()
		if n == 2 {
			close(both)
			return
		}
		select { // the other Ask's update is on its way
		case <-both:
		case <-time.After(10 * time.Second):
		}
	}
	askErr := make(chan error, 2)
	h := func(ctx context.Context, req *jsonrpc2.Request) (any, error) {
		var wg sync.WaitGroup
		for _, q := range []string{"first", "second"} {
			wg.Add(1)
			go func() {
				defer wg.Done()
				if err := Ask(ctx, "elicitation/create", map[string]any{"mode": "form", "message": q}, nil); err != nil {
					askErr <- err
				}
			}()
		}
		wg.Wait()
		return textResult("both answered"), nil
	}
	e := newEnv(t, Config{Store: st}, map[string]jsonrpc2.Handler{"tools/call": h})
	task := e.extCreate("t")
	deadline := time.Now().Add(10 * time.Second)
	var got extTask
	for got = e.extGet(task.TaskID); len(got.InputRequests) < 2; got = e.extGet(task.TaskID) {
		select {
		case err := <-askErr:
			t.Fatalf("an Ask failed while the other one was asking: %v (tasks/get: %+v)", err, got)
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("inputRequests never listed both requests: %+v", got)
		}
		time.Sleep(time.Millisecond) // polling is what a requestor does
	}
	if got.Status != InputRequired {
		t.Fatalf("status %s with two outstanding requests", got.Status)
	}
	var keys []string
	for k := range got.InputRequests {
		keys = append(keys, `"`+k+`":{"action":"accept"}`)
	}
	wantAck(t, e.peer.roundtrip("tasks/update", `{"taskId":"`+task.TaskID+`","inputResponses":{`+strings.Join(keys, ",")+`},`+metaOptIn+`}`))
	if done := e.extAwait(task.TaskID, Completed); !strings.Contains(string(done.Result), "both answered") {
		t.Fatalf("completed: %+v", done)
	}
}

// An answer that leaves no request pending while the work asks again: the
// new request is listed and the task is input_required, never working with
// a request nobody can see. The store holds tasks/update right after the
// update that took the last pending request out of the record until the
// work's next Ask has been recorded: if "answered" and "working" are two
// updates, that Ask lands between them and the second one hides it.
func TestExtAnswerRacingNextAskKeepsItListed(t *testing.T) {
	answered := make(chan struct{})
	goOn := make(chan struct{})
	added := make(chan string, 1)
	var once, addOnce sync.Once
	st := &hookStore{MemoryStore: NewMemoryStore()}
	st.after = func(before Status, rec Record, err error) {
		if err != nil {
			return
		}
		for k, raw := range rec.InputRequests {
			if strings.Contains(string(raw), `"second"`) {
				addOnce.Do(func() { added <- k })
			}
		}
		if before == InputRequired && len(rec.InputRequests) == 0 {
			once.Do(func() {
				close(answered)
				select {
				case <-goOn:
				case <-time.After(10 * time.Second):
				}
			})
		}
	}
	askSecond := make(chan struct{})
	h := func(ctx context.Context, req *jsonrpc2.Request) (any, error) {
		first := make(chan error, 1)
		go func() { first <- Ask(ctx, "elicitation/create", map[string]any{"message": "first"}, nil) }()
		select {
		case <-askSecond:
		case <-ctx.Done():
			return nil, context.Cause(ctx)
		}
		if err := Ask(ctx, "elicitation/create", map[string]any{"message": "second"}, nil); err != nil {
			return nil, err
		}
		if err := <-first; err != nil {
			return nil, err
		}
		return textResult("both answered"), nil
	}
	e := newEnv(t, Config{Store: st}, map[string]jsonrpc2.Handler{"tools/call": h})
	task := e.extCreate("t")
	got := e.extAwait(task.TaskID, InputRequired)
	var firstKey string
	for k := range got.InputRequests {
		firstKey = k
	}
	id := e.peer.send("tasks/update", `{"taskId":"`+task.TaskID+`","inputResponses":{"`+firstKey+`":{"action":"accept"}},`+metaOptIn+`}`)
	select {
	case <-answered:
	case <-time.After(10 * time.Second):
		t.Fatal("tasks/update never took the answered request out of the record")
	}
	close(askSecond)
	second := <-added
	close(goOn)
	wantAck(t, e.peer.response(id))
	if got = e.extGet(task.TaskID); got.Status != InputRequired || got.InputRequests[second] == nil || got.InputRequests[firstKey] != nil {
		t.Fatalf("after the answer and the next Ask: %+v, want input_required listing only %s", got, second)
	}
	wantAck(t, e.peer.roundtrip("tasks/update", `{"taskId":"`+task.TaskID+`","inputResponses":{"`+second+`":{"action":"accept"}},`+metaOptIn+`}`))
	if done := e.extAwait(task.TaskID, Completed); !strings.Contains(string(done.Result), "both answered") {
		t.Fatalf("completed: %+v", done)
	}
}
