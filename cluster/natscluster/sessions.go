package natscluster

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/mcpgen/mcpgen/runtime/cluster"
	"github.com/nats-io/nats.go/jetstream"
)

// SessionStoreConfig configures NewSessionStore.
type SessionStoreConfig struct {
	// Bucket is the key-value bucket's name (default "mcp-sessions").
	Bucket string
	// TTL removes a record this long after its last write (JetStream
	// MaxAge). Set it above the servers' SessionIdleTimeout plus their
	// ActiveInterval (streamhttp.Options): a session in use is rewritten
	// at least every ActiveInterval, so only idle sessions expire. Zero
	// keeps records until deleted.
	TTL time.Duration
	// Replicas is the bucket's replication in a NATS cluster (default 1).
	Replicas int
	// Storage is the bucket's storage (default jetstream.FileStorage,
	// which survives a NATS server restart).
	Storage jetstream.StorageType
}

// SessionStore is a cluster.SessionStore on a JetStream key-value bucket:
// one key per session (the id escaped by Key), the record as JSON. Create
// is KV Create (fails if the key exists); Update is a compare-and-set loop
// on the entry's revision, so concurrent updates from several replicas
// lose nothing.
type SessionStore struct {
	kv jetstream.KeyValue
}

var _ cluster.SessionStore = (*SessionStore)(nil)

// NewSessionStore creates the bucket, or updates its configuration, and
// returns a store on it.
func NewSessionStore(ctx context.Context, js jetstream.JetStream, cfg SessionStoreConfig) (*SessionStore, error) {
	if cfg.Bucket == "" {
		cfg.Bucket = "mcp-sessions"
	}
	kv, err := js.CreateOrUpdateKeyValue(ctx, jetstream.KeyValueConfig{
		Bucket:   cfg.Bucket,
		TTL:      cfg.TTL,
		Replicas: cfg.Replicas,
		Storage:  cfg.Storage,
		History:  1,
	})
	if err != nil {
		return nil, fmt.Errorf("natscluster: session bucket %q: %w", cfg.Bucket, err)
	}
	return &SessionStore{kv: kv}, nil
}

// Key is the bucket key of a session or task id. KV keys allow only
// letters, digits and "-_/=."; ids of letters, digits, '-' and '_' are
// kept, anything else is hex-escaped behind a leading '=' (which such ids
// never contain), so the mapping is one-to-one.
func Key(id string) string {
	plain := id != ""
	for i := 0; i < len(id) && plain; i++ {
		c := id[i]
		plain = c == '-' || c == '_' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
	}
	if plain {
		return id
	}
	const hex = "0123456789abcdef"
	b := make([]byte, 1, 1+2*len(id))
	b[0] = '='
	for i := 0; i < len(id); i++ {
		b = append(b, hex[id[i]>>4], hex[id[i]&15])
	}
	return string(b)
}

// Create adds r; cluster.ErrSessionExists if its id is in use. It returns
// once the server acknowledged the write.
func (s *SessionStore) Create(ctx context.Context, r cluster.SessionRecord) error {
	data, err := json.Marshal(r)
	if err != nil {
		return err
	}
	if _, err := s.kv.Create(ctx, Key(r.ID), data); err != nil {
		if errors.Is(err, jetstream.ErrKeyExists) {
			return cluster.ErrSessionExists
		}
		return fmt.Errorf("natscluster: create session: %w", err)
	}
	return nil
}

// Get returns the record with this id, or cluster.ErrSessionNotFound.
func (s *SessionStore) Get(ctx context.Context, id string) (cluster.SessionRecord, error) {
	r, _, err := s.get(ctx, id)
	return r, err
}

func (s *SessionStore) get(ctx context.Context, id string) (cluster.SessionRecord, uint64, error) {
	e, err := s.kv.Get(ctx, Key(id))
	if err != nil {
		if errors.Is(err, jetstream.ErrKeyNotFound) || errors.Is(err, jetstream.ErrKeyDeleted) {
			return cluster.SessionRecord{}, 0, cluster.ErrSessionNotFound
		}
		return cluster.SessionRecord{}, 0, fmt.Errorf("natscluster: get session: %w", err)
	}
	var r cluster.SessionRecord
	if err := json.Unmarshal(e.Value(), &r); err != nil {
		return cluster.SessionRecord{}, 0, fmt.Errorf("natscluster: session record %q: %w", id, err)
	}
	return r, e.Revision(), nil
}

// Update applies fn to the current record and writes it if the record was
// not changed meanwhile (the entry's revision), else reads it again and
// retries, until ctx ends.
func (s *SessionStore) Update(ctx context.Context, id string, fn func(*cluster.SessionRecord) error) (cluster.SessionRecord, error) {
	for {
		r, rev, err := s.get(ctx, id)
		if err != nil {
			return cluster.SessionRecord{}, err
		}
		if err := fn(&r); err != nil {
			return cluster.SessionRecord{}, err
		}
		data, err := json.Marshal(r)
		if err != nil {
			return cluster.SessionRecord{}, err
		}
		_, err = s.kv.Update(ctx, Key(id), data, rev)
		if err == nil {
			return r, nil
		}
		if !errors.Is(err, jetstream.ErrKeyRevisionMismatch) && !errors.Is(err, jetstream.ErrKeyExists) {
			return cluster.SessionRecord{}, fmt.Errorf("natscluster: update session: %w", err)
		}
		if ctx.Err() != nil {
			return cluster.SessionRecord{}, ctx.Err()
		}
	}
}

// Delete removes the record (its key is purged, so no tombstone history
// stays); deleting a missing id is not an error.
func (s *SessionStore) Delete(ctx context.Context, id string) error {
	if err := s.kv.Purge(ctx, Key(id)); err != nil && !errors.Is(err, jetstream.ErrKeyNotFound) {
		return fmt.Errorf("natscluster: delete session: %w", err)
	}
	return nil
}
