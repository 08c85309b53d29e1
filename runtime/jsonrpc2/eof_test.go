package jsonrpc2

import (
	"context"
	"strings"
	"testing"
	"time"
)

// Issue 11, must-show 3: EOF means "no more requests", not "cancel": the
// requests already read, initialize included, run to completion within the
// grace period and every one is answered before the Conn shuts down.
func TestEOFAnswersRequestsAlreadyRead(t *testing.T) {
	p := newRawPeer(t)
	release := make(chan struct{})
	for _, m := range []string{"initialize", "work"} {
		p.conn.Handle(m, func(ctx context.Context, req *Request) (any, error) {
			<-release
			if ctx.Err() != nil {
				t.Errorf("%s cancelled before its grace period: %v", req.Method, context.Cause(ctx))
			}
			return map[string]string{"m": req.Method}, nil
		})
	}
	p.send(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{}}`)
	p.send(`{"jsonrpc":"2.0","id":1,"method":"work"}`)
	p.send(`{"jsonrpc":"2.0","id":2,"method":"work"}`)
	p.toC.Close() // EOF while all three are in flight
	close(release)
	var got []string
	for l := range p.lines {
		got = append(got, l)
	}
	if len(got) != 3 {
		t.Fatalf("after EOF the Conn wrote %q, want three answers", got)
	}
	for _, id := range []string{"0", "1", "2"} {
		found := false
		for _, l := range got {
			found = found || strings.HasPrefix(l, `{"jsonrpc":"2.0","id":`+id+`,"result":`)
		}
		if !found {
			t.Errorf("request %s not answered: %q", id, got)
		}
	}
	within(t, p.conn.Done(), "Done")
	if ce, ok := p.conn.Err().(*CancelError); !ok || ce.Source != SourceTransportClosed {
		t.Fatalf("Err = %v", p.conn.Err())
	}
}

// initialize is never cancelled, not even when the EOF grace runs out: the
// other requests are cancelled then, initialize is still answered.
func TestEOFGraceNeverCancelsInitialize(t *testing.T) {
	p := newRawPeer(t, WithEOFGrace(time.Millisecond))
	release := make(chan struct{})
	causes := make(chan error, 1)
	p.conn.Handle("initialize", func(ctx context.Context, req *Request) (any, error) {
		<-release
		if ctx.Err() != nil {
			t.Errorf("initialize cancelled: %v", context.Cause(ctx))
		}
		return map[string]bool{"ok": true}, nil
	})
	p.conn.Handle("work", func(ctx context.Context, req *Request) (any, error) {
		<-ctx.Done()
		causes <- context.Cause(ctx)
		return "late", nil
	})
	p.send(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{}}`)
	p.send(`{"jsonrpc":"2.0","id":1,"method":"work"}`)
	p.toC.Close()
	if err := <-causes; !strings.Contains(err.Error(), "grace period passed") {
		t.Fatalf("work cancelled with %v", err)
	}
	close(release)
	var got []string
	for l := range p.lines {
		got = append(got, l)
	}
	if len(got) != 1 || got[0] != `{"jsonrpc":"2.0","id":0,"result":{"ok":true}}` {
		t.Fatalf("wrote %q, want only initialize's answer", got)
	}
}
