// Package bench runs mcpgen, the official go-sdk and mcp-go side by side on
// the same tools (echo, and block, which waits for its context), over two
// os.Pipe pairs carrying stdio JSON lines and over each SDK's in-memory
// transport. It is a separate module so that the peer SDKs never enter the
// main module's dependencies; cmd/mcpbench prints the tables and writes
// BENCHMARKS.md, and bench_test.go holds the same figures as Go benchmarks.
package bench

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"os"
	"sync"
	"sync/atomic"
	"time"
)

// TransportKind names the two ways client and server are joined.
type TransportKind string

const (
	// Pipe is two os.Pipe pairs with newline-delimited JSON (stdio).
	Pipe TransportKind = "os.Pipe"
	// Mem is the SDK's own in-memory transport.
	Mem TransportKind = "in-memory"
	// WrappedPipe is Pipe with each side's writer behind a counting tap
	// (Tap): what a user's tee, counter or bufio in front of a pipe, or
	// exec.Cmd's stdin pipe, looks like to an SDK, an io.Writer that is
	// not an *os.File. Issue 32: mcpgen must serve it within 10 % of Pipe.
	WrappedPipe TransportKind = "os.Pipe, wrapped writers"
)

// isPipe reports whether t runs over the os.Pipe pairs.
func (t TransportKind) isPipe() bool { return t == Pipe || t == WrappedPipe }

// Tap counts the bytes written through it to W. It has no Close, so nothing
// can interrupt a write blocked in it, as with most wrappers.
type Tap struct {
	W io.Writer
	N atomic.Int64
}

// Write writes p to W and counts what W took.
func (t *Tap) Write(p []byte) (int, error) {
	n, err := t.W.Write(p)
	t.N.Add(int64(n))
	return n, err
}

// writeCloser is w if it is an io.WriteCloser (the pipes' files, which the
// SDKs that want one close at the end) and w with a Close that does nothing
// otherwise (a Tap: p.close closes the file under it).
func writeCloser(w io.Writer) io.WriteCloser {
	if wc, ok := w.(io.WriteCloser); ok {
		return wc
	}
	return nopCloser{w}
}

type nopCloser struct{ io.Writer }

func (nopCloser) Close() error { return nil }

// writers returns the server's and the client's writer for t: the pipes'
// own files, or taps over them for WrappedPipe (p.close closes the files).
func (p *pipes) writers(t TransportKind) (server, client io.Writer) {
	if t == WrappedPipe {
		return &Tap{W: p.sw}, &Tap{W: p.cw}
	}
	return p.sw, p.cw
}

// Hooks let the block tool report its handler's life: Started when the
// handler runs, Done when it has seen its context end.
type Hooks struct {
	Started func()
	Done    func()
	// Bound, when positive, ends the block handler after that long even if
	// its context is still live, calling Expired instead of Done: a peer
	// that never delivers the cancellation to its handler is reported as
	// such instead of leaking a blocked handler.
	Bound   time.Duration
	Expired func()
}

// Client is a connected, initialized client of a server with the echo and
// block tools (not a session.Client: each peer's own client sits behind it).
type Client struct {
	// Echo calls the echo tool and returns the text of its result.
	Echo func(ctx context.Context, text string) (string, error)
	// Block calls the block tool, which returns only when cancelled.
	Block func(ctx context.Context) error
	// Close ends both sides.
	Close func()
	// Revision is the protocol revision the session negotiated, read
	// from the peer's own client after connecting (never assumed).
	Revision string
}

// Peer is one MCP implementation under test.
type Peer struct {
	// Name is how tables name it.
	Name string
	// Connect builds server and client over t, registers the tools,
	// connects with the protocol version pinned to rev, and returns the
	// connected Client.
	Connect func(t TransportKind, rev string, h *Hooks) (*Client, error)
	// CancelsUnderLoad reports whether cancelling 1,000 in-flight calls
	// reaches every handler (mcp-go v1.2's stdio server runs a few handlers
	// at a time and stops reading while its queue is full, so the
	// notifications/cancelled are never read). A single cancelled call
	// reaches the handler with every peer.
	CancelsUnderLoad bool
}

// over is p's Connector over t at revision rev.
func (p Peer) over(t TransportKind, rev string) Connector {
	return func(h *Hooks) (*Client, error) { return p.Connect(t, rev, h) }
}

// The revisions every table is run at: the newest of the initialize era
// and the stateless one. Every peer is pinned to the row's revision.
const (
	Rev20251125 = "2025-11-25"
	Rev20260728 = "2026-07-28"
)

// Revisions are the protocol revisions every table has rows for.
var Revisions = []string{Rev20251125, Rev20260728}

// Peers are the implementations compared, mcpgen first.
var Peers = []Peer{mcpgenPeer, gosdkPeer, mcpgoPeer}

// echoText is the body every peer's echo tool shares.
func echoText(in string) string { return in }

// blockBody is the body every peer's block tool shares.
func blockBody(ctx context.Context, h *Hooks) error {
	if h != nil && h.Started != nil {
		h.Started()
	}
	var bound <-chan time.Time
	if h != nil && h.Bound > 0 {
		t := time.NewTimer(h.Bound)
		defer t.Stop()
		bound = t.C
	}
	select {
	case <-ctx.Done():
		if h != nil && h.Done != nil {
			h.Done()
		}
		return ctx.Err()
	case <-bound:
		if h.Expired != nil {
			h.Expired()
		}
		return errBound
	}
}

var errBound = errors.New("block: bound reached before any cancellation")

// pipes are two os.Pipe pairs: the server reads sr and writes sw, the client
// reads cr and writes cw.
type pipes struct {
	sr, cw, cr, sw *os.File
}

func newPipes() (*pipes, error) {
	sr, cw, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	cr, sw, err := os.Pipe()
	if err != nil {
		sr.Close()
		cw.Close()
		return nil, err
	}
	return &pipes{sr: sr, cw: cw, cr: cr, sw: sw}, nil
}

func (p *pipes) close() {
	for _, f := range []io.Closer{p.cw, p.sw, p.sr, p.cr} {
		f.Close()
	}
}

// closeOnce makes a Close safe to call twice.
func closeOnce(f func()) func() {
	var once sync.Once
	return func() { once.Do(f) }
}

var errNoText = errors.New("result has no structured text")

// structuredText is the text member of an echo result's structured content
// as go-sdk's and mcp-go's clients decode it (a map).
func structuredText(sc any) (string, error) {
	m, ok := sc.(map[string]any)
	if !ok {
		return "", errNoText
	}
	s, ok := m["text"].(string)
	if !ok {
		return "", errNoText
	}
	return s, nil
}

// quote moves the echo text into a JSON string (the raw client's requests).
func quote(s string) json.RawMessage {
	b, _ := json.Marshal(s)
	return b
}
