package jsonrpc2

import (
	"context"
	"encoding/json"
	"os"
	"runtime"
	"sort"
	"strconv"
	"sync/atomic"
	"testing"
	"time"
)

// Benchmarks for issue 3, item 12. Run with:
//
//	go test -run XXX -bench . -benchmem ./runtime/
//
// Results are recorded in BENCHMARKS.md.

type benchArgs struct {
	Name      string         `json:"name"`
	Arguments map[string]any `json:"arguments"`
}

type benchResult struct {
	Content []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	} `json:"content"`
	IsError bool `json:"isError"`
}

func benchHandler(ctx context.Context, req *Request) (any, error) {
	var a benchArgs
	if err := json.Unmarshal(req.Params, &a); err != nil {
		return nil, NewInvalidParamsError(err.Error())
	}
	var r benchResult
	r.Content = append(r.Content, struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}{"text", "hello " + a.Name})
	return &r, nil
}

var benchParams = &benchArgs{Name: "greet", Arguments: map[string]any{"who": "world"}}

// osPipePair returns a client and a server Conn joined by two os.Pipe pairs
// with the stdio transport: real file descriptors, real JSON lines.
func osPipePair(b *testing.B) (server, client *Conn, cleanup func()) {
	sr, cw := osPipe(b)
	cr, sw := osPipe(b)
	server = NewConn(NewStdioTransport(sr, sw, StdioOptions{}), WithLogger(quietLogger()), WithPolicy(testPolicy(SideAny)))
	client = NewConn(NewStdioTransport(cr, cw, StdioOptions{}), WithLogger(quietLogger()), WithPolicy(testPolicy(SideAny)))
	return server, client, func() {
		client.Close(context.Background())
		server.Close(context.Background())
	}
}

func memPipePair(b *testing.B) (server, client *Conn, cleanup func()) {
	a, c := NewPipe()
	server = NewConn(a, WithLogger(quietLogger()), WithPolicy(testPolicy(SideAny)))
	client = NewConn(c, WithLogger(quietLogger()), WithPolicy(testPolicy(SideAny)))
	return server, client, func() {
		client.Close(context.Background())
		server.Close(context.Background())
	}
}

func benchRoundTrip(b *testing.B, mk func(*testing.B) (*Conn, *Conn, func()), parallel bool) {
	server, client, cleanup := mk(b)
	defer cleanup()
	server.Handle("tools/call", benchHandler)
	server.Start()
	client.Start()
	ctx := context.Background()
	b.ReportAllocs()
	b.ResetTimer()
	start := time.Now()
	if parallel {
		b.SetParallelism(8) // 16 callers on 2 cores
		b.RunParallel(func(pb *testing.PB) {
			for pb.Next() {
				var r benchResult
				if err := client.Call(ctx, "tools/call", benchParams, &r); err != nil {
					b.Error(err)
					return
				}
			}
		})
	} else {
		for i := 0; i < b.N; i++ {
			var r benchResult
			if err := client.Call(ctx, "tools/call", benchParams, &r); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), "roundtrips/s")
}

// Round trip of a tools/call with real JSON params and result (both sides:
// encode, write, read, decode, handler, and back).
func BenchmarkRoundTripOSPipe(b *testing.B)           { benchRoundTrip(b, osPipePair, false) }
func BenchmarkRoundTripOSPipe16Callers(b *testing.B)  { benchRoundTrip(b, osPipePair, true) }
func BenchmarkRoundTripMemPipe(b *testing.B)          { benchRoundTrip(b, memPipePair, false) }
func BenchmarkRoundTripMemPipe16Callers(b *testing.B) { benchRoundTrip(b, memPipePair, true) }

// rawServer is a server Conn over an os.Pipe pair whose client side is
// written and read directly, so a benchmark controls when each byte goes out.
type rawServer struct {
	conn *Conn
	w    *os.File // to the server
	r    *os.File // from the server
}

// newRawServer serves a Conn over two os.Pipes; opts come after the
// defaults (quiet, room for 10,000 requests), so they can replace them.
func newRawServer(b *testing.B, opts ...Option) *rawServer {
	sr, cw := osPipe(b)
	cr, sw := osPipe(b)
	opts = append([]Option{WithLogger(quietLogger()), WithPolicy(testPolicy(SideAny)), WithMaxInFlight(1 << 20)}, opts...) // the mass-cancel benchmarks hold 10,000
	c := NewConn(NewStdioTransport(sr, sw, StdioOptions{}), opts...)
	return &rawServer{conn: c, w: cw, r: cr}
}

// blockingStdin puts the server's read end in blocking mode (os.File.Fd
// does), before the Conn starts reading it.
func (s *rawServer) blockingStdin() {
	s.conn.t.(*StdioTransport).rc.(*os.File).Fd()
}

func (s *rawServer) close() {
	s.w.Close()
	s.conn.Close(context.Background())
	s.r.Close()
}

func (s *rawServer) send(b *testing.B, msg []byte) {
	if _, err := s.w.Write(append(msg, '\n')); err != nil {
		b.Fatal(err)
	}
}

// Cancellation latency: from the moment notifications/cancelled is written
// to the server's stdin until the handler's ctx is done. Reports p50 and p99.
func BenchmarkCancelLatency(b *testing.B) { benchCancelLatency(b, newRawServer(b)) }

// BenchmarkCancelLatencyBlockingStdin is BenchmarkCancelLatency with the
// server reading a blocking descriptor, as a process's own stdin usually
// is: its reads are system calls that hold a thread, not the poller's.
func BenchmarkCancelLatencyBlockingStdin(b *testing.B) {
	s := newRawServer(b)
	s.blockingStdin()
	benchCancelLatency(b, s)
}

// benchCancelLatency measures the latency on s, which it closes.
func benchCancelLatency(b *testing.B, s *rawServer) {
	defer s.close()
	started := make(chan struct{})
	doneAt := make(chan time.Time)
	s.conn.Handle("hold", func(ctx context.Context, req *Request) (any, error) {
		started <- struct{}{}
		<-ctx.Done()
		doneAt <- time.Now()
		return nil, nil
	})
	s.conn.Start()
	lat := make([]time.Duration, 0, b.N)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		id := Int64ID(int64(i))
		s.send(b, reqMsg(id, "hold"))
		<-started
		t0 := time.Now()
		s.send(b, cancelMsg(id))
		lat = append(lat, (<-doneAt).Sub(t0))
	}
	b.StopTimer()
	sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
	b.ReportMetric(float64(lat[len(lat)/2].Nanoseconds())/1e3, "p50-µs")
	b.ReportMetric(float64(lat[len(lat)*99/100].Nanoseconds())/1e3, "p99-µs")
}

// Heap and goroutines per in-flight request: 10,000 requests held by
// handlers; heap is measured after GC, so it excludes goroutine stacks
// (reported separately as stack-B/req).
func BenchmarkInFlightFootprint(b *testing.B) {
	const n = 10000
	for i := 0; i < b.N; i++ {
		a, c := NewPipe()
		server := NewConn(a, WithLogger(quietLogger()), WithPolicy(testPolicy(SideAny)), WithMaxInFlight(n)) // admit them all
		var started atomic.Int64
		all := make(chan struct{})
		server.Handle("hold", func(ctx context.Context, req *Request) (any, error) {
			if started.Add(1) == n {
				close(all)
			}
			<-ctx.Done()
			return nil, nil
		})
		server.Start()
		msgs := make([][]byte, n)
		for j := range msgs {
			msgs[j] = reqMsg(Int64ID(int64(j)), "hold")
		}
		runtime.GC()
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		g0 := runtime.NumGoroutine()
		for _, m := range msgs {
			c.Write(context.Background(), m)
		}
		<-all
		runtime.GC()
		runtime.ReadMemStats(&after)
		g1 := runtime.NumGoroutine()
		b.ReportMetric(float64(int64(after.HeapAlloc)-int64(before.HeapAlloc))/n, "heap-B/req")
		b.ReportMetric(float64(int64(after.StackInuse)-int64(before.StackInuse))/n, "stack-B/req")
		b.ReportMetric(float64(g1-g0)/n, "goroutines/req")
		server.Close(context.Background())
		c.Close()
	}
}

// Time to cancel N in-flight requests: from the first cancellation written
// to the last handler observing its ctx done.
func benchCancelMany(b *testing.B, n int) {
	var total time.Duration
	for i := 0; i < b.N; i++ {
		s := newRawServer(b)
		var started, stopped atomic.Int64
		allStarted := make(chan struct{})
		allStopped := make(chan time.Time, 1)
		s.conn.Handle("hold", func(ctx context.Context, req *Request) (any, error) {
			if started.Add(1) == int64(n) {
				close(allStarted)
			}
			<-ctx.Done()
			if stopped.Add(1) == int64(n) {
				allStopped <- time.Now()
			}
			return nil, nil
		})
		s.conn.Start()
		var reqs, cancels []byte
		for j := 0; j < n; j++ {
			id := StringID("q" + strconv.Itoa(j))
			reqs = append(append(reqs, reqMsg(id, "hold")...), '\n')
			cancels = append(append(cancels, cancelMsg(id)...), '\n')
		}
		go s.w.Write(reqs)
		<-allStarted
		t0 := time.Now()
		go s.w.Write(cancels)
		total += (<-allStopped).Sub(t0)
		s.close()
	}
	b.ReportMetric(float64(total.Microseconds())/float64(b.N)/1e3, "ms/cancel-all")
}

func BenchmarkCancel1000InFlight(b *testing.B)  { benchCancelMany(b, 1000) }
func BenchmarkCancel10000InFlight(b *testing.B) { benchCancelMany(b, 10000) }
