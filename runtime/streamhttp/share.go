package streamhttp

import (
	"context"
	"encoding/json"
	"net/http"
	"strconv"
	"time"

	"github.com/mcpgen/mcpgen/runtime/jsonrpc2"
)

// sessionShare is the one seam between a legacy session and the other
// replicas serving it. The request path calls it unconditionally; what it
// does depends on Options.Sessions: soloShare (nil: the sessions live in
// this process, every method is nothing or the obvious local answer) or
// *replicas (cluster.go: the session store and the bus). Keeping the choice
// here, made once in newHandler, is why legacy_session.go has no branch on
// "clustered" and reads the same whether one replica runs or ten.
type sessionShare interface {
	// adopt returns the local copy of a session this replica does not
	// hold, built from the store (nil when unknown: the caller answers
	// 404; errStoreUnavailable: 503).
	adopt(r *http.Request, id string) (*legacySession, error)
	// arriving is called as a request of s is about to be handed to its
	// Conn; cancellable is false for initialize (never cancelled).
	arriving(s *legacySession, m *jsonrpc2.Message, cancellable bool)
	// delivered is called once the Conn has it (a cancellation that came
	// first through another replica is applied then).
	delivered(s *legacySession, id jsonrpc2.RequestID)
	// done forgets a request that no longer runs here.
	done(s *legacySession, id jsonrpc2.RequestID)
	// response is what goes out for a response of s: m.Data, or an error
	// in its place when the session could not be shared.
	response(s *legacySession, m *jsonrpc2.OutMessage) []byte
	// initialized records notifications/initialized.
	initialized(s *legacySession)
	// active notes activity of s at now (the store's LastActive).
	active(s *legacySession, now time.Time)
	// forwardCancel sends a cancellation whose request runs elsewhere to
	// the replica running it; forwarded false leaves it to the local
	// Conn; an error means it reached no one (the POST gets 503).
	forwardCancel(ctx context.Context, s *legacySession, params json.RawMessage) (forwarded bool, err error)
	// deleted ends s everywhere (DELETE from the client).
	deleted(s *legacySession)
	// endIdle ends s, idle here since before now - SessionIdleTimeout.
	endIdle(s *legacySession, now time.Time)
	// endUnfinished ends s, whose handshake did not complete here within
	// HandshakeTimeout.
	endUnfinished(s *legacySession, now time.Time)
	// streamName is the id of stream number n of a session: unique across
	// the replicas sharing it.
	streamName(n uint64) string
	// resumeElsewhere serves a GET resuming a stream this replica does not
	// hold, reporting false when nothing else holds it either (404).
	resumeElsewhere(w http.ResponseWriter, r *http.Request, s *legacySession, streamID string, after uint64) bool
	// primesPolls reports whether a stream closed for polling stores its
	// priming event (so another replica finds the stream known).
	primesPolls() bool
	// forget drops what the share holds of s, ended here.
	forget(s *legacySession)
	// close leaves the other replicas (Handler.Close).
	close()
}

// soloShare is sessionShare for one process: nothing is shared.
type soloShare struct{ h *Handler }

func (soloShare) adopt(*http.Request, string) (*legacySession, error)      { return nil, nil }
func (soloShare) arriving(*legacySession, *jsonrpc2.Message, bool)         {}
func (soloShare) delivered(*legacySession, jsonrpc2.RequestID)             {}
func (soloShare) done(*legacySession, jsonrpc2.RequestID)                  {}
func (soloShare) response(_ *legacySession, m *jsonrpc2.OutMessage) []byte { return m.Data }
func (soloShare) initialized(*legacySession)                               {}
func (soloShare) active(*legacySession, time.Time)                         {}
func (soloShare) forget(*legacySession)                                    {}
func (soloShare) close()                                                   {}
func (soloShare) streamName(n uint64) string                               { return strconv.FormatUint(n, 10) }
func (soloShare) primesPolls() bool                                        { return false }
func (soloShare) resumeElsewhere(http.ResponseWriter, *http.Request, *legacySession, string, uint64) bool {
	return false
}
func (sh soloShare) deleted(s *legacySession)                    { sh.h.endSession(s, "session deleted by the client") }
func (sh soloShare) endIdle(s *legacySession, _ time.Time)       { sh.h.endSession(s, "idle") }
func (sh soloShare) endUnfinished(s *legacySession, _ time.Time) { sh.h.endHandshakeless(s) }
func (soloShare) forwardCancel(context.Context, *legacySession, json.RawMessage) (bool, error) {
	return false, nil
}

// endHandshakeless ends a session that sent no notifications/initialized
// within HandshakeTimeout.
func (h *Handler) endHandshakeless(s *legacySession) {
	h.log.Info("session ended: no notifications/initialized within the handshake timeout", "session", s.id, "timeout", h.opts.HandshakeTimeout)
	h.endSession(s, "handshake not completed")
}
