package runtime

import (
	"context"
	"io"
	"log/slog"
	"os"
	"sort"
	"testing"
	"time"
)

// Cancellation latency as in BenchmarkCancelLatency, with the logging an
// operator turns on: LogCancellations as the observer and the runtime's log
// at Info, both into a JSON handler writing to io.Discard. It prices the
// dispatch queue (the events and records leave the read loop) against
// calling the observer and handler in line.
func BenchmarkCancelLatencyObserved(b *testing.B) {
	sr, cw, err := os.Pipe()
	if err != nil {
		b.Fatal(err)
	}
	cr, sw, err := os.Pipe()
	if err != nil {
		b.Fatal(err)
	}
	log := slog.New(slog.NewJSONHandler(io.Discard, &slog.HandlerOptions{Level: slog.LevelInfo}))
	c := NewConn(NewStdioTransport(sr, sw, StdioOptions{}), WithLogger(log), WithObserver(LogCancellations(log)))
	s := &rawServer{conn: c, w: cw, r: cr}
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
