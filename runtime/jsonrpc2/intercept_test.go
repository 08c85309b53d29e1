package jsonrpc2

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"sync"
	"testing"
)

// recorder collects what the interceptors of a test saw, in order.
type recorder struct {
	mu  sync.Mutex
	got []string

	signalOn string        // when this entry is added,
	signal   chan struct{} // this is closed
}

func (r *recorder) add(s string) {
	r.mu.Lock()
	r.got = append(r.got, s)
	if s == r.signalOn && r.signal != nil {
		close(r.signal)
	}
	r.mu.Unlock()
}

func (r *recorder) take() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := r.got
	r.got = nil
	return out
}

// tracing returns an Interceptor that records name before and after every
// message it sees, in each of the four directions.
func tracing(r *recorder, name string) Interceptor {
	return Interceptor{
		Request: func(ctx context.Context, req *Request, next Handler) (any, error) {
			r.add(name + ">req " + req.Method)
			res, err := next(ctx, req)
			r.add(name + "<req " + req.Method)
			return res, err
		},
		Notification: func(ctx context.Context, n *Notification, next NotificationHandler) {
			r.add(name + ">note " + n.Method)
			next(ctx, n)
			r.add(name + "<note " + n.Method)
		},
		Call: func(ctx context.Context, method string, params, result any, next Caller, opts ...CallOption) error {
			r.add(name + ">call " + method)
			err := next(ctx, method, params, result, opts...)
			r.add(name + "<call " + method)
			return err
		},
		Notify: func(ctx context.Context, method string, params any, next Notifier) error {
			r.add(name + ">notify " + method)
			err := next(ctx, method, params)
			r.add(name + "<notify " + method)
			return err
		},
	}
}

func interceptedPair(t *testing.T, server, client []Interceptor, late Interceptor) (srv, cli *Conn) {
	t.Helper()
	a, b := NewPipe()
	srv = NewConn(a, WithInterceptors(server...))
	cli = NewConn(b, WithInterceptors(client...))
	srv.Intercept(late)
	t.Cleanup(func() {
		cli.Close(context.Background())
		srv.Close(context.Background())
	})
	return srv, cli
}

// TestInterceptorOrder: the first interceptor given is the outermost, those
// of NewConn come before those added with Intercept, and every request
// (with a handler or without) and notification passes through all of them;
// outgoing calls and notifications pass through the call chain likewise.
func TestInterceptorOrder(t *testing.T) {
	var sr, cr recorder
	srv, cli := interceptedPair(t,
		[]Interceptor{tracing(&sr, "a"), tracing(&sr, "b")},
		[]Interceptor{tracing(&cr, "x"), tracing(&cr, "y")},
		tracing(&sr, "c"))
	srv.Handle("echo", func(ctx context.Context, req *Request) (any, error) {
		sr.add("handler " + req.Method)
		return req.Params, nil
	})
	noted := make(chan struct{})
	sr.signalOn, sr.signal = "a<note hello", noted
	srv.HandleNotification("hello", func(ctx context.Context, n *Notification) {
		sr.add("handler " + n.Method)
	})
	srv.Start()
	cli.Start()

	var out json.RawMessage
	if err := cli.Call(context.Background(), "echo", json.RawMessage(`{"v":1}`), &out); err != nil {
		t.Fatal(err)
	}
	wantSrv := []string{"a>req echo", "b>req echo", "c>req echo", "handler echo", "c<req echo", "b<req echo", "a<req echo"}
	if got := sr.take(); !slices.Equal(got, wantSrv) {
		t.Errorf("server saw %q, want %q", got, wantSrv)
	}
	wantCli := []string{"x>call echo", "y>call echo", "y<call echo", "x<call echo"}
	if got := cr.take(); !slices.Equal(got, wantCli) {
		t.Errorf("client saw %q, want %q", got, wantCli)
	}

	// A method without a handler still passes through every interceptor,
	// and the innermost answers -32601.
	err := cli.Call(context.Background(), "missing", nil, nil)
	var rpc *Error
	if !errors.As(err, &rpc) || rpc.Code != CodeMethodNotFound {
		t.Fatalf("missing method: %v, want -32601", err)
	}
	wantSrv = []string{"a>req missing", "b>req missing", "c>req missing", "c<req missing", "b<req missing", "a<req missing"}
	if got := sr.take(); !slices.Equal(got, wantSrv) {
		t.Errorf("server saw %q, want %q", got, wantSrv)
	}
	cr.take()

	if err := cli.Notify(context.Background(), "hello", nil); err != nil {
		t.Fatal(err)
	}
	<-noted
	wantCli = []string{"x>notify hello", "y>notify hello", "y<notify hello", "x<notify hello"}
	if got := cr.take(); !slices.Equal(got, wantCli) {
		t.Errorf("client saw %q, want %q", got, wantCli)
	}
	wantSrv = []string{"a>note hello", "b>note hello", "c>note hello", "handler hello", "c<note hello", "b<note hello", "a<note hello"}
	if got := sr.take(); !slices.Equal(got, wantSrv) {
		t.Errorf("server saw %q, want %q", got, wantSrv)
	}
}

// TestInterceptorShortCircuit: an interceptor that answers without calling
// next replaces the handler, and one that changes the request changes what
// the handler sees; HandleEmbedded runs the same chain.
func TestInterceptorShortCircuit(t *testing.T) {
	answer := Interceptor{Request: func(ctx context.Context, req *Request, next Handler) (any, error) {
		switch req.Method {
		case "ping":
			return json.RawMessage(`{"by":"interceptor"}`), nil
		case "rewrite":
			r := *req
			r.Params = json.RawMessage(`{"rewritten":true}`)
			return next(ctx, &r)
		}
		return next(ctx, req)
	}}
	srv, cli := interceptedPair(t, []Interceptor{answer}, nil, Interceptor{})
	srv.Handle("ping", func(context.Context, *Request) (any, error) { return json.RawMessage(`{"by":"handler"}`), nil })
	srv.Handle("rewrite", func(_ context.Context, req *Request) (any, error) { return req.Params, nil })
	srv.Start()
	cli.Start()
	for method, want := range map[string]string{"ping": `{"by":"interceptor"}`, "rewrite": `{"rewritten":true}`} {
		var out json.RawMessage
		if err := cli.Call(context.Background(), method, nil, &out); err != nil {
			t.Fatal(err)
		}
		if string(out) != want {
			t.Errorf("%s: %s, want %s", method, out, want)
		}
		res, err := srv.HandleEmbedded(context.Background(), &Request{Method: method})
		if err != nil || string(res.(json.RawMessage)) != want {
			t.Errorf("HandleEmbedded %s: %v %v, want %s", method, res, err, want)
		}
	}
}

// TestInterceptAfterStartPanics: the chain is fixed once the Conn runs.
func TestInterceptAfterStartPanics(t *testing.T) {
	a, _ := NewPipe()
	c := NewConn(a)
	c.Start()
	defer c.Close(context.Background())
	defer func() {
		if recover() == nil {
			t.Error("Intercept after Start did not panic")
		}
	}()
	c.Intercept(Interceptor{})
}

// BenchmarkRoundTripMemPipeIntercepted is BenchmarkRoundTripMemPipe with a
// pass-through request interceptor on the server and a call interceptor on
// the client: the chain is composed once, so it adds no allocation.
func BenchmarkRoundTripMemPipeIntercepted(b *testing.B) {
	pass := Interceptor{
		Request: func(ctx context.Context, req *Request, next Handler) (any, error) { return next(ctx, req) },
		Call: func(ctx context.Context, method string, params, result any, next Caller, opts ...CallOption) error {
			return next(ctx, method, params, result, opts...)
		},
	}
	benchRoundTrip(b, func(*testing.B) (*Conn, *Conn, func()) {
		a, c := NewPipe()
		server := NewConn(a, WithLogger(quietLogger()), WithInterceptors(pass))
		client := NewConn(c, WithLogger(quietLogger()), WithInterceptors(pass))
		return server, client, func() {
			client.Close(context.Background())
			server.Close(context.Background())
		}
	}, false)
}
