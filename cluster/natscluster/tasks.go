package natscluster

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/mcpgen/mcpgen/runtime/tasks"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// TaskStoreOptions configures NewTaskStore.
type TaskStoreOptions struct {
	// Bucket is the JetStream key-value bucket; "" means "mcp-tasks". It
	// is created if missing (file storage, history 1).
	Bucket string
	// Replicas is the bucket's replication factor in a NATS cluster; 0
	// means 1. Create returns once JetStream acknowledged the write, which
	// for Replicas > 1 means a quorum of servers stored it.
	Replicas int
	// MaxAge, if set, is the bucket's TTL: a hard bound on how long any
	// entry lives, whatever its task's ttl. Records normally go earlier:
	// the Manager deletes a task once its ttl (Record.Expires) has passed.
	// Set it above Config.MaxTTL so that tasks whose creating replica
	// stopped are not kept for ever.
	MaxAge time.Duration
	// Memory keeps the bucket in memory instead of on disk (tests,
	// benchmarks): a NATS server restart then loses it.
	Memory bool
	// LeaderReads reads records from the stream's leader (JetStream's
	// message-get API) instead of KV direct gets, which any server holding
	// the stream answers and which may lag a just-acknowledged write by a
	// moment. It is on whenever Replicas > 1, so that a tasks/get right
	// after a CreateTaskResult finds the task on whichever server answers.
	LeaderReads bool
}

// TaskStore is a tasks.Store on a JetStream key-value bucket, shared by
// every replica connected to the same NATS system. Its keys are:
//
//	t.<id>                        the record (JSON), one revision per update
//	o.<owner hash>.<created>.<id> the owner index tasks/list pages through
//	r.<id>                        present while the task is leased and not terminal
//
// Create is KV Create (fails if the id exists) and returns only after
// JetStream acknowledged it: a tasks/get on any replica then finds the
// task, as the Tasks extension's durable creation requires. Update is a
// compare-and-set loop on the entry's revision, so concurrent updates from
// any replicas are applied one after the other, never lost: the Manager's
// "exactly one terminal state" holds across processes. List reads the
// owner's index keys (a key listing filtered by the owner's hash: its cost
// is the number of that owner's live tasks, not of the bucket) and fetches
// one page of records. Expiry: records carry their ttl (Record.Expires) and
// the Manager deletes expired ones when it meets them; MaxAge bounds the
// rest.
type TaskStore struct {
	kv     jetstream.KeyValue
	nc     *nats.Conn
	bucket string
	leader bool // read through the stream leader (LeaderReads)
}

// NewTaskStore opens (creating if needed) the bucket on nc's JetStream.
func NewTaskStore(ctx context.Context, nc *nats.Conn, o TaskStoreOptions) (*TaskStore, error) {
	js, err := jetstream.New(nc)
	if err != nil {
		return nil, fmt.Errorf("natscluster: task store: %w", err)
	}
	if o.Bucket == "" {
		o.Bucket = "mcp-tasks"
	}
	cfg := jetstream.KeyValueConfig{Bucket: o.Bucket, History: 1, TTL: o.MaxAge, Replicas: o.Replicas,
		Storage: jetstream.FileStorage, Description: "mcpgen task records"}
	if o.Memory {
		cfg.Storage = jetstream.MemoryStorage
	}
	kv, err := js.CreateOrUpdateKeyValue(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("natscluster: task store bucket %q: %w", o.Bucket, err)
	}
	return &TaskStore{kv: kv, nc: nc, bucket: o.Bucket, leader: o.LeaderReads || o.Replicas > 1}, nil
}

// leaderGet reads the last message of key through the stream leader:
// $JS.API.STREAM.MSG.GET, not the direct-get API that followers answer.
func (s *TaskStore) leaderGet(ctx context.Context, key string) ([]byte, uint64, error) {
	req, _ := json.Marshal(map[string]string{"last_by_subj": "$KV." + s.bucket + "." + key})
	msg, err := s.nc.RequestWithContext(ctx, "$JS.API.STREAM.MSG.GET.KV_"+s.bucket, req)
	if err != nil {
		return nil, 0, err
	}
	var resp struct {
		Message *struct {
			Seq  uint64 `json:"seq"`
			Hdrs []byte `json:"hdrs"`
			Data []byte `json:"data"`
		} `json:"message"`
		Error *struct {
			Code        int    `json:"code"`
			ErrCode     int    `json:"err_code"`
			Description string `json:"description"`
		} `json:"error"`
	}
	if err := json.Unmarshal(msg.Data, &resp); err != nil {
		return nil, 0, err
	}
	if resp.Error != nil {
		if resp.Error.Code == 404 {
			return nil, 0, jetstream.ErrKeyNotFound
		}
		return nil, 0, fmt.Errorf("message get: %d %s", resp.Error.ErrCode, resp.Error.Description)
	}
	if resp.Message == nil {
		return nil, 0, errors.New("message get: empty answer")
	}
	// A delete or purge marker: the key is gone.
	if h := string(resp.Message.Hdrs); strings.Contains(h, "KV-Operation: DEL") || strings.Contains(h, "KV-Operation: PURGE") {
		return nil, 0, jetstream.ErrKeyNotFound
	}
	return resp.Message.Data, resp.Message.Seq, nil
}

// keyToken makes s usable in a key: letters, digits, '-' and '_' pass
// unchanged (every id the Manager makes), anything else is hex with a
// leading '=' (which plain tokens never contain), so the mapping is
// one-to-one.
func keyToken(s string) string {
	plain := s != ""
	for i := 0; i < len(s) && plain; i++ {
		c := s[i]
		plain = c == '-' || c == '_' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
	}
	if plain {
		return s
	}
	return "=" + hex.EncodeToString([]byte(s))
}

// ownerToken is a fixed-length key token for an owner (binding keys hold
// NULs and arbitrary authorization contexts).
func ownerToken(owner string) string {
	h := sha256.Sum256([]byte(owner))
	return hex.EncodeToString(h[:16])
}

func recordKey(id string) string { return "t." + keyToken(id) }
func runKey(id string) string    { return "r." + keyToken(id) }

// indexSuffix orders an owner's tasks by creation time, then id.
func indexSuffix(r tasks.Record) string {
	return fmt.Sprintf("%020d.%s", r.Created.UnixNano(), keyToken(r.Task.TaskID))
}

func indexKey(r tasks.Record) string {
	return "o." + ownerToken(r.Owner) + "." + indexSuffix(r)
}

func leased(r tasks.Record) bool { return r.Runner != "" && !r.Task.Status.Terminal() }

// Create stores r, failing if its id exists, and returns once JetStream has
// acknowledged the record and its index entries.
func (s *TaskStore) Create(ctx context.Context, r tasks.Record) error {
	if r.Task.TaskID == "" {
		return errors.New("natscluster: task store: empty task id")
	}
	data, err := json.Marshal(r)
	if err != nil {
		return fmt.Errorf("natscluster: task store: encoding %s: %w", r.Task.TaskID, err)
	}
	if _, err := s.kv.Create(ctx, recordKey(r.Task.TaskID), data); err != nil {
		if errors.Is(err, jetstream.ErrKeyExists) {
			return errors.New("natscluster: task store: duplicate task id")
		}
		return fmt.Errorf("natscluster: task store: creating %s: %w", r.Task.TaskID, err)
	}
	undo := func(err error) error {
		_ = s.kv.Purge(context.WithoutCancel(ctx), recordKey(r.Task.TaskID))
		return fmt.Errorf("natscluster: task store: indexing %s: %w", r.Task.TaskID, err)
	}
	if _, err := s.kv.Put(ctx, indexKey(r), nil); err != nil {
		return undo(err)
	}
	if leased(r) {
		if _, err := s.kv.Put(ctx, runKey(r.Task.TaskID), nil); err != nil {
			return undo(err)
		}
	}
	return nil
}

// get returns the record and its revision.
func (s *TaskStore) get(ctx context.Context, id string) (tasks.Record, uint64, error) {
	var data []byte
	var rev uint64
	var err error
	if s.leader {
		data, rev, err = s.leaderGet(ctx, recordKey(id))
	} else {
		var e jetstream.KeyValueEntry
		if e, err = s.kv.Get(ctx, recordKey(id)); err == nil {
			data, rev = e.Value(), e.Revision()
		}
	}
	if errors.Is(err, jetstream.ErrKeyNotFound) || errors.Is(err, jetstream.ErrKeyDeleted) {
		return tasks.Record{}, 0, tasks.ErrNotFound
	}
	if err != nil {
		return tasks.Record{}, 0, fmt.Errorf("natscluster: task store: reading %s: %w", id, err)
	}
	var r tasks.Record
	if err := json.Unmarshal(data, &r); err != nil {
		return tasks.Record{}, 0, fmt.Errorf("natscluster: task store: record %s: %w", id, err)
	}
	return r, rev, nil
}

// Get returns the record with this id, or tasks.ErrNotFound.
func (s *TaskStore) Get(ctx context.Context, id string) (tasks.Record, error) {
	r, _, err := s.get(ctx, id)
	return r, err
}

// maxAttempts bounds Update's compare-and-set retries: far more than any
// real contention (a handful of writers per task), so that only a store
// that keeps failing ends the loop.
const maxAttempts = 1000

// Update applies fn to the current record and writes the result if the
// entry's revision is still the one read; otherwise it reads again and
// retries, so fn may run more than once (it must only change the record it
// is given). An error from fn ends Update with that error and the current
// record.
func (s *TaskStore) Update(ctx context.Context, id string, fn func(*tasks.Record) error) (tasks.Record, error) {
	for attempt := 0; ; attempt++ {
		cur, rev, err := s.get(ctx, id)
		if err != nil {
			return tasks.Record{}, err
		}
		next, err := clone(cur)
		if err != nil {
			return cur, err
		}
		if err := fn(&next); err != nil {
			return cur, err
		}
		data, err := json.Marshal(next)
		if err != nil {
			return cur, fmt.Errorf("natscluster: task store: encoding %s: %w", id, err)
		}
		_, err = s.kv.Update(ctx, recordKey(id), data, rev)
		if err == nil {
			if leased(cur) && !leased(next) {
				// Best effort: Leased skips (and removes) a stale entry.
				_ = s.kv.Purge(context.WithoutCancel(ctx), runKey(id))
			} else if !leased(cur) && leased(next) {
				if _, err := s.kv.Put(ctx, runKey(id), nil); err != nil {
					return next, fmt.Errorf("natscluster: task store: indexing %s: %w", id, err)
				}
			}
			return next, nil
		}
		if !errors.Is(err, jetstream.ErrKeyRevisionMismatch) && !errors.Is(err, jetstream.ErrKeyExists) {
			return cur, fmt.Errorf("natscluster: task store: updating %s: %w", id, err)
		}
		if attempt >= maxAttempts {
			return cur, fmt.Errorf("natscluster: task store: updating %s: still contended after %d attempts", id, maxAttempts)
		}
		if ctx.Err() != nil {
			return cur, ctx.Err()
		}
		// Another writer won: back off a little, at random, so that many
		// contenders do not retry in lock step.
		time.Sleep(time.Duration(rand.IntN(1+min(attempt, 20))) * 100 * time.Microsecond)
	}
}

// clone deep-copies a decoded record so fn's changes never reach cur (the
// record Update returns when fn fails).
func clone(cur tasks.Record) (tasks.Record, error) {
	data, err := json.Marshal(cur)
	if err != nil {
		return tasks.Record{}, err
	}
	var out tasks.Record
	err = json.Unmarshal(data, &out)
	return out, err
}

// Delete removes the record and its index entries; a missing id is not an
// error.
func (s *TaskStore) Delete(ctx context.Context, id string) error {
	r, _, err := s.get(ctx, id)
	if errors.Is(err, tasks.ErrNotFound) {
		return nil
	}
	if err != nil {
		return err
	}
	_ = s.kv.Purge(ctx, runKey(id))
	_ = s.kv.Purge(ctx, indexKey(r))
	if err := s.kv.Purge(ctx, recordKey(id)); err != nil {
		return fmt.Errorf("natscluster: task store: deleting %s: %w", id, err)
	}
	return nil
}

// keys lists the keys matching filter, sorted.
func (s *TaskStore) keys(ctx context.Context, filter string) ([]string, error) {
	l, err := s.kv.ListKeysFiltered(ctx, filter)
	if err != nil {
		return nil, err
	}
	var out []string
	for k := range l.Keys() {
		out = append(out, k)
	}
	sort.Strings(out)
	return out, nil
}

// List returns up to limit records of owner, oldest first, after cursor.
// The cursor is the last index key's creation time and id, base64url.
func (s *TaskStore) List(ctx context.Context, owner, cursor string, limit int) ([]tasks.Record, string, error) {
	after := ""
	if cursor != "" {
		b, err := base64.RawURLEncoding.DecodeString(cursor)
		if err != nil || len(b) < 22 || b[20] != '.' {
			return nil, "", tasks.ErrBadCursor
		}
		if _, err := strconv.ParseUint(string(b[:20]), 10, 64); err != nil {
			return nil, "", tasks.ErrBadCursor
		}
		after = string(b)
	}
	prefix := "o." + ownerToken(owner) + "."
	keys, err := s.keys(ctx, prefix+">")
	if err != nil {
		return nil, "", fmt.Errorf("natscluster: task store: listing: %w", err)
	}
	var out []tasks.Record
	next := ""
	for _, k := range keys {
		suffix := strings.TrimPrefix(k, prefix)
		if suffix <= after {
			continue
		}
		if limit > 0 && len(out) == limit {
			next = base64.RawURLEncoding.EncodeToString([]byte(indexSuffix(out[len(out)-1])))
			break
		}
		_, enc, _ := strings.Cut(suffix, ".")
		id := enc
		if strings.HasPrefix(enc, "=") {
			b, err := hex.DecodeString(enc[1:])
			if err != nil {
				continue
			}
			id = string(b)
		}
		r, _, err := s.get(ctx, id)
		if errors.Is(err, tasks.ErrNotFound) {
			_ = s.kv.Purge(ctx, k) // an index entry left by a failed Delete
			continue
		}
		if err != nil {
			return nil, "", err
		}
		if r.Owner != owner {
			continue // a hash collision: not this owner's
		}
		out = append(out, r)
	}
	return out, next, nil
}

// Leased calls fn with every record whose work a replica claims (Runner
// set) and that is not terminal, until fn returns false. It reads the
// r.<id> keys, so its cost is the number of running tasks in the cluster,
// not of all records kept for their ttl.
func (s *TaskStore) Leased(ctx context.Context, fn func(tasks.Record) bool) error {
	keys, err := s.keys(ctx, "r.>")
	if err != nil {
		if errors.Is(err, jetstream.ErrNoKeysFound) {
			return nil
		}
		return fmt.Errorf("natscluster: task store: listing leases: %w", err)
	}
	for _, k := range keys {
		enc := strings.TrimPrefix(k, "r.")
		id := enc
		if strings.HasPrefix(enc, "=") {
			b, err := hex.DecodeString(enc[1:])
			if err != nil {
				continue
			}
			id = string(b)
		}
		r, _, err := s.get(ctx, id)
		if errors.Is(err, tasks.ErrNotFound) || err == nil && !leased(r) {
			_ = s.kv.Purge(ctx, k)
			continue
		}
		if err != nil {
			return err
		}
		if !fn(r) {
			return nil
		}
	}
	return nil
}

// TaskStore is a tasks.Store that the cluster sweeper can scan.
var (
	_ tasks.Store        = (*TaskStore)(nil)
	_ tasks.LeaseScanner = (*TaskStore)(nil)
)
