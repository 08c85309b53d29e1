package bench

import (
	"context"
	"strconv"
	"testing"
	"time"
)

// The same figures as cmd/mcpbench, as Go benchmarks:
//
//	cd bench && go test -run XXX -bench . -benchmem -count 3
//
// Compare peers within one run; allocs/op and B/op count client and server.
// The HTTP ones (BenchmarkHTTP*) replace the go-sdk comparison that lived
// in interop/http; runtime/streamhttp keeps its own mcpgen-only benchmark.

func benchEcho(b *testing.B, connect Connector, callers int) {
	s, err := connect(nil)
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	ctx := context.Background()
	b.ReportAllocs()
	b.ResetTimer()
	if callers > 1 {
		b.SetParallelism(callers / 2)
		b.RunParallel(func(pb *testing.PB) {
			for pb.Next() {
				if _, err := s.Echo(ctx, "hello"); err != nil {
					b.Error(err)
					return
				}
			}
		})
	} else {
		for i := 0; i < b.N; i++ {
			if got, err := s.Echo(ctx, "hello"); err != nil || got != "hello" {
				b.Fatalf("echo %q, %v", got, err)
			}
		}
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "calls/s")
}

func BenchmarkEcho(b *testing.B) {
	for _, t := range []TransportKind{Pipe, WrappedPipe, Mem} {
		for _, callers := range []int{1, 16} {
			for _, rev := range Revisions {
				for _, p := range Peers {
					b.Run(string(t)+"/callers="+strconv.Itoa(callers)+"/"+rev+"/"+p.Name, func(b *testing.B) { benchEcho(b, p.over(t, rev), callers) })
				}
			}
		}
	}
}

func BenchmarkSetup(b *testing.B) {
	for _, t := range []TransportKind{Pipe, Mem} {
		for _, rev := range Revisions {
			for _, p := range Peers {
				b.Run(string(t)+"/"+rev+"/"+p.Name, func(b *testing.B) {
					b.ReportAllocs()
					for i := 0; i < b.N; i++ {
						s, err := p.Connect(t, rev, nil)
						if err != nil {
							b.Fatal(err)
						}
						s.Close()
					}
				})
			}
		}
	}
}

// BenchmarkCancelLatency reports the p50 and p99 of b.N cancellations.
// (handler-p*: cancel → the handler's ctx done; return-p*: cancel → the
// caller's call returns.)
func BenchmarkCancelLatency(b *testing.B) {
	for _, rev := range Revisions {
		for _, p := range Peers {
			b.Run(rev+"/"+p.Name, func(b *testing.B) {
				reportLatency(b, CancelLatency(p, Pipe, rev, b.N, 5*time.Second))
			})
		}
	}
}

func reportLatency(b *testing.B, l Latencies) {
	if l.Err != nil {
		b.Fatal(l.Err)
	}
	if !l.Never {
		b.ReportMetric(float64(l.P50.Nanoseconds()), "handler-p50-ns")
		b.ReportMetric(float64(l.P99.Nanoseconds()), "handler-p99-ns")
	}
	if l.Ret50 > 0 { // the floor has no caller
		b.ReportMetric(float64(l.Ret50.Nanoseconds()), "return-p50-ns")
		b.ReportMetric(float64(l.Ret99.Nanoseconds()), "return-p99-ns")
	}
}

// BenchmarkCancel1000InFlight times cancelling 1,000 in-flight calls
// (mcp-go is left out: its stdio server stops reading while its handler
// queue is full, so the cancellations are never read; cmd/mcpbench shows
// it).
func BenchmarkCancel1000InFlight(b *testing.B) {
	for _, p := range Peers {
		if !p.CancelsUnderLoad {
			continue
		}
		for _, rev := range Revisions {
			b.Run(rev+"/"+p.Name, func(b *testing.B) {
				benchMass(b, 1000, "call", "cancels", func() Mass { return CancelMany(p, Pipe, rev, 1000, 10*time.Second) })
			})
		}
	}
}

// BenchmarkFourWakeFloor is the round trip of four wake-ups over os.Pipe
// (see FourWakeFloor): what a stdio round trip is compared with.
func BenchmarkFourWakeFloor(b *testing.B) {
	r := FourWakeFloor(100 * time.Millisecond)
	if r.Err != nil {
		b.Fatal(r.Err)
	}
	b.ReportMetric(r.CallsPerSec, "calls/s")
}

// BenchmarkPipeFloor is a bare write + wake-up round trip over os.Pipe.
func BenchmarkPipeFloor(b *testing.B) {
	r := PipeFloor(100 * time.Millisecond)
	if r.Err != nil {
		b.Fatal(r.Err)
	}
	b.ReportMetric(r.CallsPerSec, "roundtrips/s")
}

// BenchmarkCancel10000InFlight times cancelling 10,000 in-flight calls and
// reports the live heap per in-flight call (client and server side
// together, goroutine stacks excluded). go-sdk takes seconds here and
// mcp-go never cancels, so only mcpgen runs; cmd/mcpbench has all three.
func BenchmarkCancel10000InFlight(b *testing.B) {
	for _, rev := range Revisions {
		b.Run(rev, func(b *testing.B) {
			benchMass(b, 10000, "call", "cancels", func() Mass { return CancelMany(mcpgenPeer, Pipe, rev, 10000, 10*time.Second) })
		})
	}
}

// benchMass runs measure b.N times, failing unless every one of its n
// handlers was cancelled, and reports the mean time ("ns/<n>-<what>") and
// the live heap and goroutines per call or stream ("per").
func benchMass(b *testing.B, n int, per, what string, measure func() Mass) {
	var total time.Duration
	for i := 0; i < b.N; i++ {
		m := measure()
		if m.Err != nil || m.Done != n {
			b.Fatalf("%d of %d done: %v", m.Done, n, m.Err)
		}
		total += m.Elapsed
		b.ReportMetric(m.HeapPer, "heap-B/"+per)
		b.ReportMetric(m.GorosPer, "goroutines/"+per)
	}
	b.ReportMetric(float64(total.Nanoseconds())/float64(b.N), "ns/"+strconv.Itoa(n)+"-"+what)
}

// BenchmarkHTTPEcho: one echo round trip per iteration over loopback TCP,
// per era and response kind, driven by each SDK's own client and by the
// raw net/http client.
func BenchmarkHTTPEcho(b *testing.B) {
	for _, c := range []HTTPClient{OwnClient, RawClient} {
		for _, m := range HTTPModes {
			for _, p := range HTTPPeers {
				b.Run(httpName(c, m, p), func(b *testing.B) { benchEcho(b, HTTPConnector(p, m, c), 1) })
			}
		}
	}
}

// BenchmarkHTTPCancelLatency: with the raw client, from aborting the
// request's POST (its stream closes) to the handler's ctx done (modern
// only: a legacy disconnect is not a cancellation); with each SDK's own
// client, from cancelling the caller's ctx.
func BenchmarkHTTPCancelLatency(b *testing.B) {
	for _, c := range []HTTPClient{RawClient, OwnClient} {
		for _, m := range HTTPModes {
			if c == RawClient && m.Era == Legacy {
				continue
			}
			for _, p := range HTTPPeers {
				b.Run(httpName(c, m, p), func(b *testing.B) {
					reportLatency(b, HTTPCancelLatency(p, m, c, b.N, 5*time.Second))
				})
			}
		}
	}
}

// BenchmarkHTTPStreams reports the live heap and goroutines per open
// stream (an in-flight modern POST), and the time to cancel 100 of them by
// closing their streams.
func BenchmarkHTTPStreams(b *testing.B) {
	for _, m := range []HTTPMode{{Modern, false}, {Modern, true}} {
		for _, p := range HTTPPeers {
			b.Run(httpName(RawClient, m, p), func(b *testing.B) {
				benchMass(b, 100, "stream", "closes", func() Mass { return HTTPStreams(p, m, 100, 5*time.Second) })
			})
		}
	}
}

func httpName(c HTTPClient, m HTTPMode, p HTTPPeer) string {
	cl := "own"
	if c == RawClient {
		cl = "raw"
	}
	kind := "json"
	if m.SSE {
		kind = "sse"
	}
	return cl + "/" + string(m.Era) + "/" + kind + "/" + p.Name
}

// BenchmarkCancelFloor is the cancel-latency floor: a cancellation line over
// the bare os.Pipe pair, read and applied with no SDK code (see CancelFloor).
func BenchmarkCancelFloor(b *testing.B) {
	reportLatency(b, CancelFloor(b.N, 5*time.Second))
}
