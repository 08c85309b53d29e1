package jsonrpc2

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"strings"
	"testing"
)

// Must-show 2: a malformed line gets -32700 with id null and the next line
// is read intact.
func TestWireMalformedLineThenNextLine(t *testing.T) {
	p := newRawPeer(t)
	p.conn.Handle("echo", func(ctx context.Context, req *Request) (any, error) { return req.Params, nil })
	p.send(`{"jsonrpc":"2.0","id":1,"method":"echo"`) // truncated
	p.send(`{"jsonrpc":"2.0","id":2,"method":"echo","params":{"ok":true}}`)
	a, b := p.next(), p.next() // answered from different goroutines, either order
	if strings.Contains(a, `"id":2`) {
		a, b = b, a
	}
	m := decodeLine(t, a)
	e, _ := m["error"].(map[string]any)
	if m["id"] != nil || e == nil || e["code"] != json.Number("-32700") {
		t.Fatalf("malformed line answered with %v", m)
	}
	if b != `{"jsonrpc":"2.0","id":2,"result":{"ok":true}}` {
		t.Fatalf("next line answered with %s", b)
	}
}

// Must-show 2: an oversized line is refused with a clear error, and the line
// after it is still read.
func TestWireOversizedMessageRefused(t *testing.T) {
	p := newRawPeer(t) // 64 KiB limit
	p.conn.Handle("echo", func(ctx context.Context, req *Request) (any, error) { return req.Params, nil })
	big := `{"jsonrpc":"2.0","id":1,"method":"echo","params":{"s":"` + strings.Repeat("x", 200<<10) + `"}}`
	p.send(big)
	p.send(`{"jsonrpc":"2.0","id":2,"method":"echo","params":{}}`)
	// The two answers come from different goroutines, in either order.
	a, b := p.next(), p.next()
	if strings.Contains(a, `"id":2`) {
		a, b = b, a
	}
	m := decodeLine(t, a)
	e, _ := m["error"].(map[string]any)
	if m["id"] != nil || e == nil || e["code"] != json.Number("-32600") || !strings.Contains(e["message"].(string), "exceeds the 65536-byte limit") {
		t.Fatalf("oversized line answered with %v", m)
	}
	if b != `{"jsonrpc":"2.0","id":2,"result":{}}` {
		t.Fatalf("next line answered with %s", b)
	}
	// An oversized result is refused on write and replaced by an error.
	p.conn.Handle("huge", func(ctx context.Context, req *Request) (any, error) {
		return map[string]string{"s": strings.Repeat("y", 100<<10)}, nil
	})
	p.send(`{"jsonrpc":"2.0","id":3,"method":"huge"}`)
	m = p.nextJSON()
	e, _ = m["error"].(map[string]any)
	if m["id"] != json.Number("3") || e == nil || !strings.Contains(e["message"].(string), "limit") {
		t.Fatalf("oversized result answered with %v", m)
	}
}

// Must-show 2: no message is ever written with a raw newline in it, even when
// a handler returns pretty-printed raw JSON.
func TestWireNeverWritesRawNewline(t *testing.T) {
	p := newRawPeer(t)
	p.conn.Handle("pretty", func(ctx context.Context, req *Request) (any, error) {
		return json.RawMessage("{\n  \"a\": \"line1\\nline2\",\r\n  \"b\": [1,\n 2]\n}"), nil
	})
	p.send(`{"jsonrpc":"2.0","id":1,"method":"pretty"}`)
	if l := p.next(); l != `{"jsonrpc":"2.0","id":1,"result":{"a":"line1\nline2","b":[1,2]}}` {
		t.Fatalf("got %q", l)
	}
	var buf bytes.Buffer
	tr := NewStdioTransport(strings.NewReader(""), &buf, StdioOptions{})
	defer tr.Close()
	if err := tr.Write(context.Background(), []byte("{\"a\":\n1}")); err != nil {
		t.Fatal(err)
	}
	if buf.String() != "{\"a\":1}\n" {
		t.Fatalf("wrote %q", buf.String())
	}
}

func TestStdioTransportFraming(t *testing.T) {
	in := "{\"a\":1}\r\n\n   \n{\"b\":2}\n" + strings.Repeat("z", 300) + "\n{\"c\":3}"
	tr := NewStdioTransport(strings.NewReader(in), io.Discard, StdioOptions{MaxMessageSize: 100})
	ctx := context.Background()
	for _, want := range []string{`{"a":1}`, `{"b":2}`} {
		got, err := tr.Read(ctx)
		if err != nil || string(got) != want {
			t.Fatalf("got %q, %v; want %q", got, err, want)
		}
	}
	_, err := tr.Read(ctx)
	var tooBig *MessageTooLargeError
	if !errors.As(err, &tooBig) || !errors.Is(err, ErrMessageTooLarge) || tooBig.Limit != 100 {
		t.Fatalf("got %v, want MessageTooLargeError", err)
	}
	got, err := tr.Read(ctx)
	if err != nil || string(got) != `{"c":3}` {
		t.Fatalf("after oversized line: %q, %v", got, err)
	}
	if _, err := tr.Read(ctx); err != io.EOF {
		t.Fatalf("got %v, want EOF", err)
	}
	// Exactly at the limit passes; one byte over is refused.
	tr.Close()
	tr = NewStdioTransport(strings.NewReader("12345\n123456\r\n"), io.Discard, StdioOptions{MaxMessageSize: 5})
	defer tr.Close()
	if got, err := tr.Read(ctx); err != nil || string(got) != "12345" {
		t.Fatalf("at the limit: %q, %v", got, err)
	}
	if _, err := tr.Read(ctx); !errors.Is(err, ErrMessageTooLarge) {
		t.Fatalf("one over the limit: %v", err)
	}
	err = NewStdioTransport(strings.NewReader(""), io.Discard, StdioOptions{MaxMessageSize: 4}).Write(ctx, []byte(`{"a":1}`))
	if !errors.Is(err, ErrMessageTooLarge) {
		t.Fatalf("oversized write: %v", err)
	}
}

// Responses the Conn cannot match are dropped without an answer (JSON-RPC
// never answers a response) and without disturbing the session.
func TestWireStrayResponsesIgnored(t *testing.T) {
	p := newRawPeer(t)
	for _, l := range []string{
		`{"jsonrpc":"2.0","result":{}}`,
		`{"jsonrpc":"2.0","id":null,"result":{}}`,
		`{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"parse error"}}`,
		`{"jsonrpc":"2.0","error":{"code":-32600,"message":"x"}}`,
		`{"jsonrpc":"2.0","id":424242,"result":{}}`,
		`{"jsonrpc":"2.0","id":1.5,"result":{}}`,
	} {
		p.send(l)
	}
	if rest := p.sync("s"); len(rest) != 0 {
		t.Fatalf("answered a response: %q", rest)
	}
}
