package jsonrpc2

import (
	"context"
	"errors"
	"strings"
	"testing"
)

// A caller cancels and another goroutine closes the Conn before Call has
// returned: whichever of Call and Close takes the call back, exactly one
// notifications/cancelled goes out, with the caller's reason, before the
// transport closes (research/sdk-cancellation.md: "cancels lost on close").
func TestCancelRacingCloseIsNotLost(t *testing.T) {
	for i := 0; i < 200; i++ {
		events := newEventLog()
		p := newRawPeer(t, WithObserver(events.observe))
		ctx, cancel := context.WithCancelCause(context.Background())
		errc := callAsync(p.conn, ctx, "tools/call", map[string]any{"name": "x"})
		p.next() // the request is on the wire
		cancel(errors.New("user pressed ctrl-c"))
		go p.conn.Close(context.Background()) // races Call noticing ctx
		if err := <-errc; !errors.Is(err, context.Canceled) {
			t.Fatalf("run %d: Call returned %v", i, err)
		}
		rest := p.closeAndDrain()
		var cancels []string
		for _, l := range rest {
			if strings.Contains(l, `"notifications/cancelled"`) {
				cancels = append(cancels, l)
			}
		}
		if len(cancels) != 1 || !strings.Contains(cancels[0], `"requestId":1`) || !strings.Contains(cancels[0], `"reason":"user pressed ctrl-c"`) {
			t.Fatalf("run %d: wrote %q after the request; want exactly one cancellation of 1 with the caller's reason; events %+v", i, rest, events.snapshot())
		}
	}
}

// Close abandons calls still waiting for their answer; it tells the peer,
// since on transports where a disconnect is not a cancellation the peer
// would otherwise work on for nobody. initialize is still never cancelled.
func TestCloseCancelsPendingCalls(t *testing.T) {
	p := newRawPeer(t)
	errc := callAsync(p.conn, context.Background(), "tools/call", nil)
	p.next()
	initc := callAsync(p.conn, context.Background(), "initialize", nil)
	p.next()
	rest := p.closeAndDrain()
	var ce *CancelError
	if err := <-errc; !errors.As(err, &ce) || ce.Source != SourceClose {
		t.Fatalf("pending call returned %v, want the Close cause", err)
	}
	<-initc
	if len(rest) != 1 || !strings.Contains(rest[0], `"notifications/cancelled","params":{"requestId":1,"reason":"connection closed"}`) {
		t.Fatalf("Close wrote %q; want one cancellation for tools/call and none for initialize", rest)
	}
}

// Handlers see their own request through the context.
func TestRequestFromContext(t *testing.T) {
	p := newRawPeer(t)
	p.conn.Handle("tools/call", func(ctx context.Context, _ *Request) (any, error) {
		r, ok := RequestFromContext(ctx)
		if !ok {
			return nil, errors.New("no request in ctx")
		}
		return map[string]string{"id": r.ID.String(), "method": r.Method}, nil
	})
	p.send(`{"jsonrpc":"2.0","id":"7","method":"tools/call"}`)
	if l := p.next(); l != `{"jsonrpc":"2.0","id":"7","result":{"id":"\"7\"","method":"tools/call"}}` {
		t.Fatalf("got %s", l)
	}
	if _, ok := RequestFromContext(context.Background()); ok {
		t.Fatal("a request in a plain context")
	}
}

// EOF on input does not throw away replies already queued: a stdio peer
// closes our stdin and still reads our stdout.
func TestEOFFlushesQueuedReplies(t *testing.T) {
	p := newRawPeer(t)
	p.send(`{"jsonrpc":"2.0","id":true,"method":"ping"}`)
	p.send(`not json`)
	p.toC.Close()
	var got []string
	for l := range p.lines {
		got = append(got, l)
	}
	if len(got) != 2 || !strings.Contains(got[0], `-32600`) || !strings.Contains(got[1], `-32700`) {
		t.Fatalf("after EOF the peer read %q; want the -32600 and -32700 replies", got)
	}
}
