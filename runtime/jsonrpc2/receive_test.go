package jsonrpc2

import (
	"bytes"
	"context"
	"errors"
	"io"
	"sync"
	"testing"
)

type receiveKey struct{}

// TestReceive: a message handed to Conn.Receive (a legacy Streamable HTTP
// POST's, on the POST's goroutine) is routed exactly as one the read loop
// read: a request runs its handler with the Values it came with and is
// answered on the transport under its own id, even after the caller reuses
// the Message; a notifications/cancelled cancels it with the peer's reason
// and no answer follows; a response completes the call it answers; a
// message of no kind is dropped. The transport's reader never delivers
// anything here, so every outcome is Receive's.
func TestReceive(t *testing.T) {
	a, b := NewPipe()
	t.Cleanup(func() { b.Close() })
	// The Conn reads nothing: its transport's Read waits until Close.
	c := NewConn(&writeOnly{Transport: a, closed: make(chan struct{})}, WithPolicy(testPolicy(SideAny)), WithLogger(quietLogger()))
	started := make(chan string, 1)
	causes := make(chan error, 1)
	c.Handle("block", func(ctx context.Context, req *Request) (any, error) {
		v, _ := ctx.Value(receiveKey{}).(string)
		started <- v
		<-ctx.Done()
		causes <- context.Cause(ctx)
		return map[string]any{"late": true}, nil
	})
	c.Handle("echo", func(ctx context.Context, req *Request) (any, error) {
		return req.Params, nil
	})
	c.Start()
	defer c.Close(context.Background())
	decode := func(s string) *Message {
		t.Helper()
		m, perr := DecodeMessage([]byte(s))
		if perr != nil {
			t.Fatal(perr)
		}
		return m
	}

	m := decode(`{"jsonrpc":"2.0","id":1,"method":"block"}`)
	m.Values = context.WithValue(context.Background(), receiveKey{}, "from the POST")
	c.Receive(m)
	if v := <-started; v != "from the POST" {
		t.Fatalf("handler ctx value %q, want the Message's Values", v)
	}
	c.Receive(decode(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1,"reason":"user stop"}}`))
	var ce *CancelError
	if err := <-causes; !errors.As(err, &ce) || ce.Source != SourcePeer || ce.Reason != "user stop" {
		t.Fatalf("cause %v, want the peer's cancellation", err)
	}

	m = decode(`{"jsonrpc":"2.0","id":2,"method":"echo","params":{"x":1}}`)
	c.Receive(m)
	*m = Message{Kind: KindRequest, ID: Int64ID(99), Method: "other"} // the receiver's to reuse
	got, err := b.Read(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"jsonrpc":"2.0","id":2,"result":{"x":1}}`; string(got) != want {
		t.Fatalf("answer %s, want %s (and nothing for the cancelled request)", got, want)
	}

	errc := callAsync(c, context.Background(), "ask", nil)
	req, err := b.Read(context.Background())
	if err != nil || !bytes.Contains(req, []byte(`"method":"ask"`)) {
		t.Fatalf("call %s, %v", req, err)
	}
	out := decode(string(req))
	c.Receive(&Message{Kind: KindInvalid})
	c.Receive(nil)
	c.Receive(decode(`{"jsonrpc":"2.0","id":` + out.ID.String() + `,"result":{}}`))
	if err := <-errc; err != nil {
		t.Fatalf("call answered through Receive: %v", err)
	}
}

// writeOnly is a transport whose Read never returns a message, so that
// whatever a Conn over it routes came through Receive.
type writeOnly struct {
	Transport
	closed chan struct{}
	once   sync.Once
}

func (w *writeOnly) Read(ctx context.Context) ([]byte, error) {
	select {
	case <-w.closed:
		return nil, io.EOF
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

func (w *writeOnly) Close() error {
	w.once.Do(func() { close(w.closed) })
	return w.Transport.Close()
}
