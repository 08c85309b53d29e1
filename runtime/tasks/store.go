package tasks

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"maps"
	"sort"
	"strconv"
	"sync"
	"time"

	"github.com/mcpgen/mcpgen/runtime/jsonrpc2"
)

// Record is what a Store keeps for one task: its wire state, who may see it,
// when it expires, and the outcome tasks/result returns.
type Record struct {
	Task Task
	// Owner is the binding key (session and authorization context); empty
	// for unbound tasks.
	Owner string
	// Method is the underlying request's method.
	Method string
	// Created orders tasks for tasks/list; Expires is zero for no expiry.
	Created, Expires time.Time
	// Result or Err is the underlying request's outcome once terminal.
	Result json.RawMessage
	Err    *jsonrpc2.Error
	// Modern marks a Tasks extension (2026-07-28) task; InputRequests are
	// its outstanding input requests (tasks/get's inputRequests), by key.
	Modern        bool
	InputRequests map[string]json.RawMessage
	// Runner is the replica (Config.Replica) whose process runs the task's
	// work, and LeaseUntil when that replica's claim ends unless renewed
	// (Config.Lease); both are empty outside a cluster. A task still
	// running once its lease has passed is failed by any replica's sweeper
	// (cluster.go).
	Runner     string
	LeaseUntil time.Time
	// Answers are tasks/update answers received by another replica than
	// the Runner, by inputRequests key, kept until the Runner's Ask takes
	// them (cluster.go): the bus message that carries them is only the
	// fast path.
	Answers map[string]json.RawMessage
}

// ErrNotFound is returned by a Store for an id it does not hold.
var ErrNotFound = errors.New("tasks: task not found")

// ErrBadCursor is returned by Store.List for a cursor it did not issue.
var ErrBadCursor = errors.New("tasks: invalid cursor")

// Store keeps task records. Every method must be safe for concurrent use, and
// Update must be atomic: the Manager's exactly-one-terminal-state guarantee
// rests on it. Returned records are copies the caller may keep (a record's
// maps and slices must not be shared with the Store's own copy).
//
// Durable creation: the Manager answers a CreateTaskResult only after Create
// has returned nil, and the extension (SEP-2663, Task Creation) forbids
// answering before "a tasks/get for the returned taskId would resolve". So
// Create must return only once every instance that may serve the task's
// tasks/get (any process behind the same load balancer, after a restart if
// the Store promises that) reads the record with Get: for a replicated or
// eventually-consistent store, after the write is acknowledged by enough
// replicas to be read back. A Store that cannot promise this must fail Create.
type Store interface {
	// Create adds a record; it fails if the id exists.
	Create(ctx context.Context, r Record) error
	// Get returns the record with this id, or ErrNotFound.
	Get(ctx context.Context, id string) (Record, error)
	// Update applies fn to the record atomically and stores the result
	// unless fn returns an error, which Update then returns.
	Update(ctx context.Context, id string, fn func(*Record) error) (Record, error)
	// Delete removes the record; deleting a missing id is not an error.
	Delete(ctx context.Context, id string) error
	// List returns up to limit records of owner, oldest first, starting
	// after cursor ("" for the first page), and the cursor of the next page
	// ("" when there is none). The cursor format is the Store's own.
	List(ctx context.Context, owner, cursor string, limit int) ([]Record, string, error)
}

// NewMemoryStore returns an empty MemoryStore.
func NewMemoryStore() *MemoryStore { return &MemoryStore{recs: map[string]*memRec{}} }

type memRec struct {
	Record
	seq uint64
}

// MemoryStore is the in-memory Store the Manager uses by default: records
// live as long as the process, in one map behind one mutex. It is
// process-local: a task it holds is "durably created" only for requests that
// reach this process, and is gone when the process exits. A server behind a
// load balancer, or one whose tasks must survive a restart, needs a Store
// shared by its instances (Mcp-Name routes task requests by task id, which
// helps a balancer keep a task's requests on one instance, but is no
// substitute).
type MemoryStore struct {
	mu   sync.Mutex
	seq  uint64
	recs map[string]*memRec
}

// Create adds r; it fails if its task id exists.
func (s *MemoryStore) Create(_ context.Context, r Record) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.recs[r.Task.TaskID]; ok {
		return errors.New("tasks: duplicate task id")
	}
	s.seq++
	s.recs[r.Task.TaskID] = &memRec{Record: r, seq: s.seq}
	return nil
}

// Get returns the record with this id, or ErrNotFound.
func (s *MemoryStore) Get(_ context.Context, id string) (Record, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	r, ok := s.recs[id]
	if !ok {
		return Record{}, ErrNotFound
	}
	out := r.Record
	out.InputRequests = maps.Clone(out.InputRequests)
	out.Answers = maps.Clone(out.Answers)
	return out, nil
}

// Update applies fn to a copy of the record and stores the copy unless fn
// returns an error; the mutex is held throughout, so updates are atomic.
func (s *MemoryStore) Update(_ context.Context, id string, fn func(*Record) error) (Record, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	r, ok := s.recs[id]
	if !ok {
		return Record{}, ErrNotFound
	}
	next := r.Record
	next.InputRequests = maps.Clone(next.InputRequests)
	next.Answers = maps.Clone(next.Answers)
	if err := fn(&next); err != nil {
		return r.Record, err
	}
	r.Record = next
	out := next
	out.InputRequests = maps.Clone(next.InputRequests)
	out.Answers = maps.Clone(next.Answers)
	return out, nil
}

// Delete removes the record; deleting a missing id is not an error.
func (s *MemoryStore) Delete(_ context.Context, id string) error {
	s.mu.Lock()
	delete(s.recs, id)
	s.mu.Unlock()
	return nil
}

// List returns up to limit records of owner, oldest first. It pages by
// creation sequence, so tasks created or deleted between pages
// neither repeat nor shift the page boundary. The cursor is the last
// sequence number, base64-encoded: opaque to the requestor, checked here.
func (s *MemoryStore) List(_ context.Context, owner, cursor string, limit int) ([]Record, string, error) {
	var after uint64
	if cursor != "" {
		b, err := base64.RawURLEncoding.DecodeString(cursor)
		if err != nil || len(b) < 2 || b[0] != 'c' {
			return nil, "", ErrBadCursor
		}
		after, err = strconv.ParseUint(string(b[1:]), 10, 64)
		if err != nil {
			return nil, "", ErrBadCursor
		}
	}
	s.mu.Lock()
	var all []*memRec
	for _, r := range s.recs {
		if r.Owner == owner && r.seq > after {
			all = append(all, r)
		}
	}
	sort.Slice(all, func(i, j int) bool { return all[i].seq < all[j].seq })
	next := ""
	if limit > 0 && len(all) > limit {
		all = all[:limit]
		next = base64.RawURLEncoding.EncodeToString([]byte("c" + strconv.FormatUint(all[limit-1].seq, 10)))
	}
	out := make([]Record, len(all))
	for i, r := range all {
		out[i] = r.Record
	}
	s.mu.Unlock()
	return out, next, nil
}

// MemoryStore is a Store.
var _ Store = (*MemoryStore)(nil)
