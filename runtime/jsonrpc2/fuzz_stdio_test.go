package jsonrpc2

import (
	"bytes"
	"context"
	"errors"
	"io"
	"testing"

	"github.com/mcpgen/mcpgen/runtime/internal/jsonscan"
)

// FuzzStdioFraming feeds arbitrary bytes to the stdio transport's reader:
// it must never panic or hang, every message it returns is one non-blank
// line within the size limit (BOM dropped only at the start), the lines it
// returns are exactly the input's lines in order, and it ends with io.EOF.
func FuzzStdioFraming(f *testing.F) {
	f.Add([]byte("{\"a\":1}\r\n\n  \n{\"b\":2}\n"), 8)
	f.Add([]byte("\xef\xbb\xbf{}\n\xef\xbb\xbf{}"), 4)
	f.Add(bytes.Repeat([]byte("x"), 300), 100)
	f.Fuzz(func(t *testing.T, in []byte, max int) {
		if max <= 0 || max > 1<<12 {
			max = 64
		}
		tr := NewStdioTransport(bytes.NewReader(in), io.Discard, StdioOptions{MaxMessageSize: max})
		defer tr.Close()
		// The limit applies to the line as read, BOM included.
		var want [][]byte
		var size []int
		for i, l := range bytes.Split(in, []byte("\n")) {
			l = bytes.TrimSuffix(l, []byte("\r"))
			raw := len(l)
			if i == 0 {
				l = bytes.TrimPrefix(l, []byte("\xef\xbb\xbf"))
			}
			if len(jsonscan.Trim(l)) == 0 && raw <= max {
				continue
			}
			want = append(want, l)
			size = append(size, raw)
		}
		ctx := context.Background()
		for n := 0; ; n++ {
			got, err := tr.Read(ctx)
			if errors.Is(err, io.EOF) {
				if n < len(want) && !(n == len(want)-1 && size[n] > max) {
					t.Fatalf("EOF after %d of %d lines", n, len(want))
				}
				return
			}
			if n >= len(want) {
				t.Fatalf("line %d beyond the %d in the input: %q, %v", n, len(want), got, err)
			}
			if errors.Is(err, ErrMessageTooLarge) {
				if size[n] <= max {
					t.Fatalf("line %d of %d bytes refused with limit %d", n, size[n], max)
				}
				continue
			}
			if err != nil {
				t.Fatalf("Read: %v", err)
			}
			if !bytes.Equal(got, want[n]) {
				t.Fatalf("line %d = %q, want %q", n, got, want[n])
			}
		}
	})
}
