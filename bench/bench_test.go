package bench

import (
	"context"
	"testing"
	"time"
)

// The same figures as cmd/mcpbench, as Go benchmarks:
//
//	cd bench && go test -run XXX -bench . -benchmem -count 3
//
// Compare peers within one run; allocs/op and B/op count client and server.

func benchEcho(b *testing.B, p Peer, t Transport, callers int) {
	s, err := p.Connect(t, nil)
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
			if _, err := s.Echo(ctx, "hello"); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "calls/s")
}

func BenchmarkEcho(b *testing.B) {
	for _, t := range []Transport{Pipe, Mem} {
		for _, callers := range []int{1, 16} {
			for _, p := range Peers {
				b.Run(string(t)+"/callers="+itoa(callers)+"/"+p.Name, func(b *testing.B) { benchEcho(b, p, t, callers) })
			}
		}
	}
}

func BenchmarkSetup(b *testing.B) {
	for _, t := range []Transport{Pipe, Mem} {
		for _, p := range Peers {
			b.Run(string(t)+"/"+p.Name, func(b *testing.B) {
				b.ReportAllocs()
				for i := 0; i < b.N; i++ {
					s, err := p.Connect(t, nil)
					if err != nil {
						b.Fatal(err)
					}
					s.Close()
				}
			})
		}
	}
}

// BenchmarkCancelLatency reports the p50 and p99 of b.N cancellations.
func BenchmarkCancelLatency(b *testing.B) {
	for _, p := range Peers {
		if !p.Cancels {
			continue
		}
		b.Run(p.Name, func(b *testing.B) {
			l := CancelLatency(p, Pipe, b.N, 5*time.Second)
			if l.Err != nil {
				b.Fatal(l.Err)
			}
			b.ReportMetric(float64(l.P50.Nanoseconds()), "p50-ns")
			b.ReportMetric(float64(l.P99.Nanoseconds()), "p99-ns")
		})
	}
}

// BenchmarkCancel1000InFlight times cancelling 1,000 in-flight calls.
func BenchmarkCancel1000InFlight(b *testing.B) {
	for _, p := range Peers {
		if !p.Cancels {
			continue
		}
		b.Run(p.Name, func(b *testing.B) {
			var total time.Duration
			for i := 0; i < b.N; i++ {
				m := CancelMany(p, Pipe, 1000, 10*time.Second)
				if m.Err != nil || m.Done != 1000 {
					b.Fatalf("%d of 1000 done: %v", m.Done, m.Err)
				}
				total += m.Elapsed
				b.ReportMetric(m.HeapPer, "heap-B/call")
			}
			b.ReportMetric(float64(total.Nanoseconds())/float64(b.N), "ns/1000-cancels")
		})
	}
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
	var total time.Duration
	for i := 0; i < b.N; i++ {
		m := CancelMany(mcpgenPeer, Pipe, 10000, 10*time.Second)
		if m.Err != nil || m.Done != 10000 {
			b.Fatalf("%d of 10000 done: %v", m.Done, m.Err)
		}
		total += m.Elapsed
		b.ReportMetric(m.HeapPer, "heap-B/call")
		b.ReportMetric(m.GorosPer, "goroutines/call")
	}
	b.ReportMetric(float64(total.Nanoseconds())/float64(b.N), "ns/10000-cancels")
}
