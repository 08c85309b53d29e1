package jsonrpc2

import (
	"context"
	"errors"
	"runtime"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// spyTransport records the ids of the responses its Conn writes.
type spyTransport struct {
	Transport
	mu        sync.Mutex
	responses map[RequestID]int
	notify    chan struct{} // if set, receives once per response written
}

func newSpy(t Transport) *spyTransport {
	return &spyTransport{Transport: t, responses: map[RequestID]int{}}
}

func (s *spyTransport) Write(ctx context.Context, msg []byte) error {
	if m, err := DecodeMessage(msg); err == nil && (m.Kind == KindResponse || m.Kind == KindErrorResponse) {
		s.mu.Lock()
		s.responses[m.ID]++
		s.mu.Unlock()
		if s.notify != nil {
			s.notify <- struct{}{}
		}
	}
	return s.Transport.Write(ctx, msg)
}

func (s *spyTransport) count() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for _, c := range s.responses {
		n += c
	}
	return n
}

// drain reads and discards everything the Conn writes until EOF.
func drain(t Transport) <-chan struct{} {
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			if _, err := t.Read(context.Background()); err != nil {
				return
			}
		}
	}()
	return done
}

func reqMsg(id RequestID, method string) []byte {
	return appendRequest(nil, id, method, []byte(`{"i":1}`))
}

func cancelMsg(id RequestID) []byte {
	return appendNotification(nil, "notifications/cancelled", append(append([]byte(`{"requestId":`), id.appendJSON(nil)...), `,"reason":"race"}`...))
}

// Must-show 3: ≥10,000 cancel-versus-completion races under -race, each with
// exactly one outcome: a response, or an applied cancellation and no
// response.
func TestStressCancelVersusCompletion(t *testing.T) {
	const n = 10000
	a, b := NewPipe()
	spy := newSpy(a)
	var mu sync.Mutex
	applied := map[RequestID]int{}
	outcomes := make(chan struct{}, 2*n)
	obs := func(e Event) {
		if e.Kind == EventApplied && e.Direction == Incoming && e.Source == SourcePeer {
			mu.Lock()
			applied[e.ID]++
			mu.Unlock()
			outcomes <- struct{}{}
		}
	}
	spy.notify = outcomes
	// The observer is this test's witness, so its queue holds the whole
	// burst: by default a loaded machine may drop events (counted), which
	// would read as lost outcomes.
	server := NewConn(spy, WithLogger(quietLogger()), WithPolicy(testPolicy(SideAny)), WithObserver(obs), WithDispatchQueue(4*n, 64<<20))
	server.Handle("race", func(ctx context.Context, req *Request) (any, error) {
		n, _ := req.ID.Int64()
		switch n % 4 { // vary how long the handler takes to lose or win
		case 1:
			runtime.Gosched()
		case 2:
			for i := 0; i < 200 && ctx.Err() == nil; i++ {
				runtime.Gosched()
			}
		case 3:
			select {
			case <-ctx.Done():
			case <-time.After(time.Duration(n%7) * time.Microsecond):
			}
		}
		return map[string]bool{"ok": true}, nil
	})
	server.Start()
	drained := drain(b)
	ctx := context.Background()
	// Every request is cancelled; the cancellation follows its request after
	// 0 to 4 further requests, so it lands before, during or after the
	// handler.
	cancelAfter := map[int][]int{}
	for i := 0; i < n; i++ {
		j := min(i+i%5, n-1)
		cancelAfter[j] = append(cancelAfter[j], i)
	}
	for j := 0; j < n; j++ {
		if err := b.Write(ctx, reqMsg(Int64ID(int64(j)), "race")); err != nil {
			t.Fatal(err)
		}
		for _, i := range cancelAfter[j] {
			if err := b.Write(ctx, cancelMsg(Int64ID(int64(i)))); err != nil {
				t.Fatal(err)
			}
		}
	}
	for got := 0; got < n; got++ {
		select {
		case <-outcomes:
		case <-time.After(60 * time.Second):
			t.Fatalf("only %d outcomes of %d (dispatch %+v)", got, n, server.DispatchStats())
		}
	}
	if err := server.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	if st := server.DispatchStats(); st.EventsDropped != 0 {
		t.Fatalf("the observer lost events: %+v", st)
	}
	b.Close()
	<-drained
	nApplied, nResp := 0, 0
	for i := 0; i < n; i++ {
		id := Int64ID(int64(i))
		mu.Lock()
		ap := applied[id]
		mu.Unlock()
		spy.mu.Lock()
		rs := spy.responses[id]
		spy.mu.Unlock()
		if ap+rs != 1 {
			t.Fatalf("request %d: %d cancellations applied and %d responses; want exactly one outcome", i, ap, rs)
		}
		nApplied += ap
		nResp += rs
	}
	t.Logf("%d races: %d cancelled without response, %d answered (cancellation arrived too late)", n, nApplied, nResp)
	if nApplied == 0 || nResp == 0 {
		t.Errorf("the test did not exercise both outcomes (%d applied, %d answered)", nApplied, nResp)
	}
}

// Must-show 10: 10,000 requests in flight, all cancelled; every handler
// observes its cancellation (a *CancelError from the peer) and no response is
// written for any of them.
func TestScaleCancelTenThousandInFlight(t *testing.T) {
	const n = 10000
	a, b := NewPipe()
	spy := newSpy(a)
	server := NewConn(spy, WithLogger(quietLogger()), WithPolicy(testPolicy(SideAny)), WithMaxInFlight(n)) // admit them all
	var started, observed, wrongCause atomic.Int64
	allStarted := make(chan struct{})
	allObserved := make(chan struct{})
	server.Handle("hold", func(ctx context.Context, req *Request) (any, error) {
		if started.Add(1) == n {
			close(allStarted)
		}
		<-ctx.Done()
		var ce *CancelError
		if !errors.As(context.Cause(ctx), &ce) || ce.Source != SourcePeer || ce.ID != req.ID {
			wrongCause.Add(1)
		}
		if observed.Add(1) == n {
			close(allObserved)
		}
		return "too late", nil
	})
	server.Start()
	drained := drain(b)
	ctx := context.Background()
	for i := 0; i < n; i++ {
		if err := b.Write(ctx, reqMsg(StringID("r"+strconv.Itoa(i)), "hold")); err != nil {
			t.Fatal(err)
		}
	}
	within(t, allStarted, "10,000 handlers to start")
	for i := 0; i < n; i++ {
		if err := b.Write(ctx, cancelMsg(StringID("r"+strconv.Itoa(i)))); err != nil {
			t.Fatal(err)
		}
	}
	within(t, allObserved, "10,000 handlers to observe cancellation")
	if err := server.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	b.Close()
	<-drained
	if w := wrongCause.Load(); w != 0 {
		t.Errorf("%d handlers saw a cause other than their own peer cancellation", w)
	}
	if c := spy.count(); c != 0 {
		t.Errorf("%d responses written for cancelled requests", c)
	}
}
