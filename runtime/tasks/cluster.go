package tasks

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"strings"
	"sync"
	"time"

	"github.com/mcpgen/mcpgen/runtime/cluster"
	"github.com/mcpgen/mcpgen/runtime/jsonrpc2"
)

// Tasks across replicas. With Config.Bus set, a Manager is one replica of a
// server whose replicas share Config.Store (e.g. natscluster.TaskStore) and
// a cluster.Bus, behind a load balancer that may send any request to any
// replica:
//
//   - tasks/get, tasks/list, tasks/update, tasks/cancel and (2025-11-25)
//     tasks/result are answered from the Store by whichever replica
//     receives them. The Store's terminal state is the authority: it is
//     written once, by a compare-and-set Update, whoever writes it.
//   - The replica that runs a task's work (its Runner) is named in the
//     record. A tasks/cancel answered elsewhere writes the cancelled state,
//     then publishes mcp.task.cancel.<SubjectToken(id)>; the runner ends the
//     work's ctx with the cause (SourceTaskCancel, the reason). If that
//     message is lost (a Bus may deliver at most once), the runner's next
//     lease renewal finds the record terminal and ends the work then: within
//     Lease/3.
//   - Every transition is published on mcp.task.state.<token>: it wakes
//     tasks/result waiting on other replicas (which also poll the Store
//     every PollInterval, so a lost message only delays them) and sends
//     notifications/tasks to subscriptions/listen streams held by other
//     replicas.
//   - notifications/tasks/status (2025-11-25, Config.StatusNotifications)
//     goes out on the Conn of the session that created the task, held by
//     the replica that created it: for a terminal state written elsewhere
//     (tasks/cancel on another replica, a sweeper), that replica sends it
//     when the state or cancel message reaches it, from the Store's
//     record, once. A lost message means no notification, which the spec
//     allows (requestors must not rely on them; they poll).
//   - A tasks/update answered on another replica than the one whose Ask
//     waits keeps the answers in the record (Record.Answers), takes the
//     answered keys out of inputRequests (as on one replica) and publishes
//     the answers on mcp.task.input.<token>; the runner's Ask returns them.
//     If that message is lost, the runner's next lease renewal (within
//     Lease/3) finds the answers in the record and hands them over.
//   - Leases: the runner renews Record.LeaseUntil (now + Lease) of each of
//     its running tasks every Lease/3. Every replica sweeps, every Lease/3,
//     the Store's leased records (LeaseScanner) and fails each task whose
//     lease has passed, with the error "task failed: replica X stopped
//     (lease expired)", in one compare-and-set that also checks the lease
//     has not been renewed meanwhile: exactly one terminal state, whichever
//     replicas sweep. A replica that dies (SIGKILL, lost host) thus leaves
//     its running tasks failed within Lease + Lease/3 (plus one Store round
//     trip), never "working" forever. Replicas' clocks must agree to well
//     within Lease. After the Store was unreachable (a NATS server
//     restart), a replica does not sweep for one Lease: leases could not be
//     renewed during the outage, and live runners get that long to renew
//     theirs before anyone judges them dead.
//
// Each replica subscribes to mcp.task.> once, so every replica sees every
// task message and ignores those about tasks it has no interest in: a
// simple design whose cost grows with replicas × task transitions, fine for
// a handful of replicas. MaxActive and the rate limit are per replica.

// DefaultLease is the lease of a running task when Config.Lease is zero.
const DefaultLease = 10 * time.Second

// LeaseScanner is implemented by Stores that can enumerate the records a
// replica claims (Runner set) and that are not terminal; the cluster
// sweeper needs it to find the tasks of replicas that died. A Store
// without it still shares tasks between replicas, but the tasks of a dead
// replica stay as they were until their ttl.
type LeaseScanner interface {
	// Leased calls fn with each such record until fn returns false.
	Leased(ctx context.Context, fn func(Record) bool) error
}

// Leased calls fn with each record that has a Runner and is not terminal.
func (s *MemoryStore) Leased(_ context.Context, fn func(Record) bool) error {
	s.mu.Lock()
	var recs []Record
	for _, r := range s.recs {
		if r.Runner != "" && !r.Task.Status.Terminal() {
			recs = append(recs, r.Record)
		}
	}
	s.mu.Unlock()
	for _, r := range recs {
		if !fn(r) {
			return nil
		}
	}
	return nil
}

// Bus subjects of task messages; the last token is SubjectToken(task id).
const (
	subjectCancel = "mcp.task.cancel."
	subjectState  = "mcp.task.state."
	subjectInput  = "mcp.task.input."
	subjectAll    = "mcp.task.>"
)

// busMsg is a task message between replicas.
type busMsg struct {
	From   string                     `json:"from"`
	ID     string                     `json:"id"`
	Status Status                     `json:"status,omitempty"`
	Reason string                     `json:"reason,omitempty"`
	Source jsonrpc2.CancelSource      `json:"source,omitempty"`
	Inputs map[string]json.RawMessage `json:"inputs,omitempty"`
}

// clusterState is a Manager's part in a cluster.
type clusterState struct {
	bus     cluster.Bus
	replica string
	lease   time.Duration
	sub     cluster.Subscription
	stop    chan struct{}
	done    chan struct{}
	once    sync.Once
	quiet   time.Time // no sweeping before this (after a Store outage)
}

// startCluster joins the cluster: subscribes to task messages and starts
// the lease loop. Called by NewManager when Config.Bus is set.
func (m *Manager) startCluster() {
	c := &clusterState{bus: m.cfg.Bus, replica: m.cfg.Replica, lease: m.cfg.Lease,
		stop: make(chan struct{}), done: make(chan struct{})}
	if c.replica == "" {
		c.replica = newID()[:8]
	}
	if c.lease <= 0 {
		c.lease = DefaultLease
	}
	m.cl = c
	sub, err := c.bus.Subscribe(subjectAll, m.onBus)
	if err != nil {
		// The Manager still serves tasks from the shared Store; only
		// cross-replica wake-ups are missing, and leases cover cancels.
		m.log.Error("tasks: cluster bus subscription failed", slog.String("error", err.Error()))
	}
	c.sub = sub
	go m.leaseLoop()
}

// stopCluster ends the lease loop and the subscription (Close).
func (m *Manager) stopCluster() {
	c := m.cl
	if c == nil {
		return
	}
	c.once.Do(func() {
		close(c.stop)
		<-c.done
		if c.sub != nil {
			_ = c.sub.Unsubscribe()
		}
	})
}

// Replica is this Manager's replica name (Config.Replica or the one it
// chose), "" outside a cluster.
func (m *Manager) Replica() string {
	if m.cl == nil {
		return ""
	}
	return m.cl.replica
}

// claim stamps a new record with this replica's lease.
func (m *Manager) claim(r *Record, now time.Time) {
	if m.cl == nil {
		return
	}
	r.Runner = m.cl.replica
	r.LeaseUntil = now.Add(m.cl.lease)
}

func (m *Manager) publish(prefix string, msg busMsg) {
	if m.cl == nil {
		return
	}
	msg.From = m.cl.replica
	data, err := json.Marshal(msg)
	if err != nil {
		return
	}
	// Best effort: leases and polling cover a lost message.
	if err := m.cl.bus.Publish(context.Background(), prefix+cluster.SubjectToken(msg.ID), data); err != nil {
		m.log.Debug("tasks: cluster publish failed", slog.String("task", msg.ID), slog.String("error", err.Error()))
	}
}

// publishCancel tells the runner of a task cancelled here to end its work.
func (m *Manager) publishCancel(id, reason string, src jsonrpc2.CancelSource) {
	m.publish(subjectCancel, busMsg{ID: id, Status: Cancelled, Reason: reason, Source: src})
}

// publishState tells the other replicas that a task changed.
func (m *Manager) publishState(rec Record) {
	m.publish(subjectState, busMsg{ID: rec.Task.TaskID, Status: rec.Task.Status, Reason: rec.Task.StatusMessage})
}

// onBus handles a task message from another replica; it runs on the bus's
// goroutine, so anything that waits on the Store goes to its own.
func (m *Manager) onBus(subject string, data []byte) {
	var msg busMsg
	if err := json.Unmarshal(data, &msg); err != nil || msg.ID == "" {
		m.log.Debug("tasks: malformed cluster message ignored", slog.String("subject", subject))
		return
	}
	if msg.From == m.cl.replica {
		return // our own: already applied here
	}
	switch {
	case strings.HasPrefix(subject, subjectCancel):
		m.endRemote(msg.ID, msg.Reason, msg.Source)
		m.wake(msg.ID)
	case strings.HasPrefix(subject, subjectState):
		if msg.Status.Terminal() {
			// Non-terminal states are the runner's own (it announces
			// them); a terminal one may have been written anywhere.
			m.announceRemote(msg.ID)
			m.wake(msg.ID)
			if msg.Status == Failed && strings.Contains(msg.Reason, "lease expired") {
				// Another replica swept a task of ours it believed dead.
				m.endRemote(msg.ID, msg.Reason, jsonrpc2.SourceLocal)
			}
		}
		m.mu.Lock()
		interested := len(m.subs[msg.ID]) > 0
		m.mu.Unlock()
		if interested {
			go func() {
				if rec, err := m.store.Get(context.Background(), msg.ID); err == nil {
					m.notifyLocal(rec)
				}
			}()
		}
	case strings.HasPrefix(subject, subjectInput):
		m.deliverInputs(msg.ID, msg.Inputs)
	}
}

// endRemote ends the work of a task that runs here and became terminal
// elsewhere; its outcome is then dropped (the Store is already terminal).
func (m *Manager) endRemote(id, reason string, src jsonrpc2.CancelSource) {
	m.mu.Lock()
	r := m.live[id]
	m.mu.Unlock()
	// Its notifications/tasks/status, if the session's Conn is here, goes
	// out from the record (whichever of this and the state message comes
	// first: the cancel subject and the state subject need not be ordered).
	m.announceRemote(id)
	if r == nil {
		return
	}
	if src == jsonrpc2.SourceUnknown {
		src = jsonrpc2.SourceTaskCancel
	}
	r.cancel(&jsonrpc2.CancelError{ID: r.request, Reason: "task " + id + ": " + reason, Source: src})
	m.log.Info("task work ended by another replica", slog.String("task", id), slog.String("reason", reason))
}

// announceRemote sends notifications/tasks/status (2025-11-25, with
// Config.StatusNotifications) for a task whose state was written on
// another replica (a tasks/cancel answered there, a sweeper that failed
// it), called when a message says it became terminal: the replica that
// created the task holds the Conn of the session that asked for it
// (announce) and is the one to tell it, from the record the Store holds.
// The terminal state is announced once, whichever message brings it first,
// and the Conn is forgotten then; without StatusNotifications, it is only
// forgotten. The extension's
// notifications/tasks go through notifyLocal.
func (m *Manager) announceRemote(id string) {
	m.mu.Lock()
	conn := m.announce[id]
	if conn != nil && !m.cfg.StatusNotifications {
		delete(m.announce, id)
	}
	m.mu.Unlock()
	if conn == nil || !m.cfg.StatusNotifications {
		return
	}
	// Off the bus's goroutine: it reads the Store.
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), m.cl.lease)
		defer cancel()
		rec, err := m.store.Get(ctx, id)
		if err != nil {
			m.log.Debug("tasks: status of a task changed elsewhere not announced", slog.String("task", id), slog.String("error", err.Error()))
			return
		}
		m.mu.Lock()
		if m.announce[id] != conn {
			m.mu.Unlock()
			return // its terminal state was announced meanwhile
		}
		if !rec.Task.Status.Terminal() {
			m.mu.Unlock()
			return // not terminal in the Store: not ours to announce
		}
		delete(m.announce, id)
		m.mu.Unlock()
		// Best effort, as on one replica: optional, and the Conn may be gone.
		_ = conn.Notify(context.Background(), MethodStatus, rec.Task)
	}()
}

// wake releases the local tasks/result calls waiting for id.
func (m *Manager) wake(id string) {
	m.mu.Lock()
	if ch := m.waiters[id]; ch != nil {
		close(ch)
		delete(m.waiters, id)
	}
	m.mu.Unlock()
}

// remoteWaiterLocked returns a channel closed when a terminal state of id is
// announced; m.mu must be held.
func (m *Manager) remoteWaiterLocked(id string) chan bool {
	ch := make(chan bool)
	m.waiters[id] = ch
	return ch
}

// remoteInputs returns the answers that no Ask of this replica waits for
// but that rec still lists: another replica's Ask waits for them. They are
// stored in the record (Record.Answers) before it returns, so that the
// runner gets them even if the bus message is lost. local are the keys
// answered here.
func (m *Manager) remoteInputs(rec Record, answers map[string]json.RawMessage, local []string) map[string]json.RawMessage {
	if m.cl == nil {
		return nil
	}
	out := map[string]json.RawMessage{}
	for k, v := range answers {
		if _, pending := rec.InputRequests[k]; pending {
			out[k] = v
		}
	}
	for _, k := range local {
		delete(out, k)
	}
	if len(out) == 0 {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), m.cl.lease)
	defer cancel()
	_, err := m.store.Update(ctx, rec.Task.TaskID, func(r *Record) error {
		if r.Answers == nil {
			r.Answers = map[string]json.RawMessage{}
		}
		for k, v := range out {
			r.Answers[k] = v
		}
		return nil
	})
	if err != nil {
		m.log.Warn("tasks: keeping answers for another replica failed", slog.String("task", rec.Task.TaskID), slog.String("error", err.Error()))
	}
	return out
}

// deliverInputs hands answers received from another replica's tasks/update
// to the Ask calls waiting here, and drops them from the record.
func (m *Manager) deliverInputs(id string, answers map[string]json.RawMessage) {
	if m.handOver(id, answers) == 0 {
		return
	}
	m.mu.Lock()
	if m.closed {
		m.mu.Unlock()
		return
	}
	m.wg.Add(1)
	m.mu.Unlock()
	go func() { // not on the bus's goroutine: it waits on the Store
		defer m.wg.Done()
		ctx, cancel := context.WithTimeout(context.Background(), m.cl.lease)
		defer cancel()
		m.store.Update(ctx, id, func(r *Record) error {
			for k := range answers {
				delete(r.Answers, k)
			}
			if len(r.Answers) == 0 {
				r.Answers = nil
			}
			return nil
		})
	}()
}

// handOver gives the Asks waiting here for id the answers they wait for,
// and returns how many it gave.
func (m *Manager) handOver(id string, answers map[string]json.RawMessage) int {
	m.mu.Lock()
	waiting := m.inputs[id]
	var chans []chan json.RawMessage
	var vals []json.RawMessage
	for k, v := range answers {
		if ch, ok := waiting[k]; ok {
			delete(waiting, k)
			chans = append(chans, ch)
			vals = append(vals, v)
		}
	}
	m.mu.Unlock()
	for i, ch := range chans {
		ch <- vals[i] // buffered
	}
	return len(chans)
}

// leaseLoop renews this replica's leases and sweeps expired ones every
// Lease/3 until stopCluster.
func (m *Manager) leaseLoop() {
	c := m.cl
	defer close(c.done)
	t := time.NewTicker(c.lease / 3)
	defer t.Stop()
	for {
		select {
		case <-c.stop:
			return
		case <-t.C:
		}
		ctx, cancel := context.WithTimeout(context.Background(), c.lease)
		ok := m.renew(ctx)
		if ok && !m.now().Before(c.quiet) {
			ok = m.sweepLeases(ctx)
		}
		if !ok {
			c.quiet = m.now().Add(c.lease)
		}
		cancel()
	}
}

var errNotOurs = errors.New("tasks: lease not ours")

// renew extends the lease of every task whose work runs here; a task found
// terminal (cancelled or failed elsewhere, the message lost) has its work
// ended. It reports whether the Store answered.
func (m *Manager) renew(ctx context.Context) bool {
	m.mu.Lock()
	ids := make([]string, 0, len(m.live))
	for id := range m.live {
		ids = append(ids, id)
	}
	m.mu.Unlock()
	ok := true
	for _, id := range ids {
		until := m.now().Add(m.cl.lease)
		m.mu.Lock()
		var waiting []string
		for k := range m.inputs[id] {
			waiting = append(waiting, k)
		}
		m.mu.Unlock()
		var taken map[string]json.RawMessage
		rec, err := m.store.Update(ctx, id, func(r *Record) error {
			if r.Task.Status.Terminal() || r.Runner != m.cl.replica {
				return errNotOurs
			}
			r.LeaseUntil = until
			// Answers another replica kept for our Asks (their bus
			// message lost): taken in the same write.
			taken = nil // fn may run again
			for _, k := range waiting {
				if v, ok := r.Answers[k]; ok {
					if taken == nil {
						taken = map[string]json.RawMessage{}
					}
					taken[k] = v
					delete(r.Answers, k)
				}
			}
			if len(r.Answers) == 0 {
				r.Answers = nil
			}
			return nil
		})
		if err == nil && taken != nil {
			m.handOver(id, taken)
		}
		switch {
		case errors.Is(err, errNotOurs):
			m.wake(id)
			m.endRemote(id, rec.Task.StatusMessage, jsonrpc2.SourceTaskCancel)
		case errors.Is(err, ErrNotFound):
			m.endRemote(id, "task deleted", jsonrpc2.SourceTaskCancel)
		case err != nil:
			ok = false
			m.log.Warn("tasks: lease renewal failed", slog.String("task", id), slog.String("error", err.Error()))
		}
	}
	return ok
}

// sweepLeases fails the leased tasks whose lease has passed. It reports
// whether the Store answered.
func (m *Manager) sweepLeases(ctx context.Context) bool {
	scan, ok := m.store.(LeaseScanner)
	if !ok {
		return true
	}
	now := m.now()
	var due []Record
	err := scan.Leased(ctx, func(r Record) bool {
		if !r.LeaseUntil.IsZero() && r.LeaseUntil.Before(now) {
			due = append(due, r)
		}
		return true
	})
	if err != nil {
		m.log.Warn("tasks: lease sweep failed", slog.String("error", err.Error()))
		return false
	}
	for _, r := range due {
		m.failExpired(ctx, r.Task.TaskID, now)
	}
	return true
}

var errLeaseLive = errors.New("tasks: lease renewed")

// failExpired fails one task whose lease passed, if it still has (the
// check and the write are one compare-and-set).
func (m *Manager) failExpired(ctx context.Context, id string, now time.Time) {
	var runner string
	rec, err := m.store.Update(ctx, id, func(r *Record) error {
		if r.Task.Status.Terminal() || r.LeaseUntil.IsZero() || !r.LeaseUntil.Before(now) {
			return errLeaseLive
		}
		runner = r.Runner
		msg := "replica " + r.Runner + " stopped (lease expired)"
		r.Task.Status, r.Task.StatusMessage, r.Task.LastUpdatedAt = Failed, msg, formatTime(now)
		r.Result, r.Err = nil, &jsonrpc2.Error{Code: jsonrpc2.CodeInternalError, Message: "task failed: " + msg}
		r.InputRequests = nil
		return nil
	})
	if err != nil {
		return // renewed, terminal, gone, or another sweeper won
	}
	m.log.Warn("task failed: its replica's lease expired", slog.String("task", id), slog.String("replica", runner))
	m.wake(id)
	if runner == m.cl.replica {
		m.endRemote(id, rec.Task.StatusMessage, jsonrpc2.SourceLocal)
	}
	m.notifyExt(rec)
}
