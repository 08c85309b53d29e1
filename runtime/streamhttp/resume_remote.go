package streamhttp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"time"

	"github.com/mcpgen/mcpgen/runtime/cluster"
	"github.com/mcpgen/mcpgen/runtime/jsonrpc2"
)

// Resumption across replicas. With Options.Sessions set, any replica serves
// a GET with Last-Event-ID, not only the one whose copy of the session held
// the stream: that one may have died, or the balancer may route the GET
// anywhere. What it takes:
//
//   - Stream ids unique across replicas (streamName): every copy of a
//     session numbers its streams from 1, so a clustered replica adds a
//     random part, or two replicas' streams of one session would share
//     their events in a shared EventStore.
//   - A shared EventStore (natscluster.NewEventStore: a JetStream stream
//     every replica reads). A stream this replica does not hold is served
//     from it (resumeElsewhere): the events after Last-Event-ID, each once,
//     in order. If the answer is among them the response ends with it;
//     otherwise the stream still runs where its request runs, and the
//     response ends with the retry field after what is stored so far: the
//     client polls again (the server may close a stream at any time,
//     2025-11-25 transports), and each poll brings what was stored since.
//
// With the default MemoryEventStore a stream of another replica has no
// events here, so the GET gets the 404 of a stream no longer held, as
// before.

// streamName is the id of a legacy session's stream number n, with a
// random part (see above); soloShare's is the number alone. It never
// contains '_', which separates the stream from the index in an event id.
func (rp *replicas) streamName(n uint64) string {
	return strconv.FormatUint(n, 10) + "-" + newSessionID()[:12]
}

// primesPolls is true: a stream closed for polling may be resumed on
// another replica, which must find it known (closeForPoll).
func (rp *replicas) primesPolls() bool { return true }

// resumeElsewhere serves a GET with Last-Event-ID naming a stream this
// replica's copy of the session does not hold (another replica's, or one
// this replica no longer holds) from the EventStore, which a shared store
// still has the events of. It always answers: true.
func (rp *replicas) resumeElsewhere(w http.ResponseWriter, r *http.Request, s *legacySession, streamID string, after uint64) bool {
	h := rp.h
	type event struct {
		index uint64
		data  []byte
	}
	var evs []event
	ctx, cancel := context.WithTimeout(r.Context(), 10*time.Second)
	err := h.store.After(ctx, s.id, streamID, after, func(i uint64, d []byte) error {
		evs = append(evs, event{i, d})
		return nil
	})
	cancel()
	switch {
	case errors.Is(err, ErrEventsLost):
		writeError(w, http.StatusNotFound, jsonrpc2.RequestID{}, jsonrpc2.CodeInvalidRequest, "no resumable stream for this Last-Event-ID (ended, unknown, or its events are no longer held)", nil)
		return true
	case err != nil:
		h.log.Warn("event store: read failed; the resumption is refused with 503", "session", s.id, "stream", streamID, "error", err)
		w.Header().Set("Retry-After", "1")
		writeError(w, http.StatusServiceUnavailable, jsonrpc2.RequestID{}, jsonrpc2.CodeInternalError, "event store unavailable; try again", nil)
		return true
	}
	if !h.acceptSessionStream(w, s, jsonrpc2.RequestID{}) {
		return true
	}
	defer h.releaseSessionStream(s)
	s.touch(1)
	defer s.touch(-1)
	rc := http.NewResponseController(w)
	if h.opts.WriteTimeout > 0 {
		_ = rc.SetWriteDeadline(time.Now().Add(h.opts.WriteTimeout))
	}
	hd := w.Header()
	hd.Set(HeaderSessionID, s.id)
	hd.Set("Content-Type", "text/event-stream")
	hd.Set("Cache-Control", "no-cache")
	hd.Set("X-Accel-Buffering", "no")
	w.WriteHeader(http.StatusOK)
	final := false
	for _, e := range evs {
		if writeEvent(w, eventID(streamID, e.index), e.data) != nil {
			return true
		}
		if isAnswer(e.data) {
			final = true // nothing follows a request stream's answer
			break
		}
	}
	if !final {
		_, _ = fmt.Fprintf(w, "retry: %d\n\n", h.opts.SSERetry.Milliseconds())
	}
	_ = rc.Flush()
	rp.resumedHere(s.id, streamID, final)
	h.log.Debug("stream resumed from the shared event store", "session", s.id, "stream", streamID, "after", after, "events", len(evs), "final", final, "replica", h.opts.Replica)
	return true
}

// isAnswer reports whether an event is a JSON-RPC response: the last
// message of a request's stream (the server answers only on the stream of
// the request answered; a GET stream carries none).
func isAnswer(data []byte) bool {
	m, err := jsonrpc2.DecodeMessage(data)
	return err == nil && (m.Kind == jsonrpc2.KindResponse || m.Kind == jsonrpc2.KindErrorResponse)
}

// SubjectResumed is the bus subject on which a replica says it
// served a resumption of a session's stream from the shared EventStore
// (+ cluster.SubjectToken(session id)).
const SubjectResumed = "mcp.stream.resumed."

// resumed is the message on SubjectResumed.
type resumed struct {
	Stream string `json:"stream"`
	Final  bool   `json:"final,omitempty"` // the answer was among the events replayed
}

// resumedHere tells the replica holding the stream that its client resumed
// here.
func (rp *replicas) resumedHere(sessionID, streamID string, final bool) {
	h := rp.h
	if h.opts.Bus == nil {
		return
	}
	p, _ := json.Marshal(resumed{Stream: streamID, Final: final})
	h.background(func() {
		rp.publish(SubjectResumed+cluster.SubjectToken(sessionID), busMsg{Session: sessionID, Params: p})
	})
}

// onBusResumed: a client resumed, on another replica, a stream this
// replica holds for an orphaned request. Its grace starts again (the
// client is polling); if the answer was replayed, nothing is left to wait
// for: the orphan and its stream go.
func (h *Handler) onBusResumed(_ string, data []byte) {
	var m busMsg
	var r resumed
	if json.Unmarshal(data, &m) != nil || m.Origin == h.opts.Replica || json.Unmarshal(m.Params, &r) != nil {
		return
	}
	s := h.lookup(m.Session)
	if s == nil {
		return
	}
	s.mu.Lock()
	var o *orphan
	for _, cand := range s.orphans {
		if cand.st != nil && cand.st.ev != nil && cand.st.ev.stream == r.Stream {
			o = cand
			break
		}
	}
	s.mu.Unlock()
	if o == nil {
		return
	}
	if r.Final {
		h.expireOrphan(o, "its client received the answer through replica "+m.Origin)
		return
	}
	h.omu.Lock()
	if o.elem != nil && o.timer != nil {
		o.timer.Reset(h.opts.OrphanGrace)
	}
	h.omu.Unlock()
	h.log.Debug("orphan grace restarted: its client resumed the stream on another replica", "session", m.Session, "stream", r.Stream, "replica", m.Origin)
}
