package cluster

import (
	"context"
	"encoding/json"
	"errors"
	"sync"
	"time"
)

// SessionRecord is the shared state of one legacy (≤ 2025-11-25) Streamable
// HTTP session: what any replica needs to serve the session's next POST
// without having seen its initialize.
type SessionRecord struct {
	// ID is the Mcp-Session-Id the server issued.
	ID string `json:"id"`
	// Revision is the negotiated protocol version ("" until initialize has
	// been answered).
	Revision string `json:"revision,omitempty"`
	// Initialized is set once notifications/initialized arrived.
	Initialized bool `json:"initialized,omitempty"`
	// ClientInfo and ClientCapabilities are the initialize request's
	// clientInfo and capabilities, as sent.
	ClientInfo         json.RawMessage `json:"clientInfo,omitempty"`
	ClientCapabilities json.RawMessage `json:"clientCapabilities,omitempty"`
	// LogLevel is the level the client set with logging/setLevel ("" for
	// none).
	LogLevel string `json:"logLevel,omitempty"`
	// ResourceSubscriptions are the URIs the client subscribed to with
	// resources/subscribe (and has not unsubscribed from), so that
	// notifications/resources/updated reaches the session on whichever
	// replica holds its standalone stream.
	ResourceSubscriptions []string `json:"resourceSubscriptions,omitempty"`
	// Owner is the identity (runtime/auth binding key) that created the
	// session; another identity presenting the id is refused.
	Owner string `json:"owner,omitempty"`
	// Replica names the replica that created the session (for logs).
	Replica string `json:"replica,omitempty"`
	// Created and LastActive bound the session's life (idle expiry).
	Created    time.Time `json:"created"`
	LastActive time.Time `json:"lastActive"`
	// Extra holds state other layers keep per session (for example resource
	// subscriptions), by key.
	Extra map[string]json.RawMessage `json:"extra,omitempty"`
}

// ErrSessionNotFound is returned by a SessionStore for an id it does not
// hold (never created, deleted or expired).
var ErrSessionNotFound = errors.New("cluster: session not found")

// ErrSessionExists is returned by SessionStore.Create for an id in use.
var ErrSessionExists = errors.New("cluster: session exists")

// SessionStore keeps SessionRecords where every replica can read them. Every
// method must be safe for concurrent use; Update must be atomic (compare and
// set, or a lock). Create must return only once every replica's Get sees the
// record: the initialize response that carries the id goes out after it.
// Returned records are copies the caller may keep.
type SessionStore interface {
	// Create adds r; ErrSessionExists if its id is in use.
	Create(ctx context.Context, r SessionRecord) error
	// Get returns the record with this id, or ErrSessionNotFound.
	Get(ctx context.Context, id string) (SessionRecord, error)
	// Update applies fn to the record atomically and stores the result,
	// unless fn returns an error, which Update then returns.
	Update(ctx context.Context, id string, fn func(*SessionRecord) error) (SessionRecord, error)
	// Delete removes the record; deleting a missing id is not an error.
	Delete(ctx context.Context, id string) error
}

// MemorySessionStore is a SessionStore inside one process.
type MemorySessionStore struct {
	mu   sync.Mutex
	recs map[string]SessionRecord
}

// NewMemorySessionStore returns an empty MemorySessionStore.
func NewMemorySessionStore() *MemorySessionStore {
	return &MemorySessionStore{recs: map[string]SessionRecord{}}
}

// Create adds r; ErrSessionExists if its id is in use.
func (s *MemorySessionStore) Create(_ context.Context, r SessionRecord) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.recs[r.ID]; ok {
		return ErrSessionExists
	}
	s.recs[r.ID] = CloneSession(r)
	return nil
}

// Get returns a copy of the record with this id, or ErrSessionNotFound.
func (s *MemorySessionStore) Get(_ context.Context, id string) (SessionRecord, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	r, ok := s.recs[id]
	if !ok {
		return SessionRecord{}, ErrSessionNotFound
	}
	return CloneSession(r), nil
}

// Update applies fn to a copy of the record under the store's lock.
func (s *MemorySessionStore) Update(_ context.Context, id string, fn func(*SessionRecord) error) (SessionRecord, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	r, ok := s.recs[id]
	if !ok {
		return SessionRecord{}, ErrSessionNotFound
	}
	next := CloneSession(r)
	if err := fn(&next); err != nil {
		return CloneSession(r), err
	}
	s.recs[id] = CloneSession(next)
	return next, nil
}

// Delete removes the record with this id.
func (s *MemorySessionStore) Delete(_ context.Context, id string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.recs, id)
	return nil
}

// Len returns how many sessions the store holds.
func (s *MemorySessionStore) Len() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.recs)
}

// CloneSession returns a deep copy of r: its raw JSON and Extra are not
// shared with r.
func CloneSession(r SessionRecord) SessionRecord {
	r.ClientInfo = append(json.RawMessage(nil), r.ClientInfo...)
	r.ClientCapabilities = append(json.RawMessage(nil), r.ClientCapabilities...)
	r.ResourceSubscriptions = append([]string(nil), r.ResourceSubscriptions...)
	if r.Extra != nil {
		m := make(map[string]json.RawMessage, len(r.Extra))
		for k, v := range r.Extra {
			m[k] = append(json.RawMessage(nil), v...)
		}
		r.Extra = m
	}
	return r
}
