package jsonrpc2

import (
	"bufio"
	"context"
	"io"
	"os"
	"sync/atomic"
	"testing"
	"time"
)

// Benchmarks for issue 32 (stdio at the floor, any writer):
//
//	go test -run XXX -bench 'RoundTripOSPipe|Floor' -benchmem ./runtime/jsonrpc2/
//
// BenchmarkRoundTripOSPipeWrapped is BenchmarkRoundTripOSPipe with each
// side's writer behind a counting tap (an io.Writer that is not an
// *os.File, has no Close and cannot be interrupted): the two must be within
// 10 %. BenchmarkPipeFloor and BenchmarkFourWakeFloor are the floors a round
// trip is compared with.

// tap counts what passes through it to w: the wrapper a user puts in front
// of a pipe (a tee, a counter, exec.Cmd's stdin pipe). It is deliberately
// not an io.Closer, so nothing can interrupt a write blocked in it.
type tap struct {
	w io.Writer
	n atomic.Int64
}

func (t *tap) Write(p []byte) (int, error) {
	n, err := t.w.Write(p)
	t.n.Add(int64(n))
	return n, err
}

// osPipePairWrapped is osPipePair with both writers behind a tap.
func osPipePairWrapped(b *testing.B) (server, client *Conn, cleanup func()) {
	sr, cw := osPipe(b)
	cr, sw := osPipe(b)
	server = NewConn(NewStdioTransport(sr, &tap{w: sw}, StdioOptions{}), WithLogger(quietLogger()), WithPolicy(testPolicy(SideAny)))
	client = NewConn(NewStdioTransport(cr, &tap{w: cw}, StdioOptions{}), WithLogger(quietLogger()), WithPolicy(testPolicy(SideAny)))
	return server, client, func() {
		client.Close(context.Background())
		server.Close(context.Background())
		cw.Close() // the taps are not closed by their transports
		sw.Close()
	}
}

func BenchmarkRoundTripOSPipeWrapped(b *testing.B) { benchRoundTrip(b, osPipePairWrapped, false) }
func BenchmarkRoundTripOSPipeWrapped16Callers(b *testing.B) {
	benchRoundTrip(b, osPipePairWrapped, true)
}

// floorLine is the size of the round trip's request line.
var floorLine = []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"greet","arguments":{"who":"world"}}}` + "\n")

// BenchmarkPipeFloor is the bare round trip over two os.Pipes: the caller
// writes a line, a goroutine reads it and writes it back, the caller reads
// it. Two wake-ups (the echoing goroutine, then the caller), no JSON.
func BenchmarkPipeFloor(b *testing.B) {
	sr, cw := osPipe(b)
	cr, sw := osPipe(b)
	defer func() {
		for _, f := range []*os.File{sr, cw, cr, sw} {
			f.Close()
		}
	}()
	go func() {
		buf := make([]byte, 4096)
		for {
			n, err := sr.Read(buf)
			if err != nil {
				return
			}
			if _, err := sw.Write(buf[:n]); err != nil {
				return
			}
		}
	}()
	buf := make([]byte, 4096)
	b.ReportAllocs()
	b.ResetTimer()
	start := time.Now()
	for i := 0; i < b.N; i++ {
		if _, err := cw.Write(floorLine); err != nil {
			b.Fatal(err)
		}
		for got := 0; got < len(floorLine); {
			n, err := cr.Read(buf)
			if err != nil {
				b.Fatal(err)
			}
			got += n
		}
	}
	b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), "roundtrips/s")
}

// BenchmarkFourWakeFloor is the least any stdio peer that keeps reading
// while a handler runs, and whose caller is not its reader, can do: four
// wake-ups per round trip. The caller writes a line; the server's reader
// goroutine wakes (1) and hands it to a handler goroutine (2), which writes
// it back; the client's reader goroutine wakes (3) and hands it to the
// caller (4). Lines are read with bufio and copied, as a transport must;
// still no JSON. A round trip's distance from this floor is what the
// runtime costs beyond the hand-offs its shape needs.
func BenchmarkFourWakeFloor(b *testing.B) {
	sr, cw := osPipe(b)
	cr, sw := osPipe(b)
	defer func() {
		for _, f := range []*os.File{sr, cw, cr, sw} {
			f.Close()
		}
	}()
	reader := func(f *os.File, to chan<- []byte) {
		defer close(to)
		br := bufio.NewReader(f)
		for {
			line, err := br.ReadSlice('\n')
			if err != nil {
				return
			}
			to <- append([]byte(nil), line...)
		}
	}
	requests := make(chan []byte)
	responses := make(chan []byte)
	go reader(sr, requests)
	go reader(cr, responses)
	go func() { // the handler
		for line := range requests {
			if _, err := sw.Write(line); err != nil {
				return
			}
		}
	}()
	b.ReportAllocs()
	b.ResetTimer()
	start := time.Now()
	for i := 0; i < b.N; i++ {
		if _, err := cw.Write(floorLine); err != nil {
			b.Fatal(err)
		}
		if _, ok := <-responses; !ok {
			b.Fatal("reader ended")
		}
	}
	b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), "roundtrips/s")
}
