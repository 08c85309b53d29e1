package jsonrpc2

import (
	"context"
	"errors"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
)

// The outgoing side of the race: callers give up at random points while
// responses are on their way. For every call: Call returns either the result
// or ctx's error; a cancellation is sent only for calls whose response had
// not arrived when the caller gave up; and on the server each request has
// exactly one outcome.
func TestStressCallerCancelVersusResponse(t *testing.T) {
	const n = 3000
	sa, sb := NewPipe()
	spy := newSpy(sa)
	var mu sync.Mutex
	sent := map[RequestID]bool{}
	applied := map[RequestID]bool{}
	server := NewConn(spy, WithLogger(quietLogger()), WithPolicy(testPolicy(SideAny)), WithObserver(func(e Event) {
		if e.Kind == EventApplied && e.Source == SourcePeer {
			// Applied before the response: the request's one outcome.
			mu.Lock()
			applied[e.ID] = true
			mu.Unlock()
		}
	}), WithDispatchQueue(4*n, 64<<20), // the observers are witnesses: no drops under load
		// A caller that gives up starts its next call at once, while the
		// server may still be running the abandoned request's handler: the
		// requests in flight on the server are not bounded by the 64
		// callers, and refusing some (CodeServerBusy) is not this test's
		// subject (wire_admission_test.go).
		WithMaxInFlight(n))
	cw := &countingTransport{Transport: sb}
	client := NewConn(cw, WithLogger(quietLogger()), WithPolicy(testPolicy(SideAny)), WithObserver(func(e Event) {
		if e.Kind == EventSent {
			mu.Lock()
			sent[e.ID] = true
			mu.Unlock()
		}
	}), WithDispatchQueue(4*n, 64<<20))
	server.Handle("work", func(ctx context.Context, req *Request) (any, error) {
		for i := 0; i < 3 && ctx.Err() == nil; i++ {
			runtime.Gosched()
		}
		return map[string]int{"ok": 1}, nil
	})
	server.Start()
	client.Start()
	var wg sync.WaitGroup
	var okCalls, cancelledCalls int
	var resMu sync.Mutex
	sem := make(chan struct{}, 64)
	for i := 0; i < n; i++ {
		wg.Add(1)
		sem <- struct{}{}
		go func(i int) {
			defer wg.Done()
			defer func() { <-sem }()
			ctx, cancel := context.WithCancel(context.Background())
			go func() {
				for j := 0; j < i%6; j++ {
					runtime.Gosched()
				}
				cancel()
			}()
			var out map[string]int
			err := client.Call(ctx, "work", nil, &out)
			resMu.Lock()
			defer resMu.Unlock()
			switch {
			case err == nil && out["ok"] == 1:
				okCalls++
			case errors.Is(err, context.Canceled):
				cancelledCalls++
			default:
				t.Errorf("call %d: %v %v", i, err, out)
			}
		}(i)
	}
	wg.Wait()
	if err := client.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	// Let the server read everything the client wrote (it ends at EOF)
	// before closing it, or Close would cut off unread requests.
	within(t, server.Done(), "server to reach EOF")
	if err := server.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	for id := range applied {
		if !sent[id] {
			t.Errorf("server applied a cancellation for %s that the client never sent", id)
		}
	}
	spy.mu.Lock()
	defer spy.mu.Unlock()
	for id, c := range spy.responses {
		if c != 1 || applied[id] {
			t.Errorf("request %s: %d responses, cancellation applied %v", id, c, applied[id])
		}
	}
	// Calls whose caller gave up before the request was written have no
	// outcome on the server, and no cancellation.
	if total, written := len(spy.responses)+len(applied), int(cw.requests.Load()); total != written {
		t.Errorf("%d responses + %d applied cancellations, want one outcome for each of the %d requests written", len(spy.responses), len(applied), written)
	}
	if len(sent) > cancelledCalls {
		t.Errorf("%d cancellations sent for %d abandoned calls", len(sent), cancelledCalls)
	}
	t.Logf("%d calls: %d answered, %d abandoned (%d cancellations sent, %d applied)", n, okCalls, cancelledCalls, len(sent), len(applied))
}

// countingTransport counts the requests written successfully.
type countingTransport struct {
	Transport
	requests atomic.Int64
}

func (c *countingTransport) Write(ctx context.Context, msg []byte) error {
	err := c.Transport.Write(ctx, msg)
	if m, derr := DecodeMessage(msg); err == nil && derr == nil && m.Kind == KindRequest {
		c.requests.Add(1)
	}
	return err
}
