package jsonrpc2

import (
	"bytes"
	"context"
	"errors"
	"sync"
	"testing"
)

// streamTransport stands in for Streamable HTTP: each request has its own
// stream, which the Conn can close (a MessageWriter told CloseStream), and
// whose drop the transport reports (Conn.StreamClosed).
type streamTransport struct {
	Transport
	mu       sync.Mutex
	closed   []RequestID
	closedCh chan struct{}
}

func (s *streamTransport) WriteMessage(ctx context.Context, m *OutMessage) error {
	if !m.CloseStream {
		return s.Write(ctx, m.Data)
	}
	s.mu.Lock()
	s.closed = append(s.closed, m.ID)
	s.mu.Unlock()
	s.closedCh <- struct{}{}
	return nil
}

// Under DisconnectIsCancellation (2026-07-28 Streamable HTTP) an abandoned
// call closes its stream instead of sending a notification, and a dropped
// incoming stream cancels its handler with SourceStreamClosed. Without it, the
// drop is not a cancellation.
func TestDisconnectSeam(t *testing.T) {
	for _, disconnectCancels := range []bool{true, false} {
		a, b := NewPipe()
		st := &streamTransport{Transport: newSpy(a), closedCh: make(chan struct{}, 1)}
		pol := policy20260728(SideAny)
		pol.DisconnectIsCancellation = disconnectCancels
		c := NewConn(st, WithPolicy(pol), WithLogger(quietLogger()))
		causes := make(chan error, 1)
		started := make(chan struct{})
		release := make(chan struct{})
		c.Handle("tools/call", func(ctx context.Context, req *Request) (any, error) {
			close(started)
			select {
			case <-ctx.Done():
				causes <- context.Cause(ctx)
			case <-release:
				causes <- nil
			}
			return map[string]any{}, nil
		})
		c.Start()
		ctx, cancel := context.WithCancel(context.Background())
		errc := callAsync(c, ctx, "tools/call", nil)
		if _, err := b.Read(context.Background()); err != nil {
			t.Fatal(err)
		}
		cancel()
		<-errc
		if disconnectCancels {
			<-st.closedCh
		} else if msg, _ := b.Read(context.Background()); !bytes.Contains(msg, []byte("notifications/cancelled")) {
			t.Fatalf("no notification without DisconnectIsCancellation: %s", msg)
		}
		// Incoming side.
		b.Write(context.Background(), reqMsg(Int64ID(1), "tools/call"))
		<-started
		c.StreamClosed(Int64ID(1))
		if !disconnectCancels {
			close(release)
		}
		err := <-causes
		var ce *CancelError
		if disconnectCancels && (!errors.As(err, &ce) || ce.Source != SourceStreamClosed) {
			t.Fatalf("cause %v", err)
		}
		if !disconnectCancels && err != nil {
			t.Fatalf("disconnect cancelled the handler although the policy says it is not a cancellation: %v", err)
		}
		c.Close(context.Background())
		b.Close()
	}
}

// describedOnly is a MessageWriter whose byte Write fails the test: every
// message a Conn writes to a MessageWriter must come described.
type describedOnly struct {
	Transport
	t   *testing.T
	out chan OutMessage
}

func (d *describedOnly) Write(ctx context.Context, msg []byte) error {
	d.t.Errorf("Write(%s): the Conn wrote bytes to a MessageWriter", msg)
	return d.Transport.Write(ctx, msg)
}

func (d *describedOnly) WriteMessage(ctx context.Context, m *OutMessage) error {
	d.out <- *m
	return d.Transport.Write(ctx, m.Data)
}

// TestSenderQueueDescribes: what the sender goroutine writes (a queued
// cancellation of our call, the read loop's error reply to an invalid
// message) reaches a MessageWriter described: the cancellation with the id
// of the request it cancels, the error reply with its id and code. So a
// transport routes them without decoding what the Conn just encoded.
func TestSenderQueueDescribes(t *testing.T) {
	a, b := NewPipe()
	d := &describedOnly{Transport: a, t: t, out: make(chan OutMessage, 8)}
	c := NewConn(d, WithPolicy(testPolicy(SideAny)), WithLogger(quietLogger()))
	c.Start()
	defer c.Close(context.Background())
	ctx, cancel := context.WithCancel(context.Background())
	errc := callAsync(c, ctx, "slow", nil)
	req := <-d.out
	if req.Kind != KindRequest || req.Method != "slow" {
		t.Fatalf("request described as %+v", req)
	}
	if _, err := b.Read(context.Background()); err != nil {
		t.Fatal(err)
	}
	cancel()
	<-errc
	got := <-d.out
	if got.Kind != KindNotification || got.Method != "notifications/cancelled" || got.ID != req.ID || !bytes.Contains(got.Data, []byte(`"requestId":`+req.ID.String())) {
		t.Errorf("cancellation described as %+v (%s), want a notification naming id %s", got, got.Data, req.ID)
	}
	b.Write(context.Background(), []byte(`{"jsonrpc":"2.0","id":9,"method":7}`))
	got = <-d.out
	if got.Kind != KindErrorResponse || got.ID != Int64ID(9) || got.Code != CodeInvalidRequest {
		t.Errorf("error reply described as %+v (%s), want -32600 to id 9", got, got.Data)
	}
}
