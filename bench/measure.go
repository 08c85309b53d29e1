package bench

import (
	"bufio"
	"context"
	"flag"
	"fmt"
	"os"
	"runtime"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// RoundTrip is the figure of one round-trip benchmark.
type RoundTrip struct {
	CallsPerSec float64
	Allocs      int64 // per round trip, client and server together
	Bytes       int64 // per round trip
	// Revision is the protocol revision the session negotiated.
	Revision string
	Err      error
}

// Connector connects a Client to a fresh server with the echo and
// block tools; h (may be nil) observes the block handler.
type Connector func(h *Hooks) (*Client, error)

// Echo measures sequential (callers 1) or concurrent echo round trips over
// one session with testing.Benchmark, for at least d.
func Echo(p Peer, t TransportKind, rev string, callers int, d time.Duration) RoundTrip {
	return echo(p.over(t, rev), callers, d)
}

func echo(connect Connector, callers int, d time.Duration) RoundTrip {
	s, err := connect(nil)
	if err != nil {
		return RoundTrip{Err: err}
	}
	defer s.Close()
	ctx := context.Background()
	var failed atomic.Value
	r := benchmark(d, func(b *testing.B) {
		b.ReportAllocs()
		if callers <= 1 {
			for i := 0; i < b.N; i++ {
				if got, err := s.Echo(ctx, "hello"); err != nil || got != "hello" {
					failed.Store(fmt.Errorf("echo: %q, %v", got, err))
					return
				}
			}
			return
		}
		b.SetParallelism((callers + runtime.GOMAXPROCS(0) - 1) / runtime.GOMAXPROCS(0))
		b.RunParallel(func(pb *testing.PB) {
			for pb.Next() {
				if _, err := s.Echo(ctx, "hello"); err != nil {
					failed.Store(err)
					return
				}
			}
		})
	})
	if e, ok := failed.Load().(error); ok {
		return RoundTrip{Err: e}
	}
	return RoundTrip{CallsPerSec: 1e9 / float64(r.NsPerOp()), Allocs: r.AllocsPerOp(), Bytes: r.AllocedBytesPerOp(), Revision: s.Revision}
}

// benchmark runs f with testing.Benchmark for about d (testing's own
// -test.benchtime, set here, decides b.N).
func benchmark(d time.Duration, f func(b *testing.B)) testing.BenchmarkResult {
	benchMu.Lock()
	defer benchMu.Unlock()
	testing.Init()
	if err := flag.Set("test.benchtime", d.String()); err != nil {
		panic(err)
	}
	return testing.Benchmark(f)
}

var benchMu sync.Mutex

// Latencies are cancel latency percentiles of two clocks started by the
// same cancel() of the caller's context while the block handler runs:
// until the server's handler sees its context done (P50, P90, P99), and
// until the caller's call returns (Ret50, Ret90, Ret99). The first is the
// cancellation crossing the wire; the second only the client library
// giving up locally, which is all a peer whose handler is never cancelled
// offers.
type Latencies struct {
	P50, P90, P99       time.Duration
	Ret50, Ret90, Ret99 time.Duration
	N                   int
	// Never: the handler was not cancelled; it ran to its bound (the
	// timeout). Only the caller-side figures are then set.
	Never bool
	// Revision is the protocol revision the session negotiated.
	Revision string
	Err      error
}

// CancelLatency measures n times, one call at a time, from cancelling the
// caller's context while the block handler runs to the handler seeing its
// context done, and to the caller's call returning.
func CancelLatency(p Peer, t TransportKind, rev string, n int, timeout time.Duration) Latencies {
	return CancelSamples(p, t, rev, n, timeout).Latencies()
}

// CancelSamples is CancelLatency's raw samples, for pooling rounds.
func CancelSamples(p Peer, t TransportKind, rev string, n int, timeout time.Duration) Samples {
	return cancelSamples(p.over(t, rev), n, timeout)
}

func cancelSamples(connect Connector, n int, timeout time.Duration) Samples {
	started := make(chan struct{}, 1)
	done := make(chan time.Time, 1)
	expired := make(chan struct{}, 1)
	s, err := connect(&Hooks{
		Started: func() { started <- struct{}{} },
		Done: func() {
			select {
			case done <- time.Now():
			default:
			}
		},
		Bound: timeout,
		Expired: func() {
			select {
			case expired <- struct{}{}:
			default:
			}
		},
	})
	if err != nil {
		return Samples{Err: err}
	}
	defer s.Close()
	wd := newWatchdog(2 * timeout)
	defer wd.stop()
	stalled := wd.stalled
	var lat, ret []time.Duration
	never := false
	for i := 0; i < n; i++ {
		ctx, cancel := context.WithCancel(context.Background())
		returned := make(chan time.Time, 1)
		go func() {
			s.Block(ctx)
			returned <- time.Now()
		}()
		select {
		case <-started:
		case <-stalled:
			cancel()
			return Samples{Err: fmt.Errorf("block handler did not start in %v", timeout)}
		}
		t0 := time.Now()
		cancel()
		var handlerAt, returnedAt time.Time
		for returnedAt.IsZero() || (handlerAt.IsZero() && !never) {
			select {
			case t1 := <-done:
				handlerAt = t1
			case t1 := <-returned:
				returnedAt = t1
			case <-expired:
				never = true
			case <-stalled:
				return Samples{Err: fmt.Errorf("cancelled call neither returned nor reached the handler in %v", 2*timeout)}
			}
		}
		wd.progress()
		ret = append(ret, returnedAt.Sub(t0))
		if !never {
			lat = append(lat, handlerAt.Sub(t0))
		}
	}
	return Samples{Handler: lat, Returned: ret, Never: never, Revision: s.Revision}
}

// Samples are the raw samples behind Latencies. The report takes a
// peer's samples in rounds, the peers in turn, and pools them (Add): a
// stretch of a shared host's time that is slow for everyone then falls on
// every peer alike, instead of on whichever peer was measuring.
type Samples struct {
	Handler  []time.Duration // cancel() to the handler seeing its context done
	Returned []time.Duration // cancel() to the caller's call returning
	Never    bool            // the handler was not cancelled (Latencies.Never)
	Revision string          // the negotiated protocol revision
	Err      error
}

// Add pools o's samples into s; the first error is kept.
func (s *Samples) Add(o Samples) {
	if s.Err == nil {
		s.Err = o.Err
	}
	s.Never = s.Never || o.Never
	if s.Revision == "" {
		s.Revision = o.Revision
	}
	s.Handler = append(s.Handler, o.Handler...)
	s.Returned = append(s.Returned, o.Returned...)
}

// Latencies computes the percentiles of the pooled samples.
func (s Samples) Latencies() Latencies {
	if s.Err != nil {
		return Latencies{Err: s.Err}
	}
	l := Latencies{N: max(len(s.Handler), len(s.Returned)), Never: s.Never, Revision: s.Revision}
	l.Ret50, l.Ret90, l.Ret99 = percentiles(s.Returned)
	if !s.Never {
		l.P50, l.P90, l.P99 = percentiles(s.Handler)
	}
	return l
}

func percentiles(d []time.Duration) (p50, p90, p99 time.Duration) {
	if len(d) == 0 {
		return
	}
	sort.Slice(d, func(i, j int) bool { return d[i] < d[j] })
	q := func(f float64) time.Duration { return d[int(f*float64(len(d)-1))] }
	return q(0.5), q(0.9), q(0.99)
}

// Mass is the figure of one cancel-under-load run.
type Mass struct {
	Elapsed  time.Duration // from the first cancel to the last handler done
	Started  int           // handlers that ran before the cancels
	Done     int           // handlers that saw their context done in time
	HeapPer  float64       // live heap per in-flight call, bytes
	GorosPer float64       // goroutines per in-flight call
	Revision string        // the negotiated protocol revision
	Err      error
}

// CancelMany starts n block calls, waits until their handlers run (or
// timeout), measures the live heap per in-flight call, then cancels every
// caller's context and times until every handler has seen its context done.
func CancelMany(p Peer, t TransportKind, rev string, n int, timeout time.Duration) Mass {
	return cancelMany(p.over(t, rev), n, timeout, 0)
}

// cancelMany is CancelMany on any Connector; a positive bound ends blocked
// handlers that are never cancelled after that long.
func cancelMany(connect Connector, n int, timeout, bound time.Duration) Mass {
	var started, done atomic.Int64
	allDone := make(chan struct{})
	var doneOnce sync.Once
	s, err := connect(&Hooks{
		Started: func() { started.Add(1) },
		Done: func() {
			if done.Add(1) == int64(n) {
				doneOnce.Do(func() { close(allDone) })
			}
		},
		Bound: bound,
	})
	if err != nil {
		return Mass{Err: err}
	}
	defer s.Close()
	runtime.GC()
	var before runtime.MemStats
	runtime.ReadMemStats(&before)
	g0 := runtime.NumGoroutine()
	cancels := make([]context.CancelFunc, n)
	for i := range cancels {
		ctx, cancel := context.WithCancel(context.Background())
		cancels[i] = cancel
		go s.Block(ctx)
	}
	deadline := time.Now().Add(timeout)
	for started.Load() < int64(n) && time.Now().Before(deadline) {
		time.Sleep(time.Millisecond)
	}
	m := Mass{Started: int(started.Load()), Revision: s.Revision}
	runtime.GC()
	var after runtime.MemStats
	runtime.ReadMemStats(&after)
	m.HeapPer = float64(int64(after.HeapAlloc)-int64(before.HeapAlloc)) / float64(n)
	m.GorosPer = float64(runtime.NumGoroutine()-g0) / float64(n)
	t0 := time.Now()
	for _, c := range cancels {
		c()
	}
	select {
	case <-allDone:
	case <-time.After(timeout):
	}
	m.Elapsed = time.Since(t0)
	m.Done = int(done.Load())
	return m
}

// Setup measures connecting, registering and initializing a session and
// closing it again.
func Setup(p Peer, t TransportKind, rev string, d time.Duration) RoundTrip {
	var failed error
	var negotiated string
	r := benchmark(d, func(b *testing.B) {
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			s, err := p.Connect(t, rev, nil)
			if err != nil {
				failed = err
				return
			}
			negotiated = s.Revision
			s.Close()
		}
	})
	if failed != nil {
		return RoundTrip{Err: failed}
	}
	return RoundTrip{CallsPerSec: 1e9 / float64(r.NsPerOp()), Allocs: r.AllocsPerOp(), Bytes: r.AllocedBytesPerOp(), Revision: negotiated}
}

// PipeFloor measures the bare round trip over the same os.Pipe pair: one
// goroutine writes a line the size of an echo request, the other reads it
// and writes one back, with no JSON at all: the floor under any stdio MCP
// round trip.
func PipeFloor(d time.Duration) RoundTrip {
	p, err := newPipes()
	if err != nil {
		return RoundTrip{Err: err}
	}
	defer p.close()
	line := []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hello"}}}` + "\n")
	go func() {
		buf := make([]byte, 4096)
		for {
			n, err := p.sr.Read(buf)
			if err != nil {
				return
			}
			if _, err := p.sw.Write(buf[:n]); err != nil {
				return
			}
		}
	}()
	r := benchmark(d, func(b *testing.B) {
		b.ReportAllocs()
		buf := make([]byte, 4096)
		for i := 0; i < b.N; i++ {
			if _, err := p.cw.Write(line); err != nil {
				b.Fatal(err)
			}
			got := 0
			for got < len(line) {
				n, err := p.cr.Read(buf)
				if err != nil {
					b.Fatal(err)
				}
				got += n
			}
		}
	})
	return RoundTrip{CallsPerSec: 1e9 / float64(r.NsPerOp()), Allocs: r.AllocsPerOp(), Bytes: r.AllocedBytesPerOp()}
}

// FourWakeFloor measures the least a stdio peer whose reader keeps reading
// while a handler runs, and whose caller is not its reader, can do: four
// wake-ups per round trip over the same os.Pipe pair. The caller writes a
// line the size of an echo request; the server's reader goroutine wakes (1),
// copies the line and hands it to a handler goroutine (2), which writes it
// back; the client's reader goroutine wakes (3) and hands its copy to the
// caller (4). No JSON. A round trip's distance from this is what an SDK
// costs beyond the hand-offs that shape needs (issue 32: within 2×).
func FourWakeFloor(d time.Duration) RoundTrip {
	p, err := newPipes()
	if err != nil {
		return RoundTrip{Err: err}
	}
	defer p.close()
	line := []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hello"}}}` + "\n")
	reader := func(f *os.File, to chan<- []byte) {
		defer close(to)
		br := bufio.NewReader(f)
		for {
			l, err := br.ReadSlice('\n')
			if err != nil {
				return
			}
			to <- append([]byte(nil), l...)
		}
	}
	requests := make(chan []byte)
	responses := make(chan []byte)
	go reader(p.sr, requests)
	go reader(p.cr, responses)
	go func() { // the handler
		for l := range requests {
			if _, err := p.sw.Write(l); err != nil {
				return
			}
		}
	}()
	r := benchmark(d, func(b *testing.B) {
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			if _, err := p.cw.Write(line); err != nil {
				b.Fatal(err)
			}
			if _, ok := <-responses; !ok {
				b.Fatal("the client's reader ended")
			}
		}
	})
	return RoundTrip{CallsPerSec: 1e9 / float64(r.NsPerOp()), Allocs: r.AllocsPerOp(), Bytes: r.AllocedBytesPerOp()}
}

// CancelFloor measures the bare cancellation over the same os.Pipe pair,
// with none of any SDK's code: a goroutine blocked on a context stands for
// the handler, a reader goroutine for the server's transport, and the clock
// runs from the write of one `notifications/cancelled` line until the
// handler goroutine sees its context done. It is the part of the "handler
// ctx done" clock that the pipe and the Go scheduler cost on this machine;
// the caller-return figures are not set.
func CancelFloor(n int, timeout time.Duration) Latencies {
	return CancelFloorSamples(n, timeout).Latencies()
}

// CancelFloorSamples is CancelFloor's raw samples, for pooling rounds.
func CancelFloorSamples(n int, timeout time.Duration) Samples {
	p, err := newPipes()
	if err != nil {
		return Samples{Err: err}
	}
	defer p.close()
	cancels := make(chan context.CancelFunc, 1)
	go func() {
		r := bufio.NewReader(p.sr)
		for {
			if _, err := r.ReadSlice('\n'); err != nil {
				return
			}
			(<-cancels)()
		}
	}()
	line := []byte(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1,"reason":"context canceled"}}` + "\n")
	wd := newWatchdog(timeout)
	defer wd.stop()
	lat := make([]time.Duration, 0, n)
	for i := 0; i < n; i++ {
		ctx, cancel := context.WithCancel(context.Background())
		cancels <- cancel
		running, done := make(chan struct{}), make(chan time.Time, 1)
		go func() {
			close(running)
			<-ctx.Done()
			done <- time.Now()
		}()
		<-running
		t0 := time.Now()
		if _, err := p.cw.Write(line); err != nil {
			return Samples{Err: err}
		}
		select {
		case t1 := <-done:
			lat = append(lat, t1.Sub(t0))
			wd.progress()
		case <-wd.stalled:
			return Samples{Err: fmt.Errorf("floor: the handler goroutine was not woken in %v", timeout)}
		}
	}
	return Samples{Handler: lat}
}

// Machine describes where the figures were taken.
func Machine() string {
	host, _ := os.Hostname()
	load, _ := os.ReadFile("/proc/loadavg")
	model := cpuModel()
	return fmt.Sprintf("%s/%s, %d cores (GOMAXPROCS %d), %s, %s, host %s, load average %s",
		runtime.GOOS, runtime.GOARCH, runtime.NumCPU(), runtime.GOMAXPROCS(0), model, runtime.Version(), host, loadAverage(string(load)))
}

// loadAverage is the first three fields of /proc/loadavg (1, 5 and 15
// minutes), without the run-queue and last-pid fields that follow.
func loadAverage(s string) string {
	f := strings.Fields(s)
	if len(f) > 3 {
		f = f[:3]
	}
	return strings.Join(f, " ")
}

func cpuModel() string {
	b, err := os.ReadFile("/proc/cpuinfo")
	if err != nil {
		return "cpu unknown"
	}
	for line := range strings.Lines(string(b)) {
		if name, ok := strings.CutPrefix(line, "model name"); ok {
			if _, v, ok := strings.Cut(name, ":"); ok {
				return strings.TrimSpace(v)
			}
		}
	}
	return "cpu unknown"
}

// watchdog ends a latency loop that stops making progress. The loops wait on
// its channel instead of on a timer of their own: a goroutine that blocks on
// a fresh timer puts it in the runtime's timer heap and, when it is the
// earliest, wakes the thread parked in the network poller to re-arm it
// (netpollBreak). With time.After in the loop that wake-up, an eventfd write
// and an inter-processor interrupt, fell inside every sample of every peer.
// The watchdog's one ticker is armed once, outside the samples.
type watchdog struct {
	stalled chan struct{} // closed when a whole period passed without progress
	done    chan struct{}
	n       atomic.Int64
}

// newWatchdog checks for progress every period.
func newWatchdog(period time.Duration) *watchdog {
	w := &watchdog{stalled: make(chan struct{}), done: make(chan struct{})}
	go func() {
		t := time.NewTicker(period)
		defer t.Stop()
		last := int64(-1)
		for {
			select {
			case <-w.done:
				return
			case <-t.C:
				n := w.n.Load()
				if n == last {
					close(w.stalled)
					return
				}
				last = n
			}
		}
	}()
	return w
}

// progress records a finished sample.
func (w *watchdog) progress() { w.n.Add(1) }

// stop ends the watchdog's goroutine.
func (w *watchdog) stop() { close(w.done) }
