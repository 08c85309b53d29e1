package jsonrpc2

import (
	"context"
	"errors"
	"log/slog"
	"strings"
	"testing"
	"time"
)

type ctxKey struct{}

// A handler reports progress with the token the caller's runtime injected;
// the caller's callback sees it; base-context values reach handlers.
func TestProgressEndToEndAndBaseContext(t *testing.T) {
	base := context.WithValue(context.Background(), ctxKey{}, "trace-42")
	server, client := pair(t, []Option{WithBaseContext(base)}, nil)
	server.Handle("tools/call", func(ctx context.Context, req *Request) (any, error) {
		if ctx.Value(ctxKey{}) != "trace-42" {
			t.Error("base context value missing in handler")
		}
		tok, ok := req.ProgressToken()
		if !ok {
			return nil, errors.New("no progress token")
		}
		total := 3.0
		for i := 1; i <= 3; i++ {
			if err := server.NotifyProgress(ctx, ProgressParams{ProgressToken: tok, Progress: float64(i), Total: &total, Message: "step"}); err != nil {
				return nil, err
			}
		}
		return map[string]string{"done": "yes"}, nil
	})
	server.Start()
	client.Start()
	var got []ProgressParams
	var out map[string]string
	err := client.Call(context.Background(), "tools/call", map[string]any{"name": "x"}, &out,
		WithProgress(func(p ProgressParams) { got = append(got, p) }))
	if err != nil || out["done"] != "yes" {
		t.Fatalf("%v %v", out, err)
	}
	// Progress sent before the response is delivered before Call returns.
	if len(got) != 3 || got[2].Progress != 3 || *got[2].Total != 3 || got[0].Message != "step" {
		t.Fatalf("progress %+v", got)
	}
}

// WithDefaultTimeout applies to calls that set none; a per-call option wins.
func TestDefaultTimeout(t *testing.T) {
	server, client := pair(t, nil, []Option{WithDefaultTimeout(20 * time.Millisecond), WithDefaultMaxTimeout(time.Minute)})
	release := make(chan struct{})
	server.Handle("slow", func(ctx context.Context, req *Request) (any, error) {
		<-ctx.Done()
		return nil, nil
	})
	server.Handle("gated", func(ctx context.Context, req *Request) (any, error) {
		<-release
		return nil, nil
	})
	server.Start()
	client.Start()
	err := client.Call(context.Background(), "slow", nil, nil)
	var ce *CancelError
	if !errors.As(err, &ce) || ce.Source != SourceTimeout || !strings.Contains(ce.Error(), "20ms") {
		t.Fatalf("default timeout: %v", err)
	}
	errc := callAsync(client, context.Background(), "gated", nil, WithTimeout(time.Minute))
	release <- struct{}{}
	if err := <-errc; err != nil {
		t.Fatalf("per-call timeout should override the default: %v", err)
	}
}

// A request reusing an id that is still in flight is dropped, not answered
// (any answer would look like the first request's), and logged as a Warn
// naming the id, rate-limited: a flood of duplicates writes a bounded number
// of lines.
func TestWireDuplicateInFlightIDDropped(t *testing.T) {
	var logs logCapture
	p := newRawPeer(t, WithLogger(slog.New(&logs)))
	release := make(chan struct{})
	runs := make(chan struct{}, 2)
	p.conn.Handle("hold", func(ctx context.Context, req *Request) (any, error) {
		runs <- struct{}{}
		<-release
		return "first", nil
	})
	p.send(`{"jsonrpc":"2.0","id":1,"method":"hold"}`)
	<-runs
	const dups = 1000
	for i := 0; i < dups; i++ {
		p.send(`{"jsonrpc":"2.0","id":1,"method":"hold"}`)
	}
	if rest := p.sync("s"); len(rest) != 0 {
		t.Fatalf("duplicate answered: %q", rest)
	}
	close(release)
	if l := p.next(); l != `{"jsonrpc":"2.0","id":1,"result":"first"}` {
		t.Fatal(l)
	}
	if len(runs) != 0 {
		t.Fatal("the duplicate ran")
	}
	p.closeAndDrain() // delivers the queued log records
	if !logs.contains("dropping request whose id is already in flight", "id=1", "method=hold") {
		t.Fatalf("no Warn naming the duplicate id: %q", logs.records)
	}
	n := 0
	for _, r := range logs.records {
		if strings.HasPrefix(r, "dropping request whose id") {
			n++
		}
	}
	// A burst of 20, then 10 a second: the test runs well under 3 s.
	if n < 1 || n > 50 {
		t.Errorf("%d duplicate-id lines for %d duplicates: not rate-limited", n, dups)
	}
}

func TestStringers(t *testing.T) {
	for _, s := range []string{
		SideClient.String(), SideServer.String(), SideAny.String(),
		EventRequested.String(), EventIgnored.String(), IgnoreTaskAugmented.String(),
		Outgoing.String(), Incoming.String(), SourceMaxTimeout.String(), KindErrorResponse.String(),
		(&Error{Code: -32601, Message: "x"}).Error(), NewError(1, "m").Message, NewInvalidParamsError("bad").Message,
	} {
		if s == "" {
			t.Errorf("odd name %q", s)
		}
	}
	if (&CancelError{ID: StringID("a"), Method: "m", Source: SourcePeer, Reason: "r"}).Error() != `request "a" (m) cancelled by peer notification: r` {
		t.Error("CancelError text")
	}
}
