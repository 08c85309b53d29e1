package natscluster

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/mcpgen/mcpgen/runtime/cluster"
	"github.com/mcpgen/mcpgen/runtime/streamhttp"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// Defaults of EventStoreConfig.
const (
	DefaultEventMaxAge        = 10 * time.Minute
	DefaultEventsPerStream    = 10000
	DefaultEventStoreBytes    = 256 << 20
	DefaultEventAppendTimeout = 5 * time.Second
	defaultEventStreamName    = "MCP_EVENTS"
	defaultEventSubjectPrefix = "mcp.events"
	eventIndexHeader          = "Mcp-Event-Index"
)

// EventStoreConfig configures NewEventStore. Retention is bounded three
// ways, whichever bites first; an event dropped by any of them makes a
// resumption that needs it fail (the client gets 404 and knows its
// messages are lost) rather than skip it.
type EventStoreConfig struct {
	// Stream is the JetStream stream's name (default "MCP_EVENTS").
	Stream string
	// Subject is the subject prefix of the events (default "mcp.events"):
	// each SSE stream's events are on <Subject>.<session>.<stream> (both
	// tokens as cluster.SubjectToken writes them).
	Subject string
	// MaxAge drops an event this long after it was stored (default 10
	// minutes). Set it above the servers' Options.OrphanGrace (how long a
	// request waits for its client to resume) plus the clients' retry
	// delays.
	MaxAge time.Duration
	// MaxEventsPerStream bounds the events kept of one SSE stream (default
	// 10000; JetStream MaxMsgsPerSubject): beyond it the stream's oldest go.
	MaxEventsPerStream int64
	// MaxBytes bounds the stream's size over all sessions (default 256
	// MiB): beyond it the oldest events go, whatever their stream.
	MaxBytes int64
	// Replicas is the stream's replication in a NATS cluster (default 1).
	Replicas int
	// Storage is the stream's storage (default jetstream.FileStorage).
	Storage jetstream.StorageType
	// AppendTimeout bounds one Append (default 5 s): the Handler stores an
	// event before it writes it, so a NATS server that does not answer
	// would otherwise hold the stream. A failed Append makes that stream go
	// on without event ids (it cannot be resumed).
	AppendTimeout time.Duration
}

// EventStore is a streamhttp.EventStore on a JetStream stream, so that a
// legacy SSE stream's events can be replayed by any replica: give the same
// store (one per replica, on the same stream) to every replica's
// streamhttp.Options.EventStore, with Options.Sessions set. Each event is a
// message on its SSE stream's subject with its index in a header; Append
// returns once JetStream acknowledged it (the Handler writes the event to
// the client after that), so an event a client may have seen is always
// stored.
//
// StreamClosed and SessionClosed delete nothing: a replica ending its copy
// of a session (draining, an idle local copy, eviction at MaxSessions)
// cannot tell that from the end of the session, and a stream it held may
// still be resumed on another replica; events go by retention
// (EventStoreConfig). Reading them takes the session: a GET naming a
// deleted or expired session gets 404 before any event is read.
//
// Events larger than the NATS server's max_payload (1 MiB by default)
// cannot be stored: that stream goes on without ids.
type EventStore struct {
	js      jetstream.JetStream
	stream  jetstream.Stream
	subject string
	timeout time.Duration
}

var _ streamhttp.EventStore = (*EventStore)(nil)

// NewEventStore creates the JetStream stream, or updates its
// configuration, and returns a store on it.
func NewEventStore(ctx context.Context, js jetstream.JetStream, cfg EventStoreConfig) (*EventStore, error) {
	if cfg.Stream == "" {
		cfg.Stream = defaultEventStreamName
	}
	if cfg.Subject == "" {
		cfg.Subject = defaultEventSubjectPrefix
	}
	if cfg.MaxAge == 0 {
		cfg.MaxAge = DefaultEventMaxAge
	}
	if cfg.MaxEventsPerStream == 0 {
		cfg.MaxEventsPerStream = DefaultEventsPerStream
	}
	if cfg.MaxBytes == 0 {
		cfg.MaxBytes = DefaultEventStoreBytes
	}
	if cfg.AppendTimeout <= 0 {
		cfg.AppendTimeout = DefaultEventAppendTimeout
	}
	st, err := js.CreateOrUpdateStream(ctx, jetstream.StreamConfig{
		Name:              cfg.Stream,
		Description:       "mcpgen legacy SSE events (resumption on any replica)",
		Subjects:          []string{cfg.Subject + ".>"},
		MaxAge:            cfg.MaxAge,
		MaxMsgsPerSubject: cfg.MaxEventsPerStream,
		MaxBytes:          cfg.MaxBytes,
		Discard:           jetstream.DiscardOld,
		Replicas:          cfg.Replicas,
		Storage:           cfg.Storage,
		// Reads go through the stream leader: a follower answering a direct
		// get could lag behind an event just acknowledged.
		AllowDirect: false,
	})
	if err != nil {
		return nil, fmt.Errorf("natscluster: event stream %q: %w", cfg.Stream, err)
	}
	return &EventStore{js: js, stream: st, subject: cfg.Subject, timeout: cfg.AppendTimeout}, nil
}

func (e *EventStore) subjectOf(sessionID, streamID string) string {
	return e.subject + "." + cluster.SubjectToken(sessionID) + "." + cluster.SubjectToken(streamID)
}

// Append implements streamhttp.EventStore. The message id is the subject
// and index, so a publish retried inside JetStream's duplicate window is
// stored once.
func (e *EventStore) Append(ctx context.Context, sessionID, streamID string, index uint64, data []byte) error {
	subj := e.subjectOf(sessionID, streamID)
	idx := strconv.FormatUint(index, 10)
	ctx, cancel := context.WithTimeout(ctx, e.timeout)
	defer cancel()
	msg := &nats.Msg{Subject: subj, Data: data, Header: nats.Header{eventIndexHeader: {idx}}}
	if _, err := e.js.PublishMsg(ctx, msg, jetstream.WithMsgID(subj+"#"+idx)); err != nil {
		return fmt.Errorf("natscluster: store event: %w", err)
	}
	return nil
}

// After implements streamhttp.EventStore: it reads the stream's events in
// order and returns streamhttp.ErrEventsLost, calling fn for none, when
// none is held (unknown stream, or all expired), when the first held one
// comes after the one the client needs next (the older ones were dropped),
// when the held ones have a gap, or when after names an event never
// stored.
func (e *EventStore) After(ctx context.Context, sessionID, streamID string, after uint64, fn func(index uint64, data []byte) error) error {
	subj := e.subjectOf(sessionID, streamID)
	type event struct {
		index uint64
		data  []byte
	}
	var evs []event
	var next uint64 // the index the next held event must have
	seq, held := uint64(1), false
	for {
		m, err := e.stream.GetMsg(ctx, seq, jetstream.WithGetMsgSubject(subj))
		if errors.Is(err, jetstream.ErrMsgNotFound) {
			break
		}
		if err != nil {
			return fmt.Errorf("natscluster: read events: %w", err)
		}
		seq = m.Sequence + 1
		idx, err := strconv.ParseUint(m.Header.Get(eventIndexHeader), 10, 64)
		if err != nil {
			return fmt.Errorf("natscluster: event %d of %s has no index", m.Sequence, subj)
		}
		switch {
		case !held && idx > after+1:
			return streamhttp.ErrEventsLost // the ones the client needs first are gone
		case held && idx != next:
			return streamhttp.ErrEventsLost
		}
		held, next = true, idx+1
		if idx > after {
			evs = append(evs, event{idx, m.Data})
		}
	}
	if !held || after >= next {
		return streamhttp.ErrEventsLost
	}
	for _, ev := range evs {
		if err := fn(ev.index, ev.data); err != nil {
			return err
		}
	}
	return nil
}

// StreamClosed implements streamhttp.EventStore; it deletes nothing (see
// EventStore).
func (e *EventStore) StreamClosed(context.Context, string, string) {}

// SessionClosed implements streamhttp.EventStore; it deletes nothing (see
// EventStore).
func (e *EventStore) SessionClosed(context.Context, string) {}
