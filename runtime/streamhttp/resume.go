package streamhttp

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/mcpgen/mcpgen/runtime/jsonrpc2"
)

// EventStore keeps the SSE events of legacy (2025-03-26 … 2025-11-25)
// streams so that a client whose connection broke can resume a stream with
// a GET carrying Last-Event-ID (2025-11-25 transports "Resumability and
// Redelivery"). 2026-07-28 removed resumption (durable work goes through
// tasks), so modern streams never reach the store and carry no ids.
//
// The Handler numbers the events of each stream from 1 (0 is the priming
// event, which is not stored) and names them "<stream>_<index>"; stream
// ids are unique within a session. Methods may be called concurrently for
// different streams; calls for one stream are serialised by the Handler.
// An implementation that fails Append makes that stream go on without ids
// (it cannot be resumed).
type EventStore interface {
	// Append stores data as event index of the stream.
	Append(ctx context.Context, sessionID, streamID string, index uint64, data []byte) error
	// After calls fn, in order, with every stored event of the stream whose
	// index is greater than after. It returns ErrEventsLost, calling fn for
	// none, when any of those events is no longer held (or the stream is
	// unknown): a resumption with a gap would lose messages silently.
	After(ctx context.Context, sessionID, streamID string, after uint64, fn func(index uint64, data []byte) error) error
	// StreamClosed says the stream is over (ended with the client connected,
	// or dropped): its events may go.
	StreamClosed(ctx context.Context, sessionID, streamID string)
	// SessionClosed says the session ended: all its streams' events may go.
	SessionClosed(ctx context.Context, sessionID string)
}

// ErrEventsLost is returned by EventStore.After when the events a client
// asks for are not all held any more.
var ErrEventsLost = errors.New("streamhttp: the events after this Last-Event-ID are no longer held")

// Default bounds of NewMemoryEventStore.
const (
	DefaultEventStoreBytes       = 32 << 20
	DefaultEventStoreStreamBytes = 4 << 20
)

// MemoryEventStore is the default EventStore: bounded, in memory, for one
// process. It holds at most maxBytes of event data over all streams,
// dropping the oldest events first beyond it, and at most maxStreamBytes per
// stream, dropping that stream's oldest events (a stream's newest event is
// always kept, however large). A resumption that needs a dropped event gets
// ErrEventsLost. Streams that ended with their client connected are dropped
// at once, so in practice it holds the events of open streams and of
// detached ones awaiting their client (bounded in number and time by
// Options.MaxOrphans and OrphanGrace).
type MemoryEventStore struct {
	mu             sync.Mutex
	maxBytes       int64
	maxStreamBytes int64
	bytes          int64
	sessions       map[string]map[string]*memStream
	queue          []*memEvent // every held event in append order, for eviction
	head           int
}

type memStream struct {
	events  []*memEvent
	dropped uint64 // highest index dropped; a resumption after an earlier one has a gap
	bytes   int64
}

type memEvent struct {
	s     *memStream
	index uint64
	data  []byte
	dead  bool
}

// NewMemoryEventStore returns a MemoryEventStore; zero or negative bounds
// take DefaultEventStoreBytes (32 MiB) and DefaultEventStoreStreamBytes
// (4 MiB).
func NewMemoryEventStore(maxBytes, maxStreamBytes int64) *MemoryEventStore {
	if maxBytes <= 0 {
		maxBytes = DefaultEventStoreBytes
	}
	if maxStreamBytes <= 0 {
		maxStreamBytes = DefaultEventStoreStreamBytes
	}
	return &MemoryEventStore{maxBytes: maxBytes, maxStreamBytes: maxStreamBytes, sessions: map[string]map[string]*memStream{}}
}

// Append implements EventStore.
func (m *MemoryEventStore) Append(_ context.Context, sessionID, streamID string, index uint64, data []byte) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	ss := m.sessions[sessionID]
	if ss == nil {
		ss = map[string]*memStream{}
		m.sessions[sessionID] = ss
	}
	st := ss[streamID]
	if st == nil {
		st = &memStream{}
		ss[streamID] = st
	}
	e := &memEvent{s: st, index: index, data: append([]byte(nil), data...)}
	st.events = append(st.events, e)
	st.bytes += int64(len(data))
	m.bytes += int64(len(data))
	m.queue = append(m.queue, e)
	for st.bytes > m.maxStreamBytes && len(st.events) > 1 {
		m.dropOldest(st)
	}
	for m.bytes > m.maxBytes && m.head < len(m.queue) {
		old := m.queue[m.head]
		m.queue[m.head] = nil
		m.head++
		if !old.dead && old != e {
			m.dropOldest(old.s) // a stream's oldest event is the oldest of it in the queue
		}
	}
	if m.head > 1024 && m.head > len(m.queue)/2 {
		m.queue = append([]*memEvent(nil), m.queue[m.head:]...)
		m.head = 0
	}
	return nil
}

func (m *MemoryEventStore) dropOldest(st *memStream) {
	e := st.events[0]
	st.events[0] = nil
	st.events = st.events[1:]
	st.dropped = e.index
	st.bytes -= int64(len(e.data))
	m.bytes -= int64(len(e.data))
	e.dead, e.data = true, nil
}

// After implements EventStore.
func (m *MemoryEventStore) After(_ context.Context, sessionID, streamID string, after uint64, fn func(index uint64, data []byte) error) error {
	m.mu.Lock()
	st := m.sessions[sessionID][streamID]
	if st == nil || after < st.dropped {
		m.mu.Unlock()
		return ErrEventsLost
	}
	var out []*memEvent
	for _, e := range st.events {
		if e.index > after {
			out = append(out, e)
		}
	}
	m.mu.Unlock()
	for _, e := range out {
		if err := fn(e.index, e.data); err != nil {
			return err
		}
	}
	return nil
}

// StreamClosed implements EventStore.
func (m *MemoryEventStore) StreamClosed(_ context.Context, sessionID, streamID string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	ss := m.sessions[sessionID]
	if st := ss[streamID]; st != nil {
		m.dropStream(st)
		delete(ss, streamID)
		if len(ss) == 0 {
			delete(m.sessions, sessionID)
		}
	}
}

// SessionClosed implements EventStore.
func (m *MemoryEventStore) SessionClosed(_ context.Context, sessionID string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, st := range m.sessions[sessionID] {
		m.dropStream(st)
	}
	delete(m.sessions, sessionID)
}

func (m *MemoryEventStore) dropStream(st *memStream) {
	for _, e := range st.events {
		m.bytes -= int64(len(e.data))
		e.dead, e.data = true, nil
	}
	st.events, st.bytes = nil, 0
}

// Bytes returns the event data held now (for tests and metrics).
func (m *MemoryEventStore) Bytes() int64 {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.bytes
}

// eventLog numbers and stores the events of one legacy stream. It is used
// under its stream's mutex.
type eventLog struct {
	store   EventStore
	session string
	stream  string
	index   uint64 // of the last event given an id
	retry   time.Duration
	priming bool // the client understands a priming event (2025-11-25 and later)
	primed  bool
	closed  bool
}

func eventID(stream string, index uint64) string {
	return stream + "_" + strconv.FormatUint(index, 10)
}

// parseEventID splits a Last-Event-ID into its stream and index.
func parseEventID(id string) (stream string, index uint64, ok bool) {
	stream, num, ok := strings.Cut(id, "_")
	if !ok || stream == "" {
		return "", 0, false
	}
	index, err := strconv.ParseUint(num, 10, 64)
	return stream, index, err == nil
}

// next stores msg as the stream's next event and returns its id.
func (l *eventLog) next(msg []byte) (string, error) {
	l.index++
	if err := l.store.Append(context.Background(), l.session, l.stream, l.index, msg); err != nil {
		return "", err
	}
	return eventID(l.stream, l.index), nil
}

func (l *eventLog) append(msg []byte) error {
	_, err := l.next(msg)
	return err
}

// prime writes, once per stream, the retry field and (for clients of
// 2025-11-25 and later, which expect it; older ones would read an empty
// message) the priming event: an id and empty data, so that a client can
// resume even before the first message.
func (l *eventLog) prime(w http.ResponseWriter) {
	if l.primed {
		return
	}
	l.primed = true
	ms := l.retry.Milliseconds()
	if l.priming {
		_, _ = fmt.Fprintf(w, "id: %s\nretry: %d\ndata: \n\n", eventID(l.stream, 0), ms)
		return
	}
	_, _ = fmt.Fprintf(w, "retry: %d\n\n", ms)
}

func (l *eventLog) close() {
	if !l.closed {
		l.closed = true
		if l.index > 0 { // a plain JSON answer stored nothing: no store call
			l.store.StreamClosed(context.Background(), l.session, l.stream)
		}
	}
}

// errNotResumable is returned by resume for a stream that is not waiting
// for its client.
var errNotResumable = errors.New("streamhttp: stream not resumable")

// resume attaches w to a detached stream: the events stored after index
// after are written first, then the stream goes on live. A stream whose
// last message was among them ends at once (lingering). A lingering stream
// replays what follows after and ends. It reports whether the stream goes
// on live (the caller then waits on it).
func (s *stream) resume(w http.ResponseWriter, after uint64) (live bool, err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.ev != nil && !s.closed && !s.detached && s.mode == modeSSE {
		// The client resumes a stream whose old connection the server has
		// not seen drop yet: the new response takes it over.
		s.detached = true
		s.w, s.rc = nil, nil
		s.shutDoneLocked()
	}
	if s.ev == nil || !(s.detached || s.lingering) || (s.closed && !s.lingering) {
		return false, errNotResumable
	}
	if after > s.ev.index {
		return false, ErrEventsLost
	}
	type ev struct {
		index uint64
		data  []byte
	}
	var evs []ev
	// A client that has every event sent so far (after is the last id
	// given out) misses nothing, and the store is not asked: it may hold
	// nothing of the stream yet (a stream detached right after its
	// priming event, whose id is not stored, before its handler sent
	// anything), and would answer that the events are lost.
	if after < s.ev.index {
		if err := s.ev.store.After(context.Background(), s.ev.session, s.ev.stream, after, func(i uint64, d []byte) error {
			evs = append(evs, ev{i, d})
			return nil
		}); err != nil {
			return false, err
		}
	}
	write := func(w http.ResponseWriter, rc *http.ResponseController) error {
		h := w.Header()
		s.copyHeader(h)
		h.Set("Content-Type", "text/event-stream")
		h.Set("Cache-Control", "no-cache")
		h.Set("X-Accel-Buffering", "no")
		w.WriteHeader(http.StatusOK)
		for _, e := range evs {
			if err := writeEvent(w, eventID(s.ev.stream, e.index), e.data); err != nil {
				return err
			}
		}
		return rc.Flush()
	}
	rc := http.NewResponseController(w)
	if s.timeout > 0 {
		_ = rc.SetWriteDeadline(time.Now().Add(s.timeout))
	}
	if s.lingering {
		_ = write(w, rc)
		return false, nil
	}
	s.w, s.rc = w, rc
	s.gen++
	s.detached = false
	s.done, s.doneShut = make(chan struct{}), false
	s.mode = modeSSE
	if err := write(w, rc); err != nil {
		// Cut again while replaying: everything is still stored, so the
		// client may resume once more.
		s.detachLocked()
		return false, nil
	}
	if s.final {
		s.lingerLocked()
		return false, nil
	}
	return true, nil
}

// state reports whether the stream is detached (its client gone, still
// resumable) or lingering (ended, its events kept for a while).
func (s *stream) state() (detached, lingering bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.detached, s.lingering
}

// finishedLinger is how long a legacy stream that ended with its answer
// written keeps its events for a resumption: the socket may have taken the
// last events without the client receiving them (a connection cut just
// then). A few retry delays of the client, bounded so that a busy server
// does not hold the events of every finished stream for long.
const finishedLinger = 5 * time.Second

// settle files a legacy request's stream after its response ended (the
// answer written, the client gone, or the session over): a detached stream
// stays resumable and its request becomes an orphan; a lingering one stays
// resumable for finishedLinger; any other is forgotten.
func (h *Handler) settle(s *legacySession, st *stream, id jsonrpc2.RequestID, gen uint64, gone bool) {
	if st.generation() != gen {
		return // a resumption took the stream over: it files it
	}
	detached, lingering := st.state()
	s.mu.Lock()
	running := s.reqStreams[id] == st
	if running && !detached {
		delete(s.reqStreams, id)
	}
	if st.ev != nil {
		if detached || lingering {
			s.resumable[st.ev.stream] = st
		} else if s.resumable[st.ev.stream] == st {
			delete(s.resumable, st.ev.stream)
		}
	}
	s.mu.Unlock()
	if lingering {
		stream := st.ev.stream
		time.AfterFunc(finishedLinger, func() {
			s.mu.Lock()
			if s.resumable[stream] == st {
				delete(s.resumable, stream)
			}
			s.mu.Unlock()
			st.dropLinger()
		})
	}
	if (gone || detached) && (running || detached) {
		var kept *stream
		if detached {
			kept = st
		}
		h.addOrphan(s, id, kept, running)
	}
}

// resumeGet serves a GET with Last-Event-ID: the stream it names, if the
// session still holds it, continues on this response from the event after
// it; nothing the client had is sent again. A stream not held (unknown,
// ended, or its events dropped by the EventStore's bounds) gets 404, so
// that the client knows its messages are lost rather than wait.
func (h *Handler) resumeGet(w http.ResponseWriter, r *http.Request, s *legacySession, last string) {
	streamID, after, ok := parseEventID(last)
	if !ok {
		writeError(w, http.StatusBadRequest, jsonrpc2.RequestID{}, jsonrpc2.CodeInvalidRequest, "Bad Request: malformed Last-Event-ID", nil)
		return
	}
	s.mu.Lock()
	st := s.resumable[streamID]
	var reqID jsonrpc2.RequestID
	isReq := false
	for id, rs := range s.reqStreams {
		if rs == st {
			reqID, isReq = id, true
			break
		}
	}
	var o *orphan
	for _, cand := range s.orphans {
		if cand.st == st && st != nil {
			o = cand
			reqID, isReq = cand.id, true
			break
		}
	}
	isGet := st != nil && s.get == st
	s.mu.Unlock()
	if st == nil && h.share.resumeElsewhere(w, r, s, streamID, after) {
		return
	}
	if st == nil {
		writeError(w, http.StatusNotFound, jsonrpc2.RequestID{}, jsonrpc2.CodeInvalidRequest, "no resumable stream for this Last-Event-ID (ended, unknown, or its events are no longer held)", nil)
		return
	}
	if !h.acceptSessionStream(w, s, jsonrpc2.RequestID{}) {
		return
	}
	defer h.releaseSessionStream(s)
	s.touch(1)
	defer s.touch(-1)
	live, err := st.resume(w, after)
	if err != nil {
		status := http.StatusNotFound
		if errors.Is(err, errNotResumable) {
			status = http.StatusConflict // attached to another response now
		}
		writeError(w, status, jsonrpc2.RequestID{}, jsonrpc2.CodeInvalidRequest, "stream not resumed: "+err.Error(), nil)
		if o != nil && status == http.StatusNotFound {
			h.expireOrphan(o, "orphaned: its client resumed, but the stream's events are no longer held")
		}
		return
	}
	if o != nil {
		h.releaseOrphan(o) // the client is back
	}
	gen := st.generation()
	if !live {
		if isReq {
			h.settle(s, st, reqID, gen, false)
		}
		return
	}
	gone := h.wait(r, st, s.closed)
	switch {
	case isGet:
		h.settleGet(s, st, gen)
	case isReq:
		h.settle(s, st, reqID, gen, gone)
	}
}
