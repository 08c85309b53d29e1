package tasks

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpgen/mcpgen/runtime/jsonrpc2"
)

// TestStressCancelRacesCompletion races tasks/cancel against the work's
// completion for many tasks at once (run it with -race) and checks that each
// task has exactly one terminal state, consistent everywhere: the
// tasks/cancel answer, tasks/get, tasks/result and the status notifications.
func TestStressCancelRacesCompletion(t *testing.T) {
	const rounds, perRound = 5, 200
	e, g := gateEnv(t, Config{StatusNotifications: true, RateLimit: RateLimit{PerSecond: -1}})
	var cancelled, completed int
	for r := 0; r < rounds; r++ {
		ids := make([]string, perRound)
		for i := range ids {
			ids[i] = e.create("t", `{}`).TaskID
			g.waitStart(t)
		}
		// Fire both sides of every race before reading any answer.
		cancels := make([]int, perRound)
		for i, id := range ids {
			cancels[i] = e.peer.send("tasks/cancel", idParams(id))
			g.release <- gateOutcome{result: textResult("done")}
		}
		for i, id := range ids {
			m := e.peer.response(cancels[i])
			got := decodeTaskOrNil(m)
			final := decodeTask(t, e.peer.roundtrip("tasks/get", idParams(id)))
			res := e.peer.roundtrip("tasks/result", idParams(id))
			switch {
			case m.Error == nil && got.Status == Cancelled:
				cancelled++
				if final.Status != Cancelled || res.Error == nil {
					t.Fatalf("task %s: cancel succeeded, then status %s, result %s", id, final.Status, res.Result)
				}
			case m.Error != nil && m.Error.Code == jsonrpc2.CodeInvalidParams:
				completed++
				if final.Status != Completed || res.Error != nil {
					t.Fatalf("task %s: cancel refused (%s), then status %s", id, m.Error.Message, final.Status)
				}
			default:
				t.Fatalf("task %s: tasks/cancel answered %+v", id, m)
			}
		}
		// Exactly one terminal status notification per task. The work's
		// goroutine may still be sending the last one, so wait for each.
		for range ids {
			e.peer.next("terminal status notification", func(m msg) bool {
				if m.Method != MethodStatus {
					return false
				}
				var task Task
				json.Unmarshal(m.Params, &task)
				return task.Status.Terminal()
			})
		}
		if !e.peer.pending(-1) { // flush what arrived
			t.Fatal("unexpected")
		}
		e.peer.mu.Lock()
		for _, m := range e.peer.stash {
			var task Task
			json.Unmarshal(m.Params, &task)
			if m.Method == MethodStatus && task.Status.Terminal() {
				t.Fatalf("second terminal notification for %s: %s", task.TaskID, task.Status)
			}
		}
		e.peer.stash = nil
		e.peer.mu.Unlock()
	}
	t.Logf("%d tasks: %d cancelled, %d completed, each exactly once", rounds*perRound, cancelled, completed)
}

func decodeTaskOrNil(m msg) Task {
	var task Task
	if m.Error == nil {
		json.Unmarshal(m.Result, &task)
	}
	return task
}

// TestStressHandlesCancelRacesCompletion: many requestor goroutines, each
// with its own Handle over real Conns, cancel while their work completes.
// Each task's outcome must be one and the same everywhere: Cancel
// succeeded ⇔ the task is cancelled ⇔ Result is an error.
func TestStressHandlesCancelRacesCompletion(t *testing.T) {
	const n = 300
	g := newGate()
	g.started = make(chan string, n)
	g.release = make(chan gateOutcome, n)
	g.ctxErr = make(chan error, n)
	a, b := jsonrpc2.NewPipe()
	d := newDuo(t, a, b, Config{PollInterval: time.Millisecond, RateLimit: RateLimit{PerSecond: -1}, MaxActive: -1},
		map[string]jsonrpc2.Handler{"tools/call": g.handler}, nil)
	var mu sync.Mutex
	var cancelled, completed int
	var wg sync.WaitGroup
	errc := make(chan error, n)
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ctx := context.Background()
			h, err := Start[result](ctx, d.client, "tools/call", map[string]any{"name": "t"})
			if err != nil {
				errc <- err
				return
			}
			g.release <- gateOutcome{result: textResult("done")}
			_, cerr := h.Cancel(ctx)
			res, rerr := h.Result(ctx)
			st := h.Task().Status
			mu.Lock()
			defer mu.Unlock()
			switch {
			case cerr == nil && st == Cancelled && rerr != nil:
				cancelled++
			case cerr != nil && st == Completed && rerr == nil && res.Content[0].Text == "done":
				completed++
			default:
				errc <- fmt.Errorf("task %s: cancel %v, status %s, result %v", h.ID(), cerr, st, rerr)
			}
		}()
	}
	wg.Wait()
	close(errc)
	for err := range errc {
		t.Error(err)
	}
	t.Logf("%d handles: %d cancelled, %d completed", n, cancelled, completed)
}

// TestStressExtCancelRacesCompletion is TestStressCancelRacesCompletion for
// the Tasks extension (2026-07-28): 1,000 tasks, each with a tasks/cancel
// racing its work's completion. The extension acknowledges every cancel, so
// the outcome is read from tasks/get once all work has returned: each task
// is cancelled (no result, and it stays so) or completed (with the work's
// result), never both, never changed afterwards.
func TestStressExtCancelRacesCompletion(t *testing.T) {
	const rounds, perRound = 5, 200
	e, g := gateEnv(t, Config{RateLimit: RateLimit{PerSecond: -1}, MaxActive: -1})
	var cancelled, completed int
	for r := 0; r < rounds; r++ {
		ids := make([]string, perRound)
		for i := range ids {
			ids[i] = e.extCreate("t").TaskID
			g.waitStart(t)
		}
		cancels := make([]int, perRound)
		for i, id := range ids {
			cancels[i] = e.peer.send("tasks/cancel", extID(id, true))
			g.release <- gateOutcome{result: textResult("done")}
		}
		for i := range ids {
			wantAck(t, e.peer.response(cancels[i]))
		}
		waitIdle(t, e.mgr)
		for _, id := range ids {
			first := e.extGet(id)
			switch {
			case first.Status == Cancelled && first.Result == nil && first.Error == nil:
				cancelled++
			case first.Status == Completed && strings.Contains(string(first.Result), "done"):
				completed++
			default:
				t.Fatalf("task %s: %+v", id, first)
			}
			if again := e.extGet(id); again.Status != first.Status {
				t.Fatalf("task %s: %s, then %s", id, first.Status, again.Status)
			}
		}
		for len(g.ctxErr) > 0 { // the cancelled ones' causes: drained, checked elsewhere
			<-g.ctxErr
		}
	}
	t.Logf("%d tasks: %d cancelled, %d completed, each exactly once", rounds*perRound, cancelled, completed)
}

// TestDefaultRateLimitAdmitsPollingEveryActiveTask: with the defaults, a
// requestor holding the most running tasks it may (MaxActive, 256) and
// polling each once per advertised pollInterval is never refused, in either
// era; DefaultRateLimit's formula (2 × MaxActive / pollInterval) is what
// makes that so, and a requestor polling at more than twice that rate is
// refused.
func TestDefaultRateLimitAdmitsPollingEveryActiveTask(t *testing.T) {
	if got := DefaultRateLimit(0, 0); got != (RateLimit{PerSecond: 512, Burst: 512}) {
		t.Fatalf("DefaultRateLimit(defaults) = %+v", got)
	}
	if got := DefaultRateLimit(100, 5*time.Second); got != (RateLimit{PerSecond: 40, Burst: 200}) {
		t.Fatalf("DefaultRateLimit(100, 5s) = %+v", got)
	}
	for _, modern := range []bool{false, true} {
		t.Run(fmt.Sprintf("modern=%v", modern), func(t *testing.T) {
			g := newGate()
			g.started = make(chan string, 256)
			e := newEnv(t, Config{}, map[string]jsonrpc2.Handler{"tools/call": g.handler})
			ids := make([]string, 256)
			for i := range ids {
				if modern {
					ids[i] = e.extCreate("t").TaskID
				} else {
					ids[i] = e.create("t", `{}`).TaskID
				}
			}
			get := func(id string) msg {
				if modern {
					return e.peer.roundtrip("tasks/get", extID(id, true))
				}
				return e.peer.roundtrip("tasks/get", idParams(id))
			}
			for round := 0; round < 5; round++ {
				e.clock.Advance(time.Second) // the advertised pollInterval
				for _, id := range ids {
					if m := get(id); m.Error != nil {
						t.Fatalf("round %d: polling %s refused: %d %s", round, id, m.Error.Code, m.Error.Message)
					}
				}
			}
			// More than the headroom within one interval is refused.
			refused := false
			for i := 0; i < 3 && !refused; i++ {
				for _, id := range ids {
					if m := get(id); m.Error != nil && m.Error.Code == CodeRateLimited {
						refused = true
						break
					}
				}
			}
			if !refused {
				t.Fatal("no refusal at three polls per task per interval")
			}
			for range ids {
				g.release <- gateOutcome{result: textResult("x")}
			}
		})
	}
}
