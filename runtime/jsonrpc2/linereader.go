package jsonrpc2

import (
	"bufio"
	"bytes"
	"io"
)

// lineReader is the part of bufio.Reader the stdio transport uses
// (ReadSlice), with a buffer that starts small and grows only when it has
// to. A bufio.Reader sized for large messages costs every connection its
// whole buffer up front (64 KiB per side was most of a connection's setup
// allocation), while most sessions only ever carry lines of a few hundred
// bytes.
type lineReader struct {
	rd    io.Reader
	buf   []byte
	r, w  int // buf[r:w] is read but not yet returned
	max   int // the buffer never grows beyond this
	err   error
	fills int // reads that returned data
}

const (
	// lineReaderMin is the initial buffer: most messages fit.
	lineReaderMin = 1 << 10
	// lineReaderMax is the largest buffer; a longer line comes back in
	// pieces (bufio.ErrBufferFull), as it did from the bufio.Reader.
	lineReaderMax = 64 << 10
)

func newLineReader(rd io.Reader) *lineReader {
	return &lineReader{rd: rd, max: lineReaderMax}
}

// ReadSlice reads until delim and returns a slice of the buffer holding the
// bytes up to and including it, valid until the next call. As bufio's: when
// the buffer is full (at its largest) without delim it returns the whole
// buffer and bufio.ErrBufferFull; on a read error it returns what was
// buffered before it and the error.
func (b *lineReader) ReadSlice(delim byte) ([]byte, error) {
	if b.buf == nil {
		b.buf = make([]byte, min(lineReaderMin, b.max))
	}
	scanned := 0 // buf[r:r+scanned] is known to hold no delim
	for {
		if i := bytes.IndexByte(b.buf[b.r+scanned:b.w], delim); i >= 0 {
			end := b.r + scanned + i + 1
			line := b.buf[b.r:end]
			b.r = end
			return line, nil
		}
		scanned = b.w - b.r
		if b.err != nil {
			line := b.buf[b.r:b.w]
			b.r = b.w
			err := b.err
			b.err = nil
			return line, err
		}
		if b.w-b.r == len(b.buf) {
			if len(b.buf) >= b.max {
				line := b.buf[b.r:b.w]
				b.r = b.w
				return line, bufio.ErrBufferFull
			}
			b.grow()
		}
		b.fill()
	}
}

// buffered is how many bytes are read but not yet returned.
func (b *lineReader) buffered() int { return b.w - b.r }

// grow doubles the buffer (up to max), keeping the unread bytes.
func (b *lineReader) grow() {
	n := min(2*len(b.buf), b.max)
	nb := make([]byte, n)
	b.w = copy(nb, b.buf[b.r:b.w])
	b.r = 0
	b.buf = nb
}

// fill reads once into the free end of the buffer, first moving the unread
// bytes to its start. A read that fills all the free space says more is
// waiting (a burst of messages), so the buffer grows for the next one.
func (b *lineReader) fill() {
	if b.r > 0 {
		b.w = copy(b.buf, b.buf[b.r:b.w])
		b.r = 0
	}
	for tries := 0; tries < 100; tries++ {
		free := len(b.buf) - b.w
		n, err := b.rd.Read(b.buf[b.w:])
		if n < 0 || n > free {
			panic("jsonrpc2: reader returned an impossible count")
		}
		b.w += n
		if n > 0 {
			b.fills++
		}
		if err != nil {
			b.err = err
			return
		}
		if n > 0 {
			if n == free && len(b.buf) < b.max {
				b.grow()
			}
			return
		}
	}
	b.err = io.ErrNoProgress
}
