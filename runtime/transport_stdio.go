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
// in valid JSON), so a message never spans two lines. Close closes r and w if
// they implement io.Closer; that is what unblocks a pending Read.
func NewStdioTransport(r io.Reader, w io.Writer, opts StdioOptions) Transport {
	max := opts.MaxMessageSize
	if max <= 0 {
		max = DefaultMaxMessageSize
	}
	return &stdioTransport{
		r:   bufio.NewReaderSize(r, 64<<10),
		rc:  r,
		w:   w,
		max: max,
		sem: make(chan struct{}, 1),
	}
}

type stdioTransport struct {
	r   *bufio.Reader
	rc  io.Reader
	w   io.Writer
	max int

	started bool // a line was read: a BOM is only skipped at the start

	sem  chan struct{} // write lock that a ctx can give up waiting on
	wbuf []byte        // guarded by sem

	closeOnce sync.Once
	closeErr  error
}

// Read returns the next non-blank line without its line ending.
func (t *stdioTransport) Read(ctx context.Context) ([]byte, error) {
	for {
		line, err := t.readLine()
		if err != nil {
			return nil, err
		}
		if !t.started {
			// Editors and some Windows hosts start a UTF-8 stream with a
			// byte order mark; it is not JSON, so drop it once, here.
			t.started = true
			line = bytes.TrimPrefix(line, []byte("\xef\xbb\xbf"))
		}
		if len(trimSpace(line)) == 0 {
			continue // blank lines are not messages; skip rather than answer -32700
		}
		return line, nil
	}
}

func (t *stdioTransport) readLine() ([]byte, error) {
	var acc []byte
	for {
		frag, err := t.r.ReadSlice('\n')
		if err == nil || (err == io.EOF && len(frag) > 0) || errors.Is(err, bufio.ErrBufferFull) {
			if len(acc)+len(frag) > t.max+2 { // +2 for "\r\n"
				size := len(acc) + len(frag)
				if err == nil {
					return nil, &MessageTooLargeError{Size: size, Limit: t.max}
				}
				if err == io.EOF {
					return nil, io.EOF // truncated and oversized: nothing to skip to
				}
				return nil, t.discardLine(size)
			}
			if err == nil && acc == nil {
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
			acc = append(acc, frag...)
			if err == nil || err == io.EOF {
				line := trimEOL(acc)
				if len(line) > t.max {
					return nil, &MessageTooLargeError{Size: len(line), Limit: t.max}
				}
				return line, nil
			}
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

// Write writes msg and a newline as one write, under a lock so concurrent
// messages never interleave.
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
	select {
	case t.sem <- struct{}{}:
	case <-ctx.Done():
		return ctx.Err()
	}
	defer func() { <-t.sem }()
	t.wbuf = append(append(t.wbuf[:0], msg...), '\n')
	_, err := t.w.Write(t.wbuf)
	if cap(t.wbuf) > 1<<20 {
		t.wbuf = nil // do not pin one huge message's buffer forever
	}
	return err
}

// Close closes the reader and the writer when they can be closed.
func (t *stdioTransport) Close() error {
	t.closeOnce.Do(func() {
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
