package tasks

import (
	"context"
	"log/slog"
	"time"

	"github.com/mcpgen/mcpgen/runtime/jsonrpc2"
)

// Drain is Close for a replica that is shutting down gracefully (SIGTERM
// in a rolling restart): the tasks running here get up to grace (or until
// ctx ends) to finish, then each one still running ends failed, in the
// Store, with the status message "replica R shut down: the task ran past
// its drain grace (G)" (and that error as its result), and its work's ctx
// ends with jsonrpc2.SourceClose and the same reason; then Close.
//
// Tasks are finished, not taken over: a task's work is its handler
// running on this replica, with whatever effects it has had so far, and
// the runtime holds no checkpoint another replica could resume from, so
// running it again elsewhere could do its work twice. What Drain adds to
// a crash (where the other replicas' sweeper fails the task once its
// lease passes, Lease + Lease/3 later) is that every task gets the grace
// to complete, and the one that cannot is terminal at once, with a reason
// the requestor reads from any replica (tasks/get, tasks/result, and
// notifications/tasks/status where it goes out).
//
// Drain does not refuse new tasks itself: the transport stops taking new
// requests when its own drain begins (streamhttp.Handler.Drain), and a
// task created meanwhile is waited for like the others.
//
// A 2025-11-25 task is bound to its session's Conn unless Config.SessionKey
// names the session: then it ends with the Conn, and a replica's
// Handler.Drain closes its sessions' local copies as soon as their
// requests are done, which would cancel such tasks before their grace.
// Replicas set SessionKey (as cluster/examples/cluster does), so a
// session's tasks belong to the session, not to this replica's copy.
func (m *Manager) Drain(ctx context.Context, grace time.Duration) error {
	done := make(chan struct{})
	go func() { m.wg.Wait(); close(done) }()
	t := time.NewTimer(grace)
	defer t.Stop()
	select {
	case <-done:
	case <-t.C:
	case <-ctx.Done():
	}
	m.mu.Lock()
	ids := make([]string, 0, len(m.live))
	for id := range m.live {
		ids = append(ids, id)
	}
	m.mu.Unlock()
	msg := "replica " + m.Replica() + " shut down: the task ran past its drain grace (" + grace.String() + ")"
	for _, id := range ids {
		rec, err := m.transition(context.WithoutCancel(ctx), id, Failed, msg, func(r *Record) {
			r.Result, r.Err = nil, &jsonrpc2.Error{Code: jsonrpc2.CodeInternalError, Message: "task failed: " + msg}
			r.InputRequests = nil
		})
		m.mu.Lock()
		r := m.live[id]
		m.mu.Unlock()
		if err != nil || r == nil {
			continue // finished or cancelled meanwhile
		}
		m.log.Warn("task failed: it ran past the drain grace", slog.String("task", id), slog.Duration("grace", grace))
		r.cancel(&jsonrpc2.CancelError{ID: r.request, Method: rec.Method, Reason: "task " + id + ": " + msg, Source: jsonrpc2.SourceClose})
	}
	return m.Close(ctx)
}
