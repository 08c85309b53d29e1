package jsonrpc2

import (
	"context"
	"encoding/json"
	"sync/atomic"
	"testing"
	"time"
)

// decodingTransport is a pipe end that decodes what it reads, as Streamable
// HTTP does, and counts the reads that asked it for bytes instead.
type decodingTransport struct {
	Transport
	rawReads atomic.Int32
}

func (d *decodingTransport) ReadMessage(ctx context.Context) (*Message, error) {
	data, err := d.Transport.Read(ctx)
	if err != nil {
		return nil, err
	}
	m, perr := DecodeMessage(data)
	if perr != nil {
		return m, perr
	}
	return m, nil
}

func (d *decodingTransport) Read(ctx context.Context) ([]byte, error) {
	d.rawReads.Add(1)
	return d.Transport.Read(ctx)
}

// A Conn over a MessageReader routes the messages given WithReceived first,
// invalid ones answered as if it had read them, then reads decoded messages
// (an invalid one, reported as an *Error, answered too) and never asks for
// bytes.
func TestConnReadsDecodedMessages(t *testing.T) {
	a, b := NewPipe()
	d := &decodingTransport{Transport: a}
	req, perr := DecodeMessage([]byte(`{"jsonrpc":"2.0","id":1,"method":"echo","params":{"n":1}}`))
	if perr != nil {
		t.Fatal(perr)
	}
	bad, badErr := DecodeMessage([]byte(`{"jsonrpc":"1.0","id":3,"method":"echo"}`))
	if badErr == nil {
		t.Fatal("the invalid message decoded")
	}
	c := NewConn(d, WithLogger(quietLogger()), WithPolicy(policy20251125(SideServer)),
		WithReceived(Received{Msg: req}, Received{}, Received{Msg: bad, Err: badErr}))
	c.Handle("echo", func(ctx context.Context, r *Request) (any, error) { return r.Params, nil })
	c.Start()
	defer func() {
		c.Close(context.Background())
		b.Close()
	}()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	recv := func() map[string]json.RawMessage {
		t.Helper()
		data, err := b.Read(ctx)
		if err != nil {
			t.Fatal(err)
		}
		var m map[string]json.RawMessage
		if err := json.Unmarshal(data, &m); err != nil {
			t.Fatal(err)
		}
		return m
	}
	got := map[string]string{}
	for range 2 {
		m := recv()
		got[string(m["id"])] = string(m["result"]) + string(m["error"])
	}
	if got["1"] != `{"n":1}` {
		t.Errorf("received request: answer %q", got["1"])
	}
	if e := got["3"]; !containsCode(e, CodeInvalidRequest) {
		t.Errorf("received invalid request: answer %q, want %d for id 3", e, CodeInvalidRequest)
	}
	if err := b.Write(ctx, []byte(`{"jsonrpc":"2.0","id":2,"method":"echo","params":{"n":2}}`)); err != nil {
		t.Fatal(err)
	}
	if m := recv(); string(m["id"]) != "2" || string(m["result"]) != `{"n":2}` {
		t.Errorf("read request: answer %v", m)
	}
	if err := b.Write(ctx, []byte(`{"jsonrpc":"2.0","id":4,"method":"echo","params":3}`)); err != nil {
		t.Fatal(err)
	}
	if m := recv(); string(m["id"]) != "4" || !containsCode(string(m["error"]), CodeInvalidRequest) {
		t.Errorf("read invalid request: answer %v", m)
	}
	if n := d.rawReads.Load(); n != 0 {
		t.Errorf("the Conn asked a MessageReader for bytes %d times", n)
	}
}

func containsCode(errJSON string, code int) bool {
	var e struct {
		Code int `json:"code"`
	}
	return json.Unmarshal([]byte(errJSON), &e) == nil && e.Code == code
}
