package jsonrpc2

import (
	"io"
	"log/slog"
	"testing"
)

// Cancellation latency as in BenchmarkCancelLatency, with the logging an
// operator turns on: LogCancellations as the observer and the runtime's log
// at Info, both into a JSON handler writing to io.Discard. It prices the
// dispatch queue (the events and records leave the read loop) against
// calling the observer and handler in line.
func BenchmarkCancelLatencyObserved(b *testing.B) {
	log := slog.New(slog.NewJSONHandler(io.Discard, &slog.HandlerOptions{Level: slog.LevelInfo}))
	benchCancelLatency(b, newRawServer(b, WithLogger(log), WithObserver(LogCancellations(log))))
}
