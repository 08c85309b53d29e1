package runtime

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"sync"
)

// DefaultMaxMessageSize is the stdio transport's size limit when
// StdioOptions.MaxMessageSize is zero.
const DefaultMaxMessageSize = 16 << 20

// StdioOptions configures NewStdioTransport.
type StdioOptions struct {
	// MaxMessageSize bounds one message in bytes, both directions; a longer
	// line is refused with a *MessageTooLargeError rather than buffered
	// without limit. Zero means DefaultMaxMessageSize.
	MaxMessageSize int
}

// NewStdioTransport returns the MCP stdio transport over r and w: one JSON
// message per line, each line ended by '\n'. Messages containing a raw newline
// are compacted before writing (a newline can only be insignificant whitespace
// in valid JSON), so a message never spans two lines. A UTF-8 byte order mark
// at the very start of r is skipped.
//
// Reads and writes happen on two goroutines the transport owns, so that Read
// and Write can be abandoned: Read returns ErrTransportClosed as soon as Close
// is called, and Write returns when its ctx ends or Close is called, even if
// the underlying Read or Write never returns (os.Stdin cannot be interrupted
// by closing it, and a peer that stops reading blocks a pipe write forever).
// Close closes r and w if they implement io.Closer; a goroutine still blocked
// in them is left behind until they return, which for a process's stdio
// means until it exits. Close also ends the transport's goroutines, so a
// transport must be closed (a Conn closes its own). The reader reads at most one line ahead of the Conn,
// so when the Conn stops reading, so does the transport.
func NewStdioTransport(r io.Reader, w io.Writer, opts StdioOptions) Transport {
	max := opts.MaxMessageSize
	if max <= 0 {
		max = DefaultMaxMessageSize
	}
	return &stdioTransport{
		r:      newLineReader(r),
		rc:     r,
		w:      w,
		max:    max,
		lines:  make(chan readResult),
		writes: make(chan writeReq),
		closed: make(chan struct{}),
	}
}

type stdioTransport struct {
	r   *lineReader
	rc  io.Reader
	w   io.Writer
	max int

	started bool  // a line was read: a BOM is only skipped at the start; Read's goroutine only
	rerr    error // the fatal read error, returned again by later Reads; Read's goroutine only

	readOnce  sync.Once
	lines     chan readResult
	writeOnce sync.Once
	writes    chan writeReq // unbuffered: a send succeeds only when the writer is idle
	wbuf      []byte        // the writer goroutine's

	closed    chan struct{}
	closeOnce sync.Once
	closeErr  error
}

type readResult struct {
	line []byte
	err  error
}

type writeReq struct {
	msg  []byte
	done chan error // buffered: the writer never blocks on an abandoned Write
}

// Read returns the next non-blank line without its line ending. Read must not
// be called concurrently with itself (the Conn has one read loop).
func (t *stdioTransport) Read(ctx context.Context) ([]byte, error) {
	if t.rerr != nil {
		return nil, t.rerr
	}
	t.readOnce.Do(func() { go t.reader() })
	for {
		var r readResult
		select {
		case r = <-t.lines:
		case <-t.closed:
			return nil, ErrTransportClosed
		}
		first := !t.started
		t.started = true
		if r.err != nil {
			if !errors.Is(r.err, ErrMessageTooLarge) {
				t.rerr = r.err
			}
			return nil, r.err
		}
		line := r.line
		if first {
			// Editors and some Windows hosts start a UTF-8 stream with a
			// byte order mark; it is not JSON, so drop it, but only there.
			line = bytes.TrimPrefix(line, []byte("\xef\xbb\xbf"))
		}
		if len(trimSpace(line)) == 0 {
			continue // blank lines are not messages; skip rather than answer -32700
		}
		return line, nil
	}
}

// reader reads lines one at a time and hands each to Read; it stops at the
// first fatal error or when the transport is closed.
func (t *stdioTransport) reader() {
	for {
		line, err := t.readLine()
		select {
		case t.lines <- readResult{line, err}:
		case <-t.closed:
			return
		}
		if err != nil && !errors.Is(err, ErrMessageTooLarge) {
			return
		}
	}
}

func (t *stdioTransport) readLine() ([]byte, error) {
	// A line longer than the buffer arrives in fragments. They are kept as
	// copies and joined once at the end into a slice of exactly the line's
	// size: growing one slice by append would leave up to a quarter of
	// spare capacity that nobody uses, yet that stays alive as long as the
	// request (its params alias the line) and is not charged to the Conn's
	// in-flight budget, which counts the bytes of the message.
	var parts [][]byte
	size := 0
	for {
		frag, err := t.r.ReadSlice('\n')
		if err == nil || (err == io.EOF && (len(frag) > 0 || parts != nil)) || errors.Is(err, bufio.ErrBufferFull) {
			if size+len(frag) > t.max+2 { // +2 for "\r\n"
				size += len(frag)
				if err == nil {
					return nil, &MessageTooLargeError{Size: size, Limit: t.max}
				}
				if err == io.EOF {
					return nil, io.EOF // truncated and oversized: nothing to skip to
				}
				return nil, t.discardLine(size)
			}
			if err == nil && parts == nil {
				// The common case: the whole line fitted the buffer. Copy it,
				// since the buffer is reused by the next read.
				line := trimEOL(frag)
				if len(line) > t.max {
					return nil, &MessageTooLargeError{Size: len(line), Limit: t.max}
				}
				out := make([]byte, len(line))
				copy(out, line)
				return out, nil
			}
			if err == nil || err == io.EOF {
				out := make([]byte, 0, size+len(frag))
				for _, p := range parts {
					out = append(out, p...)
				}
				line := trimEOL(append(out, frag...))
				if len(line) > t.max {
					return nil, &MessageTooLargeError{Size: len(line), Limit: t.max}
				}
				return line, nil
			}
			parts = append(parts, bytes.Clone(frag))
			size += len(frag)
			continue
		}
		return nil, err
	}
}

// discardLine skips the rest of an oversized line so the next line is read
// intact, then reports the refusal.
func (t *stdioTransport) discardLine(size int) error {
	for {
		frag, err := t.r.ReadSlice('\n')
		size += len(frag)
		if err == nil {
			return &MessageTooLargeError{Size: size, Limit: t.max}
		}
		if !errors.Is(err, bufio.ErrBufferFull) {
			if err == io.EOF {
				return io.EOF
			}
			return err
		}
	}
}

func trimEOL(b []byte) []byte {
	if n := len(b); n > 0 && b[n-1] == '\n' {
		b = b[:n-1]
	}
	if n := len(b); n > 0 && b[n-1] == '\r' {
		b = b[:n-1]
	}
	return b
}

// Write writes msg and a newline as one write on the writer goroutine, so
// concurrent messages never interleave. It gives up when ctx ends or the
// transport is closed before the message is handed to the writer, and when
// the transport is closed while the underlying write is blocked; the message
// may then still be written later, whole, or not at all.
func (t *stdioTransport) Write(ctx context.Context, msg []byte) error {
	if bytes.IndexByte(msg, '\n') >= 0 || bytes.IndexByte(msg, '\r') >= 0 {
		var buf bytes.Buffer
		if err := json.Compact(&buf, msg); err != nil {
			return err
		}
		msg = buf.Bytes()
	}
	if len(msg) > t.max {
		return &MessageTooLargeError{Size: len(msg), Limit: t.max, Write: true}
	}
	return t.send(ctx, msg)
}

// writeBatch writes msgs as one write: lines joined by newlines. Messages
// that need compacting or are over the limit are not batched.
func (t *stdioTransport) writeBatch(ctx context.Context, msgs [][]byte) error {
	n := 0
	for _, msg := range msgs {
		if len(msg) > t.max || bytes.IndexByte(msg, '\n') >= 0 || bytes.IndexByte(msg, '\r') >= 0 {
			return errNotBatchable
		}
		n += len(msg) + 1
	}
	buf := make([]byte, 0, n)
	for i, msg := range msgs {
		if i > 0 {
			buf = append(buf, '\n')
		}
		buf = append(buf, msg...)
	}
	return t.send(ctx, buf) // the writer adds the last newline
}

// send hands one or more framed lines, without the final newline, to the
// writer goroutine; see Write.
func (t *stdioTransport) send(ctx context.Context, msg []byte) error {
	t.writeOnce.Do(func() { go t.writer() })
	req := writeReq{msg: msg, done: doneChans.Get().(chan error)}
	select {
	case t.writes <- req:
	case <-ctx.Done():
		doneChans.Put(req.done)
		return ctx.Err()
	case <-t.closed:
		doneChans.Put(req.done)
		return ErrTransportClosed
	}
	// Once handed over the message is being written: ctx no longer
	// applies (the caller must be able to trust that an error means "not
	// delivered"), only Close abandons the wait.
	select {
	case err := <-req.done:
		doneChans.Put(req.done)
		return err
	case <-t.closed:
		select {
		case err := <-req.done:
			doneChans.Put(req.done)
			return err
		default:
			return ErrTransportClosed // the writer may still send: req.done is not reused
		}
	}
}

// doneChans recycles Write's result channels (one allocation per message
// otherwise). A channel goes back only once drained.
var doneChans = sync.Pool{New: func() any { return make(chan error, 1) }}

func (t *stdioTransport) writer() {
	for {
		select {
		case req := <-t.writes:
			t.wbuf = append(append(t.wbuf[:0], req.msg...), '\n')
			_, err := t.w.Write(t.wbuf)
			if cap(t.wbuf) > 1<<20 {
				t.wbuf = nil // do not pin one huge message's buffer forever
			}
			req.done <- err
		case <-t.closed:
			return
		}
	}
}

// Close closes the reader and the writer when they can be closed.
func (t *stdioTransport) Close() error {
	t.closeOnce.Do(func() {
		close(t.closed)
		var errs []error
		if c, ok := t.rc.(io.Closer); ok {
			errs = append(errs, c.Close())
		}
		if c, ok := t.w.(io.Closer); ok && any(c) != any(t.rc) {
			errs = append(errs, c.Close())
		}
		t.closeErr = errors.Join(errs...)
	})
	return t.closeErr
}
