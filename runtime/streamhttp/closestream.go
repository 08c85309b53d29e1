package streamhttp

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/mcpgen/mcpgen/runtime/jsonrpc2"
)

// ErrStreamNotResumable is CloseSSEStream's answer when the request's
// response stream could not be resumed by its client, so it is left open.
var ErrStreamNotResumable = errors.New("streamhttp: the request's stream is not resumable (modern request, resumption off, no event id sent, or already ended)")

// CloseSSEStream ends the HTTP response that carries the stream of the
// legacy (2025-03-26 … 2025-11-25) request whose handler ctx is ctx, without
// ending the stream: it sends the SSE retry field (retry; zero means
// Options.SSERetry) and closes the response, as 2025-11-25 transports lets a
// server do at any time ("the server MAY close the connection before
// terminating the SSE stream; it SHOULD send a retry field"), to free the
// connection of a long call. The handler goes on; what it sends next,
// its answer included, is kept in the EventStore until the client, having
// waited retry, resumes with a GET carrying Last-Event-ID (on any replica,
// with a shared EventStore) and receives it. The request is an orphan until
// then: Options.OrphanGrace bounds the wait. mcpgen's ClientTransport
// resumes by itself.
//
// A stream that has sent nothing yet is opened as SSE first (its priming
// event carries the id the client resumes from). It returns
// ErrStreamNotResumable, leaving the stream as it is, for a modern
// (2026-07-28) request (no resumption in that era), with
// Options.DisableResumption, for a client older than 2025-11-25 that has no
// event id yet (it gets no priming event), when the answer was already sent
// or the stream already closed, and for a ctx that is no legacy request's.
func CloseSSEStream(ctx context.Context, retry time.Duration) error {
	s, _ := ctx.Value(sessionKey{}).(*legacySession)
	req, ok := jsonrpc2.RequestFromContext(ctx)
	if s == nil || !ok || ctx.Err() != nil {
		return ErrStreamNotResumable
	}
	if retry <= 0 {
		retry = s.h.opts.SSERetry
	}
	s.mu.Lock()
	st := s.reqStreams[req.ID]
	s.mu.Unlock()
	if st == nil {
		return ErrStreamNotResumable
	}
	return st.closeForPoll(retry, s.h.share.primesPolls())
}

// closeForPoll sends the retry field and detaches the stream from its
// response (CloseSSEStream): the Handler's wait for it returns, the response
// ends, and what is sent next is stored for the client's resumption. With
// shared (clustered), a stream that has stored nothing yet stores its
// priming event (index 0, no data): the client resumes from that id, maybe
// on another replica, which must find the stream known, not lost.
func (s *stream) closeForPoll(retry time.Duration, shared bool) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed || s.detached || s.ev == nil || s.ev.closed {
		return ErrStreamNotResumable
	}
	if s.ev.index == 0 && !s.ev.priming {
		return ErrStreamNotResumable // the client has no event id to resume from
	}
	s.deadline()
	s.openSSELocked()
	if s.mode != modeSSE {
		return ErrStreamNotResumable
	}
	if shared && s.ev.index == 0 {
		_ = s.ev.store.Append(context.Background(), s.ev.session, s.ev.stream, 0, nil)
	}
	if _, err := fmt.Fprintf(s.w, "retry: %d\n\n", retry.Milliseconds()); err == nil {
		_ = s.ctl().Flush()
	}
	// Written or not (a client gone meanwhile resumes all the same), the
	// stream now waits for a resumption.
	s.detachLocked()
	return nil
}
