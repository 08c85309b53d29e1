package streamhttp

import (
	"bytes"
	"errors"
	"net/http"
	"runtime"
	"sync"
	"time"
)

// errStreamClosed is returned for a write to a stream that has finished or
// whose client went away.
var errStreamClosed = errors.New("streamhttp: response stream closed")

type streamMode uint8

const (
	modePending streamMode = iota // headers not written yet: JSON or SSE still open
	modeJSON
	modeSSE
)

// stream is one HTTP response that carries messages: a POST's response or a
// GET stream. All writes go through mu, and abort marks it closed under mu,
// so nothing touches the ResponseWriter after ServeHTTP has returned.
type stream struct {
	mu        sync.Mutex
	w         http.ResponseWriter
	rc        *http.ResponseController
	mode      streamMode
	allowJSON bool
	closed    bool
	done      chan struct{}
	header    http.Header   // extra response headers (session id)
	timeout   time.Duration // per-write deadline, so a client that stops reading cannot block the Conn
	doneShut  bool          // done is closed

	// ev, for a legacy stream, gives its SSE events ids, sends the priming
	// event and retry field, and keeps the events in the EventStore so a
	// client can resume with Last-Event-ID. Nil in the modern era, which has
	// no resumption (2026-07-28): no ids, no retry.
	ev *eventLog
	// detached: the client left a resumable stream before its end. What is
	// sent is stored, not written, until a GET with Last-Event-ID attaches
	// a new response (resume) or the orphan grace drops the stream.
	detached bool
	// final: the stream's last message was stored while detached.
	final bool
	// lingering: the stream has ended, its last message written, but its
	// events are kept for a short while for a client that still resumes.
	lingering bool
	// gen counts the responses the stream had: a resumption takes the
	// stream over, and the response it left must not file it afterwards.
	gen uint64
}

func newStream(w http.ResponseWriter, allowJSON bool, writeTimeout time.Duration) *stream {
	return &stream{w: w, allowJSON: allowJSON, done: make(chan struct{}), timeout: writeTimeout}
}

// send writes one message. A final message ends the stream: in pending mode
// it is written as a plain JSON body.
func (s *stream) send(msg []byte, final bool) error { return s.sendStatus(msg, final, 0) }

// sendFinal sends a stream's last message; status is the HTTP status it
// gets if it goes as a plain JSON body.
func (s *stream) sendFinal(msg []byte, status int) error { return s.sendStatus(msg, true, status) }

// sendStatus is send with the status of a final JSON body decided by the
// caller (0: 200).
func (s *stream) sendStatus(msg []byte, final bool, code int) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed || (s.detached && s.final) {
		return errStreamClosed
	}
	if s.detached {
		// Kept for the client's resumption; nothing reaches the wire.
		if err := s.ev.append(msg); err != nil {
			return errStreamClosed
		}
		s.final = final
		return nil
	}
	s.deadline()
	var err error
	status := http.StatusOK
	if s.mode == modePending && final && code != 0 {
		status = code
	}
	// A final message that is the first one goes as plain JSON, unless
	// SSE was asked for; an error that has its own HTTP status (a modern
	// 400 or 404) goes as JSON with that status even then, as the status
	// must be decided before a stream starts.
	if s.mode == modePending && final && (s.allowJSON || status != http.StatusOK) {
		h := s.w.Header()
		s.copyHeader(h)
		h.Set("Content-Type", "application/json")
		s.w.WriteHeader(status)
		_, err = s.w.Write(msg)
	} else {
		s.openSSELocked()
		var id string
		if s.ev != nil {
			if id, err = s.ev.next(msg); err != nil {
				s.ev = nil // the store refused: this stream goes on without ids
				err = nil
			}
		}
		err = writeEvent(s.w, id, msg)
		if err == nil {
			err = s.ctl().Flush()
		}
	}
	switch {
	case err == nil && final && s.ev != nil && s.mode == modeSSE:
		s.lingerLocked()
	case err != nil && s.ev != nil && s.mode == modeSSE && s.ev.index > 0 && !s.ev.closed:
		// The client is gone, but the message is stored under its id: it
		// waits for the client's resumption with the rest.
		s.detachLocked()
		s.final = final
		return nil
	case err != nil || final:
		s.finishLocked()
	}
	if err != nil {
		return errStreamClosed
	}
	return nil
}

// lingerLocked ends a resumable stream whose last message was written, but
// keeps its events for a while: the client may not have received what the
// socket accepted, and may still resume (Handler.linger drops it).
func (s *stream) lingerLocked() {
	s.closed = true
	s.lingering = true
	s.w, s.rc = nil, nil // its response is over
	s.shutDoneLocked()
}

// dropLinger forgets the events of a lingering stream.
func (s *stream) dropLinger() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.lingering {
		s.lingering = false
		s.ev.close()
	}
}

// openSSE commits the stream to SSE now (listen and GET streams, keep-alive).
func (s *stream) openSSE() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed || s.detached {
		return errStreamClosed
	}
	s.deadline()
	s.openSSELocked()
	if err := s.ctl().Flush(); err != nil {
		s.finishLocked()
		return errStreamClosed
	}
	return nil
}

// keepAlive writes an SSE comment, committing a pending stream to SSE.
func (s *stream) keepAlive() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed || s.detached {
		return
	}
	s.deadline()
	s.openSSELocked()
	if _, err := s.w.Write([]byte(":\n\n")); err != nil || s.ctl().Flush() != nil {
		if s.ev != nil && !s.ev.closed {
			s.detachLocked() // resumable: the client may come back
		} else {
			s.finishLocked()
		}
	}
}

func (s *stream) openSSELocked() {
	if s.mode != modePending {
		return
	}
	s.mode = modeSSE
	h := s.w.Header()
	s.copyHeader(h)
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-cache")
	h.Set("X-Accel-Buffering", "no")
	s.w.WriteHeader(http.StatusOK)
	if s.ev != nil {
		s.ev.prime(s.w)
	}
}

func (s *stream) copyHeader(h http.Header) {
	for k, v := range s.header {
		h[k] = v
	}
}

func (s *stream) deadline() {
	if s.timeout > 0 {
		_ = s.ctl().SetWriteDeadline(time.Now().Add(s.timeout))
	}
}

// abort closes the stream without writing: the client left, or the server
// is ending it. It reports whether the stream was still open.
func (s *stream) abort() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return false
	}
	s.finishLocked()
	return true
}

// yieldToCancelled gives the processor to a handler this goroutine has just
// cancelled: directly when a modern stream closed, or through the session's
// Conn when it delivered a legacy notifications/cancelled. Cancelling only
// readies the handler to run next on this processor, and whatever this
// goroutine does next (starting the Conn's close on a new goroutine, writing
// the 202, net/http finishing the response) would otherwise run first. The
// yield took a modern abort's handler-ctx-done median from 25–27 µs to 11–13
// µs (bench: BenchmarkHTTPCancelLatency), level with a handler whose context
// is the request's own.
func yieldToCancelled() { runtime.Gosched() }

// finished reports whether nothing more can be written.
func (s *stream) finished() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.closed
}

func (s *stream) finishLocked() {
	if !s.closed && s.ev != nil {
		s.ev.close() // over: nobody will resume it
	}
	s.closed = true
	s.shutDoneLocked()
}

func (s *stream) shutDoneLocked() {
	if !s.doneShut {
		s.doneShut = true
		close(s.done)
	}
}

// watch returns the channel closed when the current response of the
// stream ends (a resumed stream gets a new one) and that response's number.
func (s *stream) watch() (<-chan struct{}, uint64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.done, s.gen
}

// detach is abort, for response gen of the stream, for a client that went away from a resumable stream (a
// legacy SSE stream that has sent its priming event): the stream stays
// open without a response, keeping what is sent for a resumption. It
// reports false, having aborted the stream, when it is not resumable, and
// whether the stream was open in the first place.
func (s *stream) detach(gen uint64) (detached, wasOpen bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed || s.detached || s.gen != gen {
		return false, false
	}
	if s.ev == nil || s.mode != modeSSE {
		s.finishLocked()
		return false, true
	}
	s.detachLocked()
	return true, true
}

func (s *stream) detachLocked() {
	s.detached = true
	s.w, s.rc = nil, nil // the old response is over: nothing of it is kept
	s.shutDoneLocked()
}

// writeEvent writes one SSE message event, with its id unless id is empty. Messages from the runtime are
// compact JSON, but a newline inside one would end the data field early, so
// it is split over several data lines, which SSE joins back with "\n".
func writeEvent(w http.ResponseWriter, id string, msg []byte) error {
	var buf bytes.Buffer
	buf.Grow(len(msg) + 24 + len(id))
	buf.WriteString("event: message\n")
	if id != "" {
		buf.WriteString("id: ")
		buf.WriteString(id)
		buf.WriteString("\n")
	}
	for {
		i := bytes.IndexByte(msg, '\n')
		buf.WriteString("data: ")
		if i < 0 {
			buf.Write(bytes.TrimSuffix(msg, []byte("\r")))
			buf.WriteString("\n")
			break
		}
		buf.Write(bytes.TrimSuffix(msg[:i], []byte("\r")))
		buf.WriteString("\n")
		msg = msg[i+1:]
	}
	buf.WriteString("\n")
	_, err := w.Write(buf.Bytes())
	return err
}

// generation returns the number of the stream's current response.
func (s *stream) generation() uint64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.gen
}

// ctl returns the controller of the stream's response, made on first use:
// a stream answered with one plain JSON body (most) never needs it.
// Called with mu held, while the stream has a response.
func (s *stream) ctl() *http.ResponseController {
	if s.rc == nil {
		s.rc = http.NewResponseController(s.w)
	}
	return s.rc
}
