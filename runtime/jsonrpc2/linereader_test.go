package jsonrpc2

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"testing"
	"testing/iotest"
)

// chunkReader returns its input in reads of the sizes in sizes (cycled),
// so a test controls where reads split lines.
type chunkReader struct {
	data  []byte
	sizes []byte
	i     int
}

func (c *chunkReader) Read(p []byte) (int, error) {
	if len(c.data) == 0 {
		return 0, io.EOF
	}
	n := len(c.data)
	if len(c.sizes) > 0 {
		n = int(c.sizes[c.i%len(c.sizes)])%64 + 1
		c.i++
	}
	n = min(n, len(p), len(c.data))
	copy(p, c.data[:n])
	c.data = c.data[n:]
	return n, nil
}

type slice struct {
	b   string
	err error
}

// readAll calls ReadSlice until it returns io.EOF with nothing, recording
// every result.
func readAll(t *testing.T, rs func(byte) ([]byte, error)) []slice {
	var out []slice
	for n := 0; n < 1<<16; n++ {
		b, err := rs('\n')
		out = append(out, slice{string(b), err})
		if err != nil && !errors.Is(err, bufio.ErrBufferFull) {
			return out
		}
	}
	t.Fatal("ReadSlice never reached the end")
	return nil
}

// FuzzLineReader checks the growing line reader against bufio.Reader of its
// largest size: every ReadSlice returns the same bytes and error, however
// the underlying reads split the input and whether the last read carries
// data with its error.
func FuzzLineReader(f *testing.F) {
	f.Add([]byte("{\"a\":1}\n{\"b\":2}\n"), []byte{}, 16, false)
	f.Add(bytes.Repeat([]byte("0123456789\n"), 300), []byte{3, 60, 1}, 64, true)
	f.Add(bytes.Repeat([]byte("x"), 5000), []byte{63}, 100, false)
	f.Fuzz(func(t *testing.T, in, sizes []byte, max int, dataErr bool) {
		if max < 16 || max > 1<<13 {
			max = 16 // bufio's smallest buffer
		}
		src := func() io.Reader {
			var r io.Reader = &chunkReader{data: in, sizes: sizes}
			if dataErr {
				r = iotest.DataErrReader(r)
			}
			return r
		}
		lr := newLineReader(src())
		lr.max = max
		got := readAll(t, lr.ReadSlice)
		want := readAll(t, bufio.NewReaderSize(src(), max).ReadSlice)
		if len(got) != len(want) {
			t.Fatalf("%d results, bufio gives %d", len(got), len(want))
		}
		for i := range got {
			if got[i].b != want[i].b || !errors.Is(got[i].err, want[i].err) {
				t.Fatalf("result %d = %q, %v; bufio gives %q, %v", i, got[i].b, got[i].err, want[i].b, want[i].err)
			}
		}
		if len(lr.buf) > max {
			t.Fatalf("buffer grew to %d beyond its limit %d", len(lr.buf), max)
		}
	})
}

// TestLineReaderStartsSmall: a connection that only carries short lines
// never allocates the large buffer, and one long line grows it once to what
// it needs.
func TestLineReaderStartsSmall(t *testing.T) {
	lines := bytes.Repeat([]byte(`{"jsonrpc":"2.0","id":1,"result":{}}`+"\n"), 100)
	lr := newLineReader(iotest.OneByteReader(bytes.NewReader(lines)))
	for {
		if _, err := lr.ReadSlice('\n'); err != nil {
			break
		}
	}
	if len(lr.buf) != lineReaderMin {
		t.Fatalf("buffer is %d bytes after short lines read one byte at a time, want %d", len(lr.buf), lineReaderMin)
	}

	long := append(bytes.Repeat([]byte("y"), 3000), '\n')
	lr = newLineReader(iotest.HalfReader(bytes.NewReader(long)))
	line, err := lr.ReadSlice('\n')
	if err != nil || !bytes.Equal(line, long) {
		t.Fatalf("ReadSlice = %d bytes, %v; want the %d-byte line", len(line), err, len(long))
	}
	if len(lr.buf) != 4<<10 {
		t.Fatalf("buffer is %d bytes after a 3001-byte line, want %d", len(lr.buf), 4<<10)
	}
}

// TestLineReaderGrowsForBursts: when a read fills the whole buffer, more
// is waiting, so the buffer grows and a burst of lines takes fewer reads.
func TestLineReaderGrowsForBursts(t *testing.T) {
	burst := bytes.Repeat([]byte(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}}`+"\n"), 1000)
	cr := &countingReader{r: bytes.NewReader(burst)}
	lr := newLineReader(cr)
	n := 0
	for {
		if _, err := lr.ReadSlice('\n'); err != nil {
			break
		}
		n++
	}
	if n != 1000 {
		t.Fatalf("read %d lines, want 1000", n)
	}
	if len(lr.buf) != lineReaderMax {
		t.Fatalf("buffer is %d bytes after a burst, want %d", len(lr.buf), lineReaderMax)
	}
	// A fixed 1 KiB buffer would need about 80 reads for these 80 KB.
	if cr.reads > 12 {
		t.Fatalf("%d reads for an 80 KB burst", cr.reads)
	}
}

type countingReader struct {
	r     io.Reader
	reads int
}

func (c *countingReader) Read(p []byte) (int, error) {
	c.reads++
	return c.r.Read(p)
}
