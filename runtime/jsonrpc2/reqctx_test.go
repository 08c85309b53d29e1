package jsonrpc2

import (
	"context"
	"testing"
	"time"
)

// perRequestTransport gives each incoming request a value of its own
// (Message.Values), as a legacy Streamable HTTP session gives each the
// values of its POST.
type perRequestTransport struct{ Transport }

type perRequestKey struct{}

func (t perRequestTransport) ReadMessage(ctx context.Context) (*Message, error) {
	data, err := t.Read(ctx)
	if err != nil {
		return nil, err
	}
	m, derr := DecodeMessage(data)
	if derr != nil {
		return m, derr
	}
	if m.Kind == KindRequest {
		m.Values = context.WithValue(context.Background(), perRequestKey{}, "post-of-"+m.ID.String())
	}
	return m, nil
}

// Message.Values of a request a MessageReader read reach its handler, on
// top of the base context's, and stay in what outlives the handler with
// its values (context.WithoutCancel, as a task's work is detached).
func TestRequestValuesFromReader(t *testing.T) {
	a, b := NewPipe()
	base := context.WithValue(context.Background(), ctxKey{}, "base")
	server := NewConn(perRequestTransport{a}, WithPolicy(testPolicy(SideServer)), WithLogger(quietLogger()), WithBaseContext(base))
	client := NewConn(b, WithPolicy(testPolicy(SideClient)), WithLogger(quietLogger()))
	detached := make(chan context.Context, 2)
	server.Handle("m", func(ctx context.Context, req *Request) (any, error) {
		detached <- context.WithoutCancel(ctx)
		return []any{ctx.Value(perRequestKey{}), ctx.Value(ctxKey{})}, nil
	})
	server.Start()
	client.Start()
	defer func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		client.Close(ctx)
		server.Close(ctx)
	}()
	for _, id := range []string{"1", "2"} {
		var got []string
		if err := client.Call(context.Background(), "m", nil, &got); err != nil {
			t.Fatal(err)
		}
		if len(got) != 2 || got[0] != "post-of-"+id || got[1] != "base" {
			t.Errorf("request %s: handler saw %q", id, got)
		}
		if v := (<-detached).Value(perRequestKey{}); v != "post-of-"+id {
			t.Errorf("request %s: detached ctx has %v", id, v)
		}
	}
}
