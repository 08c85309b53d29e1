package streamhttp

import (
	"errors"
	"strings"
	"testing"

	"github.com/mcpgen/mcpgen/runtime/jsonrpc2"
)

func TestReadEvents(t *testing.T) {
	in := "id: 1\nretry: 500\ndata:\n\n: keep-alive\n\nevent: message\ndata: {\"a\":\ndata: 1}\r\n\r\ndata: last"
	var got []string
	err := readEvents(strings.NewReader(in), 1024, func(d []byte) error { got = append(got, string(d)); return nil })
	if err != nil || len(got) != 2 || got[0] != "{\"a\":\n1}" || got[1] != "last" {
		t.Fatalf("got %q, %v", got, err)
	}
	err = readEvents(strings.NewReader("data: "+strings.Repeat("x", 100)+"\n\n"), 50, func([]byte) error { return nil })
	if !errors.Is(err, jsonrpc2.ErrMessageTooLarge) {
		t.Fatalf("oversized event: %v", err)
	}
	err = readEvents(strings.NewReader(strings.Repeat("data: xx\n", 40)+"\n"), 50, func([]byte) error { return nil })
	if !errors.Is(err, jsonrpc2.ErrMessageTooLarge) {
		t.Fatalf("oversized multi-line event: %v", err)
	}
}
