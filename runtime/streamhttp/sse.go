package streamhttp

import (
	"bufio"
	"bytes"
	"fmt"
	"io"

	"github.com/mcpgen/mcpgen/runtime/jsonrpc2"
)

// readEvents parses an SSE stream and calls fn with the data of each event
// (comments, ids and retry fields are skipped). An event larger than max
// bytes ends the stream with an error wrapping jsonrpc2.ErrMessageTooLarge,
// so a hostile server cannot grow the buffer without bound.
func readEvents(r io.Reader, max int, fn func(data []byte) error) error {
	br := bufio.NewReaderSize(r, 4096)
	var data []byte
	have := false
	for {
		line, err := readLine(br, max)
		if err != nil {
			if err == io.EOF && have && len(data) > 0 {
				return fn(data) // a last event without its blank line
			}
			return err
		}
		switch {
		case len(line) == 0:
			// An event with empty data (a "priming" event that carries only
			// id and retry) is no message.
			if have && len(data) > 0 {
				if err := fn(data); err != nil {
					return err
				}
			}
			data, have = nil, false
		case line[0] == ':':
			// comment: keep-alive
		default:
			field, value, _ := bytes.Cut(line, []byte(":"))
			value = bytes.TrimPrefix(value, []byte(" "))
			if string(field) == "data" {
				if have {
					data = append(data, '\n')
				}
				if len(data)+len(value) > max {
					return &jsonrpc2.MessageTooLargeError{Size: len(data) + len(value), Limit: max}
				}
				data = append(data, value...)
				have = true
			}
		}
	}
}

// readLine reads one line without its terminator (\n, \r\n or \r), refusing
// lines over max bytes.
func readLine(br *bufio.Reader, max int) ([]byte, error) {
	var line []byte
	for {
		b, err := br.ReadByte()
		if err != nil {
			if err == io.EOF && len(line) > 0 {
				return line, nil
			}
			return nil, err
		}
		switch b {
		case '\n':
			return line, nil
		case '\r':
			if nb, err := br.Peek(1); err == nil && nb[0] == '\n' {
				_, _ = br.ReadByte()
			}
			return line, nil
		}
		if len(line) >= max {
			return nil, fmt.Errorf("sse line: %w", &jsonrpc2.MessageTooLargeError{Size: len(line), Limit: max})
		}
		line = append(line, b)
	}
}
