package jsonrpc2

import (
	"context"
	"io"
	"strings"
	"testing"
	"time"
)

// stuckReader yields its lines, then blocks forever in Read, ignoring Close:
// os.Stdin held open by the peer behaves like this.
type stuckReader struct {
	r       io.Reader
	forever chan struct{}
}

func (s *stuckReader) Read(p []byte) (int, error) {
	n, err := s.r.Read(p)
	if err == io.EOF {
		<-s.forever
	}
	return n, err
}

// stuckWriter blocks forever in Write: a stdout nobody reads.
type stuckWriter struct{ forever chan struct{} }

func (s *stuckWriter) Write(p []byte) (int, error) { <-s.forever; return 0, io.ErrClosedPipe }

// Issue 11, must-show 2: whatever the peer does (input held open, output
// never read) and whatever the handler does (ignore its ctx), Run returns as
// soon as its ctx ends and Close returns when its own ctx ends: the stdio
// transport walks away from the blocked read. Since issue 32 writes are made
// on the caller's goroutine, so a response blocked in a writer nothing can
// interrupt holds its handler's goroutine, as a handler ignoring its ctx
// does: Close still returns when its ctx ends, and waits for both.
func TestShutdownBoundedWithStuckPeer(t *testing.T) {
	forever := make(chan struct{}) // closed before the end: lets the abandoned goroutines end before goleak looks
	in := `{"jsonrpc":"2.0","id":1,"method":"stubborn"}` + "\n" + `{"jsonrpc":"2.0","id":2,"method":"quick"}` + "\n"
	tr := NewStdioTransport(&stuckReader{strings.NewReader(in), forever}, &stuckWriter{forever}, StdioOptions{})
	c := NewConn(tr, WithLogger(quietLogger()), WithPolicy(testPolicy(SideAny)))
	started := make(chan struct{}, 2)
	release := make(chan struct{})
	c.Handle("stubborn", func(ctx context.Context, req *Request) (any, error) {
		started <- struct{}{}
		<-release // ignores ctx
		return nil, nil
	})
	c.Handle("quick", func(ctx context.Context, req *Request) (any, error) {
		started <- struct{}{}
		return "blocked in write", nil
	})
	ctx, cancel := context.WithCancel(context.Background())
	ran := make(chan error, 1)
	go func() { ran <- c.Run(ctx) }()
	<-started
	<-started
	t0 := time.Now()
	cancel() // SIGTERM
	within(t, chanOf(ran), "Run after its ctx ended")
	closeCtx, cancelClose := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancelClose()
	if err := c.Close(closeCtx); err == nil {
		t.Fatal("Close reported success while a handler ignores its ctx")
	}
	if d := time.Since(t0); d > time.Second {
		t.Fatalf("shutdown took %v", d)
	}
	close(release)
	closeCtx2, cancelClose2 := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancelClose2()
	if err := c.Close(closeCtx2); err == nil {
		t.Fatal("Close reported success while a response is blocked in a write")
	}
	close(forever) // the peer reads again (here: the write fails)
	if err := c.Close(context.Background()); err != nil {
		t.Fatalf("last Close: %v", err)
	}
}

func chanOf(ch <-chan error) <-chan struct{} {
	done := make(chan struct{})
	go func() { <-ch; close(done) }()
	return done
}
