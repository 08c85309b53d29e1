package tasks

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/mcpgen/mcpgen/runtime/jsonrpc2"
)

// TestDrainFinishesOrFails: of two tasks running on replica a when it
// drains, the one whose work ends within the grace completes; the other
// ends failed at the grace's end, with a reason that replica b reports at
// once (no lease to wait for), and its work's ctx names the drain.
func TestDrainFinishesOrFails(t *testing.T) {
	g := newGate()
	a, b := replicas(t, time.Minute, g.handler)
	first := a.extCreate("t")
	g.waitStart(t)
	second := a.extCreate("t")
	g.waitStart(t)

	const grace = 300 * time.Millisecond
	drained := make(chan error, 1)
	go func() { drained <- a.mgr.Drain(context.Background(), grace) }()
	g.release <- gateOutcome{result: textResult("done within the grace")}
	var cause error
	select {
	case cause = <-g.ctxErr:
	case <-time.After(10 * time.Second):
		t.Fatal("the task past the grace was not cancelled")
	}
	var ce *jsonrpc2.CancelError
	if !errors.As(cause, &ce) || ce.Source != jsonrpc2.SourceClose || !strings.Contains(ce.Reason, "drain grace") {
		t.Fatalf("work's cause: %v", cause)
	}
	select {
	case err := <-drained:
		if err != nil {
			t.Fatalf("Drain: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Drain did not return")
	}
	got := map[Status]extTask{}
	for _, id := range []string{first.TaskID, second.TaskID} {
		task := b.extGet(id)
		got[task.Status] = task
	}
	if c, ok := got[Completed]; !ok || !strings.Contains(string(c.Result), "done within the grace") {
		t.Errorf("no task completed within the grace: %+v", got)
	}
	f, ok := got[Failed]
	if !ok || !strings.Contains(f.StatusMessage, "replica a shut down: the task ran past its drain grace") ||
		f.Error == nil || !strings.Contains(f.Error.Message, "drain grace") {
		t.Errorf("no task failed with the drain's reason: %+v", got)
	}
}
