package jsonrpc2

import (
	"context"
	"io"
	"runtime"
	"testing"
	"time"
)

// probeReader returns one line; on the next Read it records whether the
// Conn had already routed that line, then blocks until released.
type probeReader struct {
	line    []byte
	probe   func() bool
	routed  chan bool
	release chan struct{}
	reads   int
}

func (r *probeReader) Read(p []byte) (int, error) {
	r.reads++
	switch r.reads {
	case 1:
		return copy(p, r.line), nil
	case 2:
		r.routed <- r.probe()
	}
	<-r.release
	return 0, io.EOF
}

// With nothing more buffered, the stdio reader lets the Conn route the line
// it handed over before it reads again: on one P, without the yield, the
// read loop would wait behind that read (a system call and parking in the
// poller, for a pipe), and a peer's cancellation with it. The yield only
// applies when the read loop was already waiting for the line, which a GC
// preempting it before it waits can spoil, so the test asks for most of
// its attempts, not all; without the yield none of them passes.
func TestStdioReaderYieldsToRouteBeforeReadingOn(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	const attempts = 20
	routed := 0
	for range attempts {
		if routeBeforeNextRead(t) {
			routed++
		}
	}
	if routed < attempts*3/4 {
		t.Errorf("the reader read on before the Conn routed the line it had handed over in %d of %d attempts", attempts-routed, attempts)
	}
}

// routeBeforeNextRead serves one request line and reports whether the Conn
// had registered it by the time the reader read again.
func routeBeforeNextRead(t *testing.T) bool {
	pr := &probeReader{
		line:    []byte(`{"jsonrpc":"2.0","id":1,"method":"slow"}` + "\n"),
		routed:  make(chan bool, 1),
		release: make(chan struct{}),
	}
	c := NewConn(NewStdioTransport(pr, io.Discard, StdioOptions{}), WithLogger(quietLogger()), WithPolicy(testPolicy(SideAny)))
	pr.probe = func() bool {
		c.mu.Lock()
		defer c.mu.Unlock()
		_, ok := c.incoming[Int64ID(1)]
		return ok
	}
	c.Handle("slow", func(ctx context.Context, req *Request) (any, error) {
		<-ctx.Done()
		return nil, ctx.Err()
	})
	c.Start()
	routed := <-pr.routed
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := c.Close(ctx); err != nil {
		t.Errorf("Close: %v", err)
	}
	close(pr.release) // the reader's goroutine was left blocked in Read
	return routed
}
