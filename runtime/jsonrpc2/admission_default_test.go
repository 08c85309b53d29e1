package jsonrpc2

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
)

// Issue 32, must-show 4: a load test's default of 1,000 calls in flight at
// once, against a server with the default admission bound
// (DefaultMaxInFlight, 1,024) over stdio, gets "server busy" for none of
// them: while all 1,000 handlers run, and when the 1,000 are cancelled and
// 1,000 more sent at once, as a load test's next round does (the cancelled
// handlers are still returning when the new requests arrive).
func TestDefaultAdmissionTakesThousandInFlight(t *testing.T) {
	const n = 1000
	sr, cw := osPipe(t)
	cr, sw := osPipe(t)
	server := NewConn(NewStdioTransport(sr, sw, StdioOptions{}), WithLogger(quietLogger()), WithPolicy(testPolicy(SideAny)))
	client := NewConn(NewStdioTransport(cr, cw, StdioOptions{}), WithLogger(quietLogger()), WithPolicy(testPolicy(SideAny)))
	defer func() {
		client.Close(context.Background())
		server.Close(context.Background())
	}()
	var started sync.WaitGroup
	var running atomic.Int64
	server.Handle("hold", func(ctx context.Context, req *Request) (any, error) {
		running.Add(1)
		defer running.Add(-1)
		started.Done()
		<-ctx.Done()
		return nil, ctx.Err()
	})
	server.Start()
	client.Start()

	// n workers, as a load test runs them: each holds a call until all n
	// handlers run, then, its call cancelled, sends the next one at once.
	errs := make(chan error, 2*n)
	ctx1, cancel1 := context.WithCancel(context.Background())
	ctx2, cancel2 := context.WithCancel(context.Background())
	defer cancel2()
	started.Add(n)
	for i := 0; i < n; i++ {
		go func() {
			err := client.Call(ctx1, "hold", nil, nil)
			errs <- err
			if errors.Is(err, context.Canceled) {
				errs <- client.Call(ctx2, "hold", nil, nil)
			}
		}()
	}
	allStarted := func(what string) {
		done := make(chan struct{})
		go func() { started.Wait(); close(done) }()
		select {
		case <-done:
		case err := <-errs:
			t.Fatalf("%s: a call ended before all %d handlers ran: %v", what, n, err)
		}
	}
	allStarted("first 1,000")
	started.Add(n)
	cancel1() // each worker's next call goes out while the cancelled handlers return
	got := 0
	for got < n { // the first round's results
		if err := <-errs; !errors.Is(err, context.Canceled) {
			t.Fatalf("first round: call ended with %v, want its cancellation", err)
		}
		got++
	}
	allStarted("next 1,000, sent while the first return")
	cancel2()
	for i := 0; i < n; i++ {
		if err := <-errs; !errors.Is(err, context.Canceled) {
			t.Fatalf("second round: call ended with %v, want its cancellation", err)
		}
	}
}
