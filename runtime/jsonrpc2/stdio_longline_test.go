package jsonrpc2

import (
	"bytes"
	"context"
	"errors"
	"io"
	"testing"
)

// Lines longer than the transport's 64 KB read buffer arrive in fragments:
// each comes back whole, in order, and held in a slice of its own size (the
// spare capacity of a slice grown by append would stay alive with the
// request without being charged to the in-flight budget).
func TestStdioLongLinesExact(t *testing.T) {
	const buf = 64 << 10
	sizes := []int{buf - 1, buf, buf + 1, buf + 100, 2 * buf, 2*buf + 7, 3*buf + 1}
	var in bytes.Buffer
	var want [][]byte
	for i, n := range sizes {
		l := bytes.Repeat([]byte{byte('a' + i)}, n)
		want = append(want, l)
		in.Write(l)
		if i%2 == 0 {
			in.WriteString("\r\n")
		} else {
			in.WriteString("\n")
		}
	}
	last := bytes.Repeat([]byte("z"), buf) // no newline: ends at EOF, exactly one buffer
	want = append(want, last)
	in.Write(last)
	tr := NewStdioTransport(&in, io.Discard, StdioOptions{MaxMessageSize: 4 * buf})
	defer tr.Close()
	for i, w := range want {
		got, err := tr.Read(context.Background())
		if err != nil {
			t.Fatalf("line %d (%d bytes): %v", i, len(w), err)
		}
		if !bytes.Equal(got, w) {
			t.Fatalf("line %d: got %d bytes, want %d", i, len(got), len(w))
		}
		if cap(got) > len(got)+2 {
			t.Errorf("line %d of %d bytes held in %d bytes of capacity", i, len(got), cap(got))
		}
	}
	if _, err := tr.Read(context.Background()); !errors.Is(err, io.EOF) {
		t.Fatalf("after the last line: %v, want EOF", err)
	}
}
