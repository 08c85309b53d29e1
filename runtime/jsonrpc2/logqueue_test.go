package jsonrpc2

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// blockingWriter blocks every Write until release is closed: a stderr that
// the host never drains.
type blockingWriter struct{ release chan struct{} }

func (w blockingWriter) Write(p []byte) (int, error) { <-w.release; return len(p), nil }

// countingHandler counts the records handed to it (drop reports aside) and
// passes them on.
type countingHandler struct {
	slog.Handler
	n, reports *atomic.Uint64
}

func (h countingHandler) Handle(ctx context.Context, r slog.Record) error {
	if strings.HasPrefix(r.Message, "runtime dropped") {
		h.reports.Add(1)
	} else {
		h.n.Add(1)
	}
	return h.Handler.Handle(ctx, r)
}

// Issue 11, must-show 5: an observer that blocks forever and a logger whose
// writer blocks forever do not stall routing. 10,000 requests (half of them
// cancelled by the peer) all get exactly their outcome, a ping is answered,
// Close returns within its grace, and the dispatcher's counts are exact:
// delivered + dropped == produced, with produced checked against the
// workload for observer events.
func TestStuckObserverAndLoggerDoNotStallRouting(t *testing.T) {
	const n = 10000
	release := make(chan struct{})
	var released sync.Once
	free := func() { released.Do(func() { close(release) }) }
	defer free()

	var obsCalls atomic.Uint64
	obs := func(Event) { obsCalls.Add(1); <-release }
	var logged, reports atomic.Uint64
	log := slog.New(countingHandler{
		Handler: slog.NewTextHandler(blockingWriter{release}, &slog.HandlerOptions{Level: slog.LevelDebug}),
		n:       &logged, reports: &reports,
	})
	p := newRawPeer(t, WithObserver(obs), WithLogger(log))
	p.conn.Handle("work", func(ctx context.Context, req *Request) (any, error) {
		if strings.Contains(string(req.Params), "wait") {
			<-ctx.Done()
		}
		return map[string]any{}, nil
	})

	go func() {
		for i := 0; i < n; i++ {
			if i%2 == 0 {
				p.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"work","params":{"wait":true}}`, i))
				p.send(fmt.Sprintf(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":%d,"reason":"r"}}`, i))
			} else {
				p.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"work"}`, i))
			}
		}
	}()
	answered := map[string]int{}
	for len(answered) < n/2 {
		m := p.nextJSON()
		id := fmt.Sprint(m["id"])
		answered[id]++
		if _, ok := m["result"]; !ok {
			t.Fatalf("not a result: %v", m)
		}
	}
	// The ping's answer comes after every response the Conn wrote before
	// it: none may be for a cancelled (even) request, or a second one.
	for _, l := range p.sync("ping-after") {
		id := fmt.Sprint(decodeLine(t, l)["id"])
		answered[id]++
	}
	for id, k := range answered {
		var i int
		fmt.Sscan(id, &i)
		if i%2 == 0 || k != 1 {
			t.Errorf("id %s answered %d times (even ids were cancelled)", id, k)
		}
	}
	if len(answered) != n/2 {
		t.Errorf("%d requests answered, want %d", len(answered), n/2)
	}

	t0 := time.Now()
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	err := p.conn.Close(ctx)
	if took := time.Since(t0); took > time.Second {
		t.Errorf("Close took %v with a stuck sink; its grace was 200ms", took)
	}
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("Close = %v, want the grace's deadline (the sink never drained)", err)
	}

	free()
	within(t, p.conn.disp.exited, "dispatcher exit after the sink was released")
	st := p.conn.DispatchStats()
	t.Logf("stats %+v; observer calls %d, records delivered %d, drop reports %d", st, obsCalls.Load(), logged.Load(), reports.Load())
	if st.Events != n {
		// Each cancelled request: received, applied. Nothing else.
		t.Errorf("events produced %d, want %d", st.Events, n)
	}
	if st.EventsDropped == 0 {
		t.Error("no events dropped with a stuck observer")
	}
	if got := obsCalls.Load() + st.EventsDropped; got != st.Events {
		t.Errorf("events: delivered %d + dropped %d != produced %d", obsCalls.Load(), st.EventsDropped, st.Events)
	}
	if st.Records == 0 || st.RecordsDropped == 0 {
		t.Errorf("records produced %d, dropped %d: want both > 0 with a stuck Debug logger", st.Records, st.RecordsDropped)
	}
	if got := logged.Load() + st.RecordsDropped; got != st.Records {
		t.Errorf("records: delivered %d + dropped %d != produced %d", logged.Load(), st.RecordsDropped, st.Records)
	}
}

// Events reach the observer in the order the Conn produced them, and after a
// clean Close every one was delivered and the count says so.
func TestObserverOrderAndFlushAtClose(t *testing.T) {
	const n = 300 // under the queue's bound: nothing may be dropped
	var mu sync.Mutex
	var got []Event
	var logs logCapture
	p := newRawPeer(t, WithObserver(func(e Event) {
		mu.Lock()
		got = append(got, e)
		mu.Unlock()
	}), WithLogger(slog.New(&logs)))
	for i := 0; i < n; i++ {
		p.send(fmt.Sprintf(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":%d}}`, i))
	}
	p.sync("s")
	if rest := p.closeAndDrain(); len(rest) != 0 {
		t.Fatalf("unexpected output %q", rest)
	}
	st := p.conn.DispatchStats()
	mu.Lock()
	defer mu.Unlock()
	if st.Events != 2*n || st.EventsDropped != 0 || uint64(len(got)) != st.Events {
		t.Fatalf("stats %+v, delivered %d; want %d events, none dropped, all delivered by Close", st, len(got), 2*n)
	}
	for i := 0; i < n; i++ {
		r, ig := got[2*i], got[2*i+1]
		want := fmt.Sprint(i)
		if r.Kind != EventReceived || ig.Kind != EventIgnored || r.ID.String() != want || ig.ID.String() != want {
			t.Fatalf("events %d,%d = %v %v / %v %v, want received then ignored for id %s", 2*i, 2*i+1, r.Kind, r.ID, ig.Kind, ig.ID, want)
		}
	}
	if !logs.contains("cancellation ignored", "why=unknown or completed request") {
		t.Error("rate-limited ignored-cancellation line missing")
	}
}

// A Conn with no observer produces no events and allocates nothing for
// them: event() is a nil check.
func TestNoObserverNoEventAllocs(t *testing.T) {
	c := NewConn(nil, WithLogger(quietLogger()), WithPolicy(testPolicy(SideAny)))
	e := Event{Kind: EventReceived, Direction: Incoming, ID: mustID(t, "1"), Reason: "x"}
	if a := testing.AllocsPerRun(1000, func() { c.event(e) }); a != 0 {
		t.Errorf("event() without observer: %v allocs", a)
	}
	if st := c.DispatchStats(); st.Events != 0 {
		t.Errorf("events counted without an observer: %+v", st)
	}
}

// When a stuck sink recovers, what was queued is delivered, the log says how
// much was lost (Warn records whose counts add up to the drops), and Close
// succeeds.
func TestDropReportAfterSinkRecovers(t *testing.T) {
	const n = 2000
	release := make(chan struct{})
	var once sync.Once
	defer once.Do(func() { close(release) })
	var obsCalls atomic.Uint64
	var logs logCapture
	p := newRawPeer(t, WithObserver(func(Event) { <-release; obsCalls.Add(1) }), WithLogger(slog.New(&logs)))
	for i := 0; i < n; i++ {
		p.send(fmt.Sprintf(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":%d}}`, i))
	}
	p.sync("s") // routing went on while the observer was stuck
	once.Do(func() { close(release) })
	p.closeAndDrain() // Close: nil, or it fails the test
	st := p.conn.DispatchStats()
	if st.Events != 2*n || st.EventsDropped == 0 || obsCalls.Load()+st.EventsDropped != st.Events {
		t.Fatalf("stats %+v, observer calls %d: want %d events, some dropped, the rest delivered", st, obsCalls.Load(), 2*n)
	}
	// The reports add up to the drops (Close's own record may be dropped
	// too, while the recovered sink still works through the queue, and is
	// then reported separately at the end).
	var reported uint64
	for _, r := range logs.records {
		if i := strings.Index(r, "runtime dropped"); i == 0 {
			var n uint64
			fmt.Sscanf(r[strings.Index(r, "dropped=")+len("dropped="):], "%d", &n)
			reported += n
		}
	}
	if want := st.EventsDropped + st.RecordsDropped; reported != want {
		t.Errorf("drop reports add up to %d, want %d: %q", reported, want, logs.records)
	}
}
