package streamhttp

import (
	"container/list"
	"fmt"
	"time"

	"github.com/mcpgen/mcpgen/runtime/jsonrpc2"
)

// An orphan is a legacy request whose client connection went away before
// its answer. In the legacy era that is no cancellation, so its handler
// runs on (and a resumable stream keeps what it sends for a GET with
// Last-Event-ID); but every orphan is bounded: after Options.OrphanGrace
// without the client coming back, or when more than Options.MaxOrphans are
// waiting (the oldest first), the Handler gives up on it. A running handler
// is then cancelled (jsonrpc2.Conn.AbandonIncoming, source "local") with a
// reason that says why, and a detached stream's events are dropped.
type orphan struct {
	s       *legacySession
	id      jsonrpc2.RequestID
	st      *stream // the detached stream, or nil (not resumable)
	running bool    // the handler has not answered yet (under s.mu)
	elem    *list.Element
	timer   *time.Timer
}

// addOrphan registers the request id of session s whose client left.
func (h *Handler) addOrphan(s *legacySession, id jsonrpc2.RequestID, st *stream, running bool) {
	o := &orphan{s: s, id: id, st: st, running: running}
	s.mu.Lock()
	old := s.orphans[id]
	s.orphans[id] = o
	s.mu.Unlock()
	if old != nil {
		h.releaseOrphan(old)
	}
	h.omu.Lock()
	o.elem = h.orphans.PushBack(o)
	o.timer = time.AfterFunc(h.opts.OrphanGrace, func() {
		h.expireOrphan(o, fmt.Sprintf("orphaned: the client's connection was gone for the orphan grace (%s) without a resumption", h.opts.OrphanGrace))
	})
	// The oldest beyond the bound leave the list under the same lock, so
	// concurrent additions each evict a different orphan (choosing the
	// front and removing it later let two of them pick the same one).
	var evict []*orphan
	for h.orphans.Len() > h.opts.MaxOrphans {
		e := h.orphans.Front().Value.(*orphan)
		h.orphans.Remove(e.elem)
		e.elem = nil
		evict = append(evict, e)
	}
	h.omu.Unlock()
	for _, e := range evict {
		h.forgetOrphan(e)
		h.giveUpOrphan(e, fmt.Sprintf("orphaned: more than %d requests wait for clients that left (MaxOrphans); the oldest is given up", h.opts.MaxOrphans))
	}
}

// releaseOrphan forgets o (the client came back, the session ended, the
// client cancelled it, or it expired); false if it was forgotten already.
func (h *Handler) releaseOrphan(o *orphan) bool {
	h.omu.Lock()
	if o.elem == nil {
		h.omu.Unlock()
		return false
	}
	h.orphans.Remove(o.elem)
	o.elem = nil
	h.omu.Unlock()
	h.forgetOrphan(o)
	return true
}

// forgetOrphan stops o's grace timer and drops it from its session, once
// it has left the handler's list.
func (h *Handler) forgetOrphan(o *orphan) {
	if o.timer != nil {
		o.timer.Stop()
	}
	o.s.mu.Lock()
	if o.s.orphans[o.id] == o {
		delete(o.s.orphans, o.id)
	}
	o.s.mu.Unlock()
}

// releaseOrphanOf forgets the orphan of request id in session s, if any.
func (h *Handler) releaseOrphanOf(s *legacySession, id jsonrpc2.RequestID) {
	s.mu.Lock()
	o := s.orphans[id]
	s.mu.Unlock()
	if o != nil {
		h.releaseOrphan(o)
	}
}

// expireOrphan gives up on o: its stream is dropped and a handler still
// running is cancelled with reason.
func (h *Handler) expireOrphan(o *orphan, reason string) {
	if h.releaseOrphan(o) {
		h.giveUpOrphan(o, reason)
	}
}

// giveUpOrphan is expireOrphan's work on an orphan already released.
func (h *Handler) giveUpOrphan(o *orphan, reason string) {
	s := o.s
	s.mu.Lock()
	running := o.running
	if o.st != nil {
		if s.reqStreams[o.id] == o.st {
			delete(s.reqStreams, o.id)
		}
		if s.resumable[o.st.ev.stream] == o.st {
			delete(s.resumable, o.st.ev.stream)
		}
	}
	s.mu.Unlock()
	if o.st != nil {
		o.st.abort()
		o.st.dropLinger()
	}
	if !running {
		return
	}
	if conn := s.getConn(); conn != nil {
		if err := conn.AbandonIncoming(o.id, reason); err == nil {
			h.log.Info("orphaned request cancelled", "session", s.id, "id", o.id.String(), "reason", reason)
		}
	}
}

// answered notes that the handler of request id answered (its response was
// written, stored or dropped): an orphan without a stream to keep is then
// forgotten.
func (s *legacySession) answered(id jsonrpc2.RequestID) {
	s.mu.Lock()
	o := s.orphans[id]
	if o != nil {
		o.running = false
	}
	s.mu.Unlock()
	if o != nil && o.st == nil {
		s.h.releaseOrphan(o)
	}
}

// Orphans returns the number of legacy requests waiting for clients that
// left (for tests and metrics).
func (h *Handler) Orphans() int {
	h.omu.Lock()
	defer h.omu.Unlock()
	return h.orphans.Len()
}
