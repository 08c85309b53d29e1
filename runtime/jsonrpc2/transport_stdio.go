package jsonrpc2

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"runtime"
	"sync"
	"syscall"

	"github.com/mcpgen/mcpgen/runtime/internal/jsonscan"
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
// Reads happen on a goroutine the transport owns, so that Read can be
// abandoned: it returns ErrTransportClosed as soon as Close is called, even
// if the underlying Read never returns (os.Stdin cannot be interrupted by
// closing it). The reader reads at most one line ahead of the Conn, so when
// the Conn stops reading, so does the transport.
//
// Writes happen on the goroutine that calls Write, one message at a time,
// whatever w is: a wrapped writer (a tee, a counting tap, a bufio in front
// of stdout, exec.Cmd's stdin pipe) costs no more than an *os.File. A Write
// waiting for its turn gives up when its ctx ends or Close is called; a
// write in progress ends when w's Write returns, and Write then reports
// what w did: nil means the bytes went out, even if Close came meanwhile.
// Close ends a write blocked in w when closing w interrupts it (an os.Pipe,
// a net.Conn, exec.Cmd's stdin pipe, an io.Pipe); a write blocked in a w it
// cannot interrupt (a process's own stdout, which is usually a blocking
// descriptor, when the peer stops reading; a wrapper without Close) holds
// its caller until w returns. A Conn's Close is bounded by its ctx all the
// same: a handler blocked writing its response is left behind like one that
// ignores its ctx.
//
// Close closes r and w if they implement io.Closer; the reader goroutine,
// if still blocked in r, is left behind until r returns, which for a
// process's own stdin means until it exits. Close also ends the reader
// goroutine, so a transport must be closed (a Conn closes its own).
func NewStdioTransport(r io.Reader, w io.Writer, opts StdioOptions) *StdioTransport {
	max := opts.MaxMessageSize
	if max <= 0 {
		max = DefaultMaxMessageSize
	}
	t := &StdioTransport{
		r:      newLineReader(r),
		rc:     r,
		w:      w,
		max:    max,
		lines:  make(chan readResult),
		wsem:   make(chan struct{}, 1),
		pipe:   rawPipe(w),
		closed: make(chan struct{}),
	}
	return t
}

// Reads keep their goroutine whatever the reader: reading the next line
// while the Conn routes the last one is worth more to concurrent callers
// (a fifth more calls/s with 16 callers) than the hand-off costs. When
// traffic is sparse the reader lets the Conn route first (yieldToConn).
//
// Writes had a goroutine of their own too, for every w that Close could not
// interrupt (anything but a polled *os.File or a net.Conn), so that Write
// could walk away from a write blocked in it. That cost two wake-ups per
// message (the writer's, then the caller's), a third of a round trip's
// throughput behind any wrapper on an idle 16-core machine (issue 32; on a
// shared 2-core host, where both goroutines mostly share a core, it is
// inside the noise), and it made Write report
// ErrTransportClosed for bytes already out when Close came before the
// writer goroutine confirmed them (issue 32). Writing on the caller's
// goroutine fixes both; what it gives up is only walking away from a write
// that is truly stuck, which a Conn's Close bounds by its ctx.

// StdioTransport is the MCP stdio Transport NewStdioTransport returns; its
// zero value is not usable.
type StdioTransport struct {
	r   *lineReader
	rc  io.Reader
	w   io.Writer
	max int

	started bool  // a line was read: a BOM is only skipped at the start; Read's goroutine only
	rerr    error // the fatal read error, returned again by later Reads; Read's goroutine only

	readOnce sync.Once
	lines    chan readResult
	wsem     chan struct{}   // cap 1: the turn to write, held while writing
	wbuf     []byte          // held with wsem
	pipe     syscall.RawConn // w when it is a pipe tryWrite can write without blocking; nil otherwise

	closed    chan struct{}
	closeOnce sync.Once
	closeErr  error
}

type readResult struct {
	line []byte
	err  error
}

// Read returns the next non-blank line without its line ending. Read must not
// be called concurrently with itself (the Conn has one read loop).
func (t *StdioTransport) Read(ctx context.Context) ([]byte, error) {
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
		if len(jsonscan.Trim(line)) == 0 {
			continue // blank lines are not messages; skip rather than answer -32700
		}
		return line, nil
	}
}

// reader reads lines one at a time and hands each to Read; it stops at the
// first fatal error or when the transport is closed.
func (t *StdioTransport) reader() {
	for {
		fills := t.r.fills
		line, err := t.readLine()
		r := readResult{line, err}
		handed := false // Read was waiting, and has the line now
		select {
		case t.lines <- r:
			handed = true
		default:
			select {
			case t.lines <- r:
			case <-t.closed:
				return
			}
		}
		if err != nil && !errors.Is(err, ErrMessageTooLarge) {
			return
		}
		if handed && t.r.fills != fills && t.r.buffered() == 0 {
			t.yieldToConn()
		}
	}
}

// yieldToConn lets the Conn route the line just handed to it before the
// reader reads again. The reader calls it when traffic is sparse: the Conn
// was waiting for the line (so its read loop was just readied, to run on
// this P after the reader) and the line came alone from its read (so the
// next read most likely finds nothing: a system call, then parking in the
// poller, or for a blocking stdin a thread held in the kernel). Without the
// yield a peer's cancellation reached its handler only after that read.
//
// On a 2-core VM it took the cancel latency's p99 from 21-35 to 6-8 µs over
// an os.Pipe and from 95-101 to 42-46 µs from a blocking stdin, and p50 from
// 2.3-2.4 to 1.8 µs (BenchmarkCancelLatency*). It also shortens the critical
// path enough that fewer threads are woken for nothing, which is most of the
// tail on a VM whose idle vCPUs halt (bench/notes.md). Under load lines
// arrive in batches, or the Conn is still busy with the last one, and the
// reader keeps reading ahead: 16 concurrent callers measured the same
// calls/s with and without it, a sequential caller about 3 % more.
func (t *StdioTransport) yieldToConn() { runtime.Gosched() }

func (t *StdioTransport) readLine() ([]byte, error) {
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
func (t *StdioTransport) discardLine(size int) error {
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

// Write writes msg and a newline as one write on the caller's goroutine, one
// message at a time, so concurrent messages never interleave. It gives up,
// having written nothing, when ctx ends or the transport is closed before
// the message's turn comes. Once writing, it returns what w's Write
// returned: nil when the message went out, even if the transport was closed
// meanwhile (so an error always means "not delivered"), and
// ErrTransportClosed when Close interrupted the write.
func (t *StdioTransport) Write(ctx context.Context, msg []byte) error {
	if hasLineBreak(msg) {
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
func (t *StdioTransport) writeBatch(ctx context.Context, msgs [][]byte) error {
	n := 0
	for _, msg := range msgs {
		if len(msg) > t.max || hasLineBreak(msg) {
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

// send writes one or more framed lines, without the final newline; see
// Write.
func (t *StdioTransport) send(ctx context.Context, msg []byte) error {
	return t.writeInline(ctx, msg)
}

// writeInline writes msg on the caller's goroutine, one writer at a time.
// ctx is given up on only while waiting for the turn: once w has been
// handed bytes, only w's answer says whether they went out.
func (t *StdioTransport) writeInline(ctx context.Context, msg []byte) error {
	select {
	case t.wsem <- struct{}{}:
	case <-ctx.Done():
		return ctx.Err()
	case <-t.closed:
		return ErrTransportClosed
	}
	defer func() { <-t.wsem }()
	if isClosed(t.closed) {
		return ErrTransportClosed
	}
	err := t.writeLine(msg)
	if err != nil && isClosed(t.closed) {
		return ErrTransportClosed // Close ended the write (and no success is hidden: err is not nil)
	}
	return err
}

// frame puts msg and its newline in wbuf, for whoever holds the turn to write.
func (t *StdioTransport) frame(msg []byte) []byte {
	t.wbuf = append(append(t.wbuf[:0], msg...), '\n')
	return t.wbuf
}

// writeLine writes msg and its newline as one write; called by whoever holds
// the turn to write.
func (t *StdioTransport) writeLine(msg []byte) error {
	_, err := t.w.Write(t.frame(msg))
	if cap(t.wbuf) > 1<<20 {
		t.wbuf = nil // do not pin one huge message's buffer forever
	}
	return err
}

// hasLineBreak reports whether msg holds a CR or LF, which a line may not.
func hasLineBreak(msg []byte) bool {
	return bytes.IndexByte(msg, '\n') >= 0 || bytes.IndexByte(msg, '\r') >= 0
}

// atomicPipeWrite is the largest write tryWrite makes: POSIX's smallest
// PIPE_BUF, below which a pipe takes a write whole or not at all.
const atomicPipeWrite = 512

// tryWrite writes a small message now, on the caller's goroutine, if that
// cannot block: w is a pipe, nobody else is writing, and the pipe has room
// for the whole line. It reports false, having written nothing, otherwise;
// the caller then queues the message as usual. The Conn uses it for its
// own cancellations, so that the notification is on the wire before the
// cancelled Call returns instead of after two goroutine hand-offs, each a
// wake-up of the other CPU in the worst case.
func (t *StdioTransport) tryWrite(msg []byte) bool {
	if t.pipe == nil || len(msg)+1 > atomicPipeWrite || hasLineBreak(msg) {
		return false
	}
	select {
	case t.wsem <- struct{}{}:
	default:
		return false
	}
	defer func() { <-t.wsem }()
	if isClosed(t.closed) {
		return false
	}
	line := t.frame(msg)
	n := writeNonBlocking(t.pipe, line)
	if n > 0 && n < len(line) {
		// A pipe does not split a write this small; should one ever do
		// so, the line is finished here rather than left torn.
		t.w.Write(line[n:])
	}
	return n > 0
}

// Close closes the reader and the writer when they can be closed.
func (t *StdioTransport) Close() error {
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
